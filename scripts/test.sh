#!/usr/bin/env bash
# Installs, builds and runs the whole test suite: a Release build (with the CUDA backend when
# nvcc is present; GPU tests skip without a device), then an ASan/UBSan build of the CPU path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
jobs=${JOBS:-$(nproc)}

BUILD_DIR=$root/build "$root/scripts/build.sh" -DZERONORM_BUILD_BENCH=ON
(cd "$root/build" && ctest --output-on-failure -j "$jobs" --timeout 900)

BUILD_DIR=$root/build-sanitize "$root/scripts/build.sh" -DZERONORM_CUDA=OFF -DZERONORM_SANITIZE=ON \
  -DZERONORM_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
(cd "$root/build-sanitize" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$jobs" -L cpu -LE install --timeout 1800)
echo "zeronorm: all tests passed"
