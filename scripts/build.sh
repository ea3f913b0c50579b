#!/usr/bin/env bash
# Configures and builds zeronorm into BUILD_DIR (default: build). Extra arguments go to cmake;
# TARGETS (space-separated) builds only those targets.
# The CUDA backend is built when nvcc is found (ZERONORM_CUDA=AUTO).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DZERONORM_WERROR=ON "$@" >/dev/null
# shellcheck disable=SC2086
cmake --build "$build_dir" -j "$jobs" ${TARGETS:+--target $TARGETS}
