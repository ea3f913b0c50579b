#!/usr/bin/env bash
# Installs what zeronorm needs to build and test from Debian's packages (run as root, or with
# sudo available), then the Python package's build and test requirements, pinned in
# pyproject.toml, from PyPI into a virtual environment (ZERONORM_VENV, default .venv/ at the
# repository root; scripts/test.sh builds the module for its interpreter). Safe to run again:
# packages already present are skipped.
set -euo pipefail

packages=(
  build-essential cmake pkg-config xz-utils python3 python3-dev python3-venv
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

# Python: the pinned requirements of pyproject.toml (build system, dependencies, test extras).
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${ZERONORM_VENV:-$root/.venv}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
mapfile -t requirements < <("$venv/bin/python" - "$root/pyproject.toml" <<'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    project = tomllib.load(f)
for r in (project["build-system"]["requires"] + project["project"]["dependencies"]
          + project["project"]["optional-dependencies"]["test"]):
    print(r)
PY
)
# Requirements already satisfied are not downloaded again.
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${requirements[@]}"
