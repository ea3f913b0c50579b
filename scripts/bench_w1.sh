#!/usr/bin/env bash
# Workload W1 (colon 62 x 2000, SPLITS stratified random 50/12 splits, log10 + standardisation
# fitted per split), end to end, side by side in one run:
#   (1) the l2-AROM path 2000..20 genes (ridge 1e-3), (2) a linear SVM with C chosen from
#   5 values by inner 5-fold CV and retrained;
# zeronorm's CPU path (all cores, and one thread), its CUDA path when a device is present, and
# the same loops around scikit-learn (bench/peers) on one core and with joblib on all cores.
# Raw JSON goes to BUILD_DIR/bench-out/w1_*.json, the summary to stdout.
#   BUILD_DIR=build SPLITS=500 scripts/bench_w1.sh     (expects a built zeronorm CLI)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$build/bench-out
mkdir -p "$out"
zn=$build/src/cli/zeronorm
data=$root/data/colon/colon.csv
splits=${SPLITS:-500}
common=(--splits "$splits" --train-size 50 --log10 --standardize --seed 1)
arom=(--method l2-arom --features 2000,1000,500,250,100,50,20 --ridge 1e-3 --final-C inf --final-ridge 1e-3)
grid=(--method svm --kernel linear -C 0.001,0.01,0.1,1,10 --folds 5)

backends=(cpu)
if "$zn" --version | grep -q "cuda: yes" && command -v nvidia-smi >/dev/null &&
   nvidia-smi -L >/dev/null 2>&1; then backends+=(cuda); fi

"$zn" cv "$data" "${arom[@]}" "${common[@]}" --json --quiet > /dev/null  # warm-up
for b in "${backends[@]}"; do
  "$zn" cv "$data" "${arom[@]}" "${common[@]}" --backend "$b" --json --quiet > "$out/w1_arom_$b.json"
  "$zn" cv "$data" "${grid[@]}" "${common[@]}" --backend "$b" --json --quiet > "$out/w1_grid_$b.json"
done
"$zn" cv "$data" "${arom[@]}" "${common[@]}" --threads 1 --json --quiet > "$out/w1_arom_cpu1.json"
"$zn" cv "$data" "${grid[@]}" "${common[@]}" --threads 1 --json --quiet > "$out/w1_grid_cpu1.json"
python3 -c "import sklearn, joblib, threadpoolctl" 2>/dev/null || python3 -m pip install -q scikit-learn joblib
for j in 1 -1; do
  tag=$([ "$j" = 1 ] && echo 1core || echo allcores)
  python3 "$root/bench/peers/sklearn_arom.py" "$data" --features 2000,1000,500,250,100,50,20 \
    --ridge 1e-3 --splits "$splits" --train-size 50 --log10 --standardize --seed 1 --n-jobs "$j" \
    > "$out/w1_arom_sklearn_$tag.json"
  python3 "$root/bench/peers/sklearn_svm_grid.py" "$data" --C 0.001,0.01,0.1,1,10 --folds 5 \
    --splits "$splits" --train-size 50 --log10 --standardize --seed 1 --n-jobs "$j" \
    > "$out/w1_grid_sklearn_$tag.json"
done

python3 - "$out" "$splits" <<'PY'
import json, os, sys
out, splits = sys.argv[1], int(sys.argv[2])
load = lambda n: json.load(open(f"{out}/w1_{n}.json")) if os.path.exists(f"{out}/w1_{n}.json") else None
for part, title in (("arom", "l2-AROM path 2000..20 genes"), ("grid", "linear SVM, C by inner 5-fold CV over 5 values")):
    s1, sa = load(f"{part}_sklearn_1core"), load(f"{part}_sklearn_allcores")
    print(f"W1 {title}, colon, {splits} splits")
    print(f"  {'run':28s} {'seconds':>9s} {'vs sklearn 1 core':>18s} {'vs sklearn all cores':>21s}  errors (%)")
    for name in ("cpu", "cpu1", "cuda", "sklearn_1core", "sklearn_allcores"):
        r = load(f"{part}_{name}")
        if r is None:
            continue
        errs = " ".join(f"{100*x['mean_error']:.1f}" for x in r["results"])
        print(f"  {name:28s} {r['seconds']:9.3f} {s1['seconds']/r['seconds']:17.1f}x {sa['seconds']/r['seconds']:20.1f}x  {errs}")
PY
