#!/usr/bin/env bash
# Installs what zeronorm needs to build and test from Debian's packages (run as root, or with
# sudo available). Safe to run again: packages already present are skipped.
set -euo pipefail

packages=(
  build-essential cmake pkg-config xz-utils python3
  libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
  coinor-libclp-dev liblbfgspp-dev
  libsvm-dev liblinear-dev libopenblas-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "zeronorm setup: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
