#!/usr/bin/env bash
# Installs, builds and runs the whole test suite: a Release build (with the CUDA backend when
# nvcc is present; GPU tests skip without a device) that also builds the Python module
# (zeronorm._core, for setup.sh's virtual environment) and runs its pytest suite against the
# build tree, then an ASan/UBSan build of the CPU path.
# Every option the suite relies on is set here, so a cache left by another script (demo.sh,
# bench.sh) cannot switch tests off.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
jobs=${JOBS:-$(nproc)}
suite=(-DZERONORM_BUILD_TESTS=ON -DZERONORM_BUILD_CLI=ON)
python=${ZERONORM_VENV:-$root/.venv}/bin/python

# check_registered BUILD_DIR: CTest must hold one test per GoogleTest test of the binary (a
# failed discovery registers a placeholder) and the scripted tests (no dot in their names).
check_registered() {
  local names gtests registered scripted
  gtests=$("$1/tests/zeronorm_tests" --gtest_list_tests | grep -c '^  ' || true)
  names=$(ctest --test-dir "$1" -N | sed -n 's/^ *Test *#[0-9]*: //p')
  registered=$(grep -c '\.' <<< "$names" || true)
  scripted=$(grep -vc -e '\.' -e '^$' <<< "$names" || true)
  if (( gtests < 100 || registered != gtests || scripted < 3 )); then
    echo "zeronorm: $1: CTest registers $registered of $gtests GoogleTest tests and $scripted scripted tests (expected >= 3)" >&2
    exit 1
  fi
  echo "zeronorm: $1: $registered GoogleTest tests and $scripted scripted tests registered"
}

BUILD_DIR=$root/build "$root/scripts/build.sh" "${suite[@]}" -DZERONORM_BUILD_BENCH=ON \
  -DZERONORM_SANITIZE=OFF -DZERONORM_CUDA=AUTO -DZERONORM_PYTHON=ON -DPython_EXECUTABLE="$python"
check_registered "$root/build"
(cd "$root/build" && ctest --output-on-failure --no-tests=error -j "$jobs" --timeout 900)

# -O1 -g1 (line tables for the reports' stack traces): this build compiled 2.5x faster than at
# -O2 -g, and it was over half of the suite's time.
BUILD_DIR=$root/build-sanitize "$root/scripts/build.sh" "${suite[@]}" -DZERONORM_CUDA=OFF \
  -DZERONORM_SANITIZE=ON -DZERONORM_BUILD_BENCH=OFF -DZERONORM_PYTHON=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
check_registered "$root/build-sanitize"
(cd "$root/build-sanitize" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure --no-tests=error -j "$jobs" -L cpu -LE install --timeout 1800)
echo "zeronorm: all tests passed"
