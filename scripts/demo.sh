#!/usr/bin/env bash
# The main job on a fresh machine: install, build, then select 20 genes of the colon cancer
# data (Alon et al. 1999; log10 + standardisation) by l2-AROM and report the test error of the
# retrained SVM over stratified 50/12 splits.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
# Only the tool is built; the build options stay as they are, so build/ stays the tree that
# scripts/test.sh configures and tests.
BUILD_DIR=${BUILD_DIR:-$root/build} TARGETS=zeronorm_cli "$root/scripts/build.sh" >/dev/null
zn="${BUILD_DIR:-$root/build}/src/cli/zeronorm"
data="$root/data/colon/colon.csv"
echo "== l2-AROM on colon cancer (62 samples x 2000 genes), 20 genes, ridge 1e-3 =="
"$zn" select "$data" --method l2-arom --features 20 --ridge 1e-3 --final-C inf --final-ridge 1e-3 --log10 --standardize
echo
echo "== the same path evaluated on 50 stratified 50/12 train/test splits =="
"$zn" cv "$data" --method l2-arom --features 2000,1000,500,250,100,50,20 --splits 50 \
      --train-size 50 --ridge 1e-3 --final-C inf --final-ridge 1e-3 --log10 --standardize --seed 1 --quiet
