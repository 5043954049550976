#!/bin/sh
# streamlab train's flags: each bad value exits 2 with a precise message
# (checked by a substring), --help exits 0, and a missing or malformed data
# directory exits 2 naming the file. Runs without the data set and without
# a GPU. Usage: test_train_cli.sh STREAMLAB OUTDIR
set -u
SL=$1
OUT=$2
mkdir -p "$OUT"
fails=0
# expect CODE SUBSTRING ARGS...
expect() {
    code=$1; want=$2; shift 2
    "$SL" train "$@" >"$OUT/stdout" 2>"$OUT/stderr"
    rc=$?
    if [ "$rc" != "$code" ] || ! grep -qF -- "$want" "$OUT/stderr" "$OUT/stdout"; then
        echo "FAILED: train $* -> exit $rc (want $code), output lacks '$want':"; cat "$OUT/stderr"
        fails=$((fails + 1))
    fi
}
expect 0 "usage: streamlab train" --help
expect 2 "--batch wants an integer in 1..65536, not '0'" --batch 0
expect 2 "--batch wants an integer in 1..65536, not 'x'" --batch x
expect 2 "--epochs wants an integer in 1..100000, not '-1'" --epochs -1
expect 2 "--lr wants a number in (0, 1000], not '0'" --lr 0
expect 2 "--lr wants a number in (0, 1000], not 'nan'" --lr nan
expect 2 "--layers wants 2 to 9 widths" --layers 784
expect 2 "--layers wants 2 to 9 widths" --layers 784-0-10
expect 2 "--layers wants 2 to 9 widths" --layers 1-2-3-4-5-6-7-8-9-10
expect 2 "--fusion wants 'none' or 'fused', not 'some'" --fusion some
expect 2 "--gemm wants 'sl' or 'cublas', not 'mkl'" --gemm mkl
expect 2 "--backend wants 'cuda' or 'cpu', not 'tpu'" --backend tpu
expect 2 "--limit wants a sample count >= 1, not '0'" --limit 0
expect 2 "--seed wants a non-negative integer, not '-3'" --seed -3
expect 2 "unknown option '--bogus'" --bogus
expect 2 "option '--batch' needs a value" --batch
expect 2 "unexpected argument 'extra'" extra
expect 2 "--graph needs the CUDA backend" --backend cpu --graph
expect 2 "--gemm cublas needs the CUDA backend" --backend cpu --gemm cublas
expect 2 "--breakdown needs the CUDA backend" --backend cpu --breakdown
expect 2 "--lr-decay wants 'none' or 'linear', not 'cosine'" --lr-decay cosine
expect 2 "$OUT/nodata/train-images-idx3-ubyte.gz: No such file or directory" --data "$OUT/nodata" --backend cpu
mkdir -p "$OUT/bad"
printf 'not an idx file' | gzip >"$OUT/bad/train-images-idx3-ubyte.gz"
expect 2 "bad magic number 0x6e6f7420: not an IDX file" --data "$OUT/bad" --backend cpu
expect 2 "cannot write $OUT/no/such/dir/r.json" --json "$OUT/no/such/dir/r.json" --backend cpu
# the JSON record never replaces what is not a regular file of ours
expect 2 "cannot write $OUT/bad" --json "$OUT/bad" --backend cpu
printf 'precious, not ours\n' >"$OUT/foreign.json"
expect 2 "cannot write $OUT/foreign.json" --json "$OUT/foreign.json" --backend cpu
if [ "$(cat "$OUT/foreign.json")" != "precious, not ours" ]; then
    echo "FAILED: --json changed a file that is not streamlab's"
    fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "test_train_cli: all checks passed"
[ $fails = 0 ]
