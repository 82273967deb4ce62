#!/usr/bin/env bash
# Builds hack/bundle-validate (the operator-framework's bundle validators, github.com/operator-framework/api)
# through the Go module proxy and caches the binary outside the work tree, keyed by a hash of its
# sources (main.go, go.mod, go.sum), so it is rebuilt only when they change. Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/bundle-validate"

CACHE_ROOT="${AIO_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-install-operator}"
key=$(cat go.mod go.sum ./*.go | sha256sum | cut -c1-16)
BIN="$CACHE_ROOT/bundle-validate/$key/bundle-validate"

if [[ -x "$BIN" ]]; then
  echo "$BIN"
  exit 0
fi

command -v go >/dev/null || { echo "go is required to build hack/bundle-validate" >&2; exit 1; }
mkdir -p "$(dirname "$BIN")"
echo "[build-bundle-validate] building operator-framework/api validators (under two minutes cold on 2 cores)" >&2
# -mod=readonly: go.sum is committed, so the build resolves exactly the pinned modules; no VCS stamp,
# the binary must not depend on the state of the work tree.
GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN.tmp" .
mv "$BIN.tmp" "$BIN"
echo "$BIN"
