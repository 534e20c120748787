// Command probe is the readiness check used by ../../ferretdb.sh: it connects
// with the official Go driver (already part of FerretDB's module graph, so it
// costs no extra download) and runs `ping` against the admin database.
//
//	probe [-url mongodb://127.0.0.1:27018/] [-timeout 3s]
//
// Exit status 0 when the server answered, 1 otherwise.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

func main() {
	url := flag.String("url", "mongodb://127.0.0.1:27018/", "MongoDB connection string")
	timeout := flag.Duration("timeout", 3*time.Second, "overall timeout")
	verbose := flag.Bool("v", false, "print the server's buildInfo")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	opts := options.Client().ApplyURI(*url).
		SetServerSelectionTimeout(*timeout).
		SetConnectTimeout(*timeout).
		SetDirect(true)

	client, err := mongo.Connect(ctx, opts)
	if err != nil {
		fail(err)
	}
	defer client.Disconnect(context.Background()) //nolint:errcheck // best effort

	admin := client.Database("admin")
	if err = admin.RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		fail(err)
	}

	if *verbose {
		var info bson.M
		if err = admin.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
			fail(err)
		}
		fmt.Printf("version=%v ferretdbVersion=%v\n", info["version"], info["ferretdbVersion"])
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "not ready:", err)
	os.Exit(1)
}
