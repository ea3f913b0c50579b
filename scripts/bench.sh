#!/usr/bin/env bash
# Runs the CPU benchmarks side by side with the peers on this machine and writes raw outputs to
# build/bench-out/: solvers vs LIBSVM/LIBLINEAR, Gram/SMO primitives, and l2-AROM on colon vs the
# same loop around scikit-learn (one core and all cores). bench/RESULTS.md records them.
#   SETS=sonar,ionosphere,a9a,ijcnn1 MAX_TRAIN=0 SPLITS=100 scripts/bench.sh
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

splits=${SPLITS:-100}
features=2000,1000,500,250,100,50,20
args=(--features $features --splits "$splits" --train-size 50 --ridge 1e-3 --log10 --standardize)
# warm-up (page cache), then the timed run
"$build/src/cli/zeronorm" cv "$root/data/colon/colon.csv" --method l2-arom "${args[@]}" --seed 1 \
  --json --quiet --backend cpu > /dev/null
"$build/src/cli/zeronorm" cv "$root/data/colon/colon.csv" --method l2-arom "${args[@]}" --seed 1 \
  --json --quiet > "$out/arom_zeronorm_cpu.json"
python3 "$root/bench/peers/sklearn_arom.py" "$root/data/colon/colon.csv" "${args[@]}" --n-jobs 1 \
  > "$out/arom_sklearn_1core.json"
python3 "$root/bench/peers/sklearn_arom.py" "$root/data/colon/colon.csv" "${args[@]}" --n-jobs -1 \
  > "$out/arom_sklearn_allcores.json"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
z = json.load(open(f"{out}/arom_zeronorm_cpu.json"))
s1 = json.load(open(f"{out}/arom_sklearn_1core.json"))
sa = json.load(open(f"{out}/arom_sklearn_allcores.json"))
print(f"l2-AROM colon, {z['splits']} splits: zeronorm cpu {z['seconds']:.3f} s, "
      f"sklearn 1 core {s1['seconds']:.2f} s ({s1['seconds']/z['seconds']:.0f}x), "
      f"sklearn all cores {sa['seconds']:.2f} s ({sa['seconds']/z['seconds']:.0f}x)")
for a, b in zip(z["results"], s1["results"]):
    print(f"  {a['features']:5d}  zeronorm {100*a['mean_error']:.2f} +- {100*a['std_error']:.2f}   "
          f"sklearn {100*b['mean_error']:.2f} +- {100*b['std_error']:.2f}")
PY
