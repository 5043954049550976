#!/bin/sh
# The accuracy bar on a subset: streamlab train on the first 6000
# Fashion-MNIST training images, 3 epochs at batch 64 and a constant lr
# 0.02; the test accuracy on the full 10000 test images must reach BAR
# (0.72).
# Measured on the CPU backend (2 cores, docs/training.md, "Accuracy"):
# 0.749, 0.769 and 0.747 with seeds 1, 2, 3. Chance is 0.10, so the bar
# fails a model that does not learn, a wrong gradient sign or scale, or a
# broken loss. (At lr 0.1 the final iterate's test accuracy swings by
# +-0.06 from epoch to epoch on so small a subset: too noisy for a bar.)
# About half a minute on two cores. Exit 77 (skip) when the data set is
# not installed.
# Usage: test_train_accuracy.sh STREAMLAB OUTDIR cpu|cuda
set -u
SL=$1
OUT=$2
BACKEND=$3
BAR=0.72
DATA=${SL_FASHION_MNIST:-/usr/share/datasets/fashion-mnist}
if [ ! -f "$DATA/train-images-idx3-ubyte.gz" ]; then
    echo "test_train_accuracy: no Fashion-MNIST at $DATA (apt-get install dataset-fashion-mnist): skipped"
    exit 77
fi
mkdir -p "$OUT"
rm -f "$OUT/r.json"
"$SL" train --data "$DATA" --backend "$BACKEND" --limit 6000 --epochs 3 --batch 64 --lr 0.02 --lr-decay none --json "$OUT/r.json"
rc=$?
if [ $rc = 2 ] && [ "$BACKEND" = cuda ]; then
    echo "test_train_accuracy: no usable GPU: skipped"
    exit 77
fi
[ $rc = 0 ] || { echo "FAILED: streamlab train exited $rc"; exit 1; }
grep -q '"schema":[[:space:]]*"streamlab.train/1"' "$OUT/r.json" && grep -q '"complete":[[:space:]]*true' "$OUT/r.json" ||
    { echo "FAILED: $OUT/r.json lacks the schema or \"complete\": true"; exit 1; }
acc=$(sed -n 's/.*"test_acc":[[:space:]]*\([0-9.]*\).*/\1/p' "$OUT/r.json" | tail -1)
echo "test accuracy $acc (bar $BAR)"
awk -v a="$acc" -v b="$BAR" 'BEGIN { exit !(a + 0 >= b + 0) }' || { echo "FAILED: test accuracy $acc < $BAR"; exit 1; }
echo "test_train_accuracy: passed"
