#!/usr/bin/env bash
# Makes .tools/node/bin/node a Node.js >= 22: the system one when new enough, otherwise Node 24
# installed from the npm registry's `node-linux-<arch>` package (it ships the official binary).
# Prints the bin directory to put first on PATH.
set -euo pipefail
NODE_VERSION="${AIO_NODE_VERSION:-24.9.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/.tools/node"
bin="$tools/bin"
mkdir -p "$bin"

major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [[ -x "$bin/node" && $(major "$bin/node") -ge 22 ]]; then echo "$bin"; exit 0; fi

sys_node="$(command -v node || true)"
if [[ -n "$sys_node" && $(major "$sys_node") -ge 22 ]]; then
  ln -sf "$sys_node" "$bin/node"
else
  case "$(uname -m)" in
    x86_64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; ppc64le) arch=ppc64 ;; s390x) arch=s390x ;;
    *) echo "unsupported architecture $(uname -m)" >&2; exit 1 ;;
  esac
  pkg="node-linux-$arch@$NODE_VERSION"
  echo "[setup-node] system node is $(${sys_node:-false} --version 2>/dev/null || echo missing); installing $pkg" >&2
  npm install --no-save --no-package-lock --ignore-scripts --prefix "$tools/pkg" "$pkg" >&2
  ln -sf "$tools/pkg/node_modules/node-linux-$arch/bin/node" "$bin/node"
fi
"$bin/node" --version >&2
echo "$bin"
