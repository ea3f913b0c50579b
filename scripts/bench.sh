#!/usr/bin/env bash
# Runs the CPU benchmarks side by side with the peers on this machine and writes raw outputs to
# build/bench-out/: solvers vs LIBSVM/LIBLINEAR, Gram/SMO primitives, and l2-AROM on colon vs the
# same loop around scikit-learn (one core and all cores). bench/RESULTS.md records them.
#   SETS=sonar,ionosphere,a9a,ijcnn1 MAX_TRAIN=0 SPLITS=500 scripts/bench.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$build/bench-out
mkdir -p "$out" "$build/bench-data"
"$root/scripts/setup.sh"
BUILD_DIR=$build "$root/scripts/build.sh" -DZERONORM_BUILD_BENCH=ON >/dev/null
python3 -c "import sklearn, joblib" 2>/dev/null || python3 -m pip install -q scikit-learn joblib

# The data folder for the peers: small sets as they are, throughput sets unpacked.
for s in sonar ionosphere colon; do ln -sfn "$root/data/$s" "$build/bench-data/$s"; done
for s in a9a ijcnn1; do
  mkdir -p "$build/bench-data/$s"
  for f in "$root/data/$s"/*.csv.xz; do
    t="$build/bench-data/$s/$(basename "${f%.xz}")"
    [ -f "$t" ] || xz -dc "$f" > "$t"
  done
done

{ echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"; echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)";
  echo "cores: $(nproc)"; echo "commit: $(git -C "$root" rev-parse --short HEAD)"; } > "$out/machine.txt"

"$build/bench/compare_peers" "$build/bench-data" --json "$out/peers.json" \
  --sets "${SETS:-sonar,ionosphere,a9a,ijcnn1}" --max-train "${MAX_TRAIN:-0}" | tee "$out/peers.md"
"$build/bench/bench_primitives" --benchmark_out="$out/primitives.json" --benchmark_out_format=json \
  | tee "$out/primitives.txt"

# W1: colon, l2-AROM path and a linear SVM with C chosen by inner 5-fold CV, against scikit-learn.
BUILD_DIR=$build SPLITS=${SPLITS:-500} "$root/scripts/bench_w1.sh"

# Weston 2003 Table 1, l2-AROM timing against the scikit-learn loop (one process each).
"$build/bench/repro_table1" --methods l2-arom --time 2>&1 | tee "$out/table1_zeronorm.txt"
python3 "$root/bench/peers/sklearn_table1.py" --n-jobs 1 | tee "$out/table1_sklearn.txt"

# L0- vs L2-SVM training time per fit (Huang et al. 2008 Table 1 protocol, Ripley, pima).
OPENBLAS_NUM_THREADS=1 "$build/bench/repro_huang2008" --speed --reps 3 --data-dir "$root/data" \
  | tee "$out/huang2008_speed.md"
