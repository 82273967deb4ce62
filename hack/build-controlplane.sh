#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager and etcd from Go modules (through the Go module
# proxy) and caches them outside the work tree, keyed by version. Prints the bin directory.
# Rebuilds only when the binaries for the requested versions are missing.
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.35.4}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
CACHE_ROOT="${AIO_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-install-operator}"
OUT="$CACHE_ROOT/controlplane/kube-${KUBE_VERSION}-etcd-${ETCD_VERSION}"
BIN="$OUT/bin"

if [[ -x "$BIN/kube-apiserver" && -x "$BIN/etcd" && -x "$BIN/kube-controller-manager" ]]; then
  echo "$BIN"
  exit 0
fi

command -v go >/dev/null || { echo "go is required to build the control plane" >&2; exit 1; }
mkdir -p "$BIN"
log() { echo "[build-controlplane] $*" >&2; }

# --- kube-apiserver and kube-controller-manager ---------------------------------------------
kdir="$OUT/src/kube"
mkdir -p "$kdir"
minor="${KUBE_VERSION#v1.}"; minor="${minor%%.*}"
staging_version="v0.${KUBE_VERSION#v1.}"
log "resolving k8s.io/kubernetes@$KUBE_VERSION"
gomod_file=$(cd "$kdir" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" \
  | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
# k8s.io/kubernetes requires every staging module at v0.0.0 and replaces it with a local path;
# a consumer must replace each with the published tag instead.
mapfile -t staging < <(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod_file" | sort -u)
[[ ${#staging[@]} -gt 0 ]] || { log "found no staging modules in $gomod_file"; exit 1; }
{
  echo "module aio.local/controlplane"
  echo
  echo "go 1.25"
  echo
  echo "require k8s.io/kubernetes $KUBE_VERSION"
  echo
  for m in "${staging[@]}"; do echo "replace $m => $m $staging_version"; done
} >"$kdir/go.mod"
cat >"$kdir/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
GO
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/client-go/pkg/version.gitVersion=$KUBE_VERSION -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
(
  cd "$kdir"
  log "go mod tidy (kube)"
  GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>&1 || true
  GOFLAGS=-mod=mod go get "k8s.io/kubernetes@$KUBE_VERSION" >&2
  log "building kube-apiserver (several minutes on 2 cores)"
  GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$BIN/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  mv "$BIN/kube-apiserver.tmp" "$BIN/kube-apiserver"
  log "building kube-controller-manager"
  GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$BIN/kube-controller-manager.tmp" k8s.io/kubernetes/cmd/kube-controller-manager
  mv "$BIN/kube-controller-manager.tmp" "$BIN/kube-controller-manager"
)

# --- etcd ----------------------------------------------------------------------------------
edir="$OUT/src/etcd"
mkdir -p "$edir"
cat >"$edir/go.mod" <<GOMOD
module aio.local/etcd

go 1.25

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
GOMOD
cat >"$edir/main.go" <<'GO'
// A thin main around etcd's own entry point; the root etcd module cannot be `go install`ed
// because it carries replace directives.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
(
  cd "$edir"
  log "building etcd $ETCD_VERSION"
  GOFLAGS=-mod=mod go mod tidy >&2
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN/etcd.tmp" .
  mv "$BIN/etcd.tmp" "$BIN/etcd"
)
log "built into $BIN"
echo "$BIN"
