//go:build tools

// Package tools pins the FerretDB command in go.mod/go.sum so that `go mod
// tidy` keeps it and `go mod vendor` vendors it; ../ferretdb.sh then builds
// github.com/FerretDB/FerretDB/cmd/ferretdb from the vendor tree.
package tools

import _ "github.com/FerretDB/FerretDB/cmd/ferretdb"
