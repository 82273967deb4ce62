#!/usr/bin/env bash
# Installs the Debian packages the tests need (xorriso builds the small test ISO images).
set -euo pipefail
need=()
command -v xorriso >/dev/null || need+=(xorriso)
[[ ${#need[@]} -eq 0 ]] && exit 0
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
echo "[system-deps] installing ${need[*]}" >&2
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2
