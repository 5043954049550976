#!/bin/bash
# bench/train.sh - issue 19 on the device, in one call: build for sm_90
# (the CLI and the training tests only), the training tests (CPU and GPU),
# compute-sanitizer memcheck of the GPU training paths (short runs), then
# the benchmark: streamlab train at batch 16 and 64, fusion none / fused,
# eager / graph, sl_gemm and cuBLAS, CUDA and CPU backends, 10 epochs of
# the accuracy configuration (batch 64, fused, graph), the step's GEMM
# shapes through `streamlab run --op matmul`, the launch probe, and the
# PyTorch peer (bench/torch_mlp.py, eager and CUDA graph) in the same call.
#
#   run(kind="nvidia-h200", carry=[".wt/issue19", ".deps", ".data"],
#       command="cd .wt/issue19 && cp -r ../../.deps ../../.data . && bash bench/train.sh")
#
# Outputs under $OUT: train-out.tgz (every log and JSON); summarise with
# python3 bench/train_report.py DIR (bench/results/h200-train-*.{json,md}).
# STAGES (default "build test memcheck probe bench torch"); EPOCHS (timing
# runs, 3); EXTRA=0 leaves out what a second call need not repeat: the
# matmul memcheck, the step's GEMM shapes, the learning-rate comparison
# and the CPU backend's 10 epochs.
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
FINAL=${OUT:-$PWD/train-out}
W=/tmp/train-out
rm -rf "$W"  # a warm machine keeps the last call's files: none of them may pass for this call's
mkdir -p "$FINAL" "$W"
pack() { tar czf "$FINAL/train-out.tgz" -C "$W" . 2>/dev/null; cp "$W/train.log" "$FINAL/" 2>/dev/null; }
trap pack EXIT
STAGES=${STAGES:-"build test memcheck probe bench torch"}
EPOCHS=${EPOCHS:-3}
EXTRA=${EXTRA:-1}
has() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }
t0=$(date +%s)
exec > >(tee "$W/train.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }

. bench/deps_env.sh   # cJSON, zlib (ZARGS) and Fashion-MNIST (SL_FASHION_MNIST) from what was carried
DATA=$SL_FASHION_MNIST
B=/tmp/train-build
SL=$B/streamlab
T=$B/tests
if has build; then
    stage "device"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
    nproc
    stage "build"
    cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_BUILD_BENCH=OFF $PREFIX_ARGS $ZARGS \
        > "$W/cmake.log" 2>&1 || { tail -30 "$W/cmake.log"; exit 1; }
    cmake --build $B -j 16 --target streamlab_cli test_train_idx test_train_grad test_train_agree test_gpu_matmul > "$W/build.log" 2>&1 \
        || { grep -E "error|Error" "$W/build.log" | head -30; exit 1; }
    nvcc -arch=sm_90 -Xptxas -v -Isrc/train -c src/train/train_cuda.cu -o /tmp/tc.o 2> "$W/ptxas.txt"
    nvcc -arch=sm_90 -O3 -std=c++17 -Xptxas -v --expt-relaxed-constexpr -Iinclude -I$B/include -Isrc/core -Isrc/cuda \
        -Isrc/ops/matmul -Isrc/ops/matmul/cuda -c src/ops/matmul/cuda/09_small.cu -o /tmp/small.o 2>> "$W/ptxas.txt"
    grep -E "spill" "$W/ptxas.txt" | sort | uniq -c
fi
if has test; then
    stage "tests"
    $T/test_train_idx /tmp/idx_out | tail -1
    timeout 150 $T/test_gpu_matmul --quick > "$W/test_gpu_matmul.txt" 2>&1; echo "test_gpu_matmul (every rung, small included, vs fp64): rc $?"
    grep -iE "small|fail" "$W/test_gpu_matmul.txt" | head -20; tail -2 "$W/test_gpu_matmul.txt"
    $T/test_train_grad cpu | tail -1
    $T/test_train_grad cuda > "$W/test_train_grad_cuda.txt" 2>&1; echo "test_train_grad cuda: rc $?"; cat "$W/test_train_grad_cuda.txt"
    $T/test_train_agree > "$W/test_train_agree.txt" 2>&1; echo "test_train_agree: rc $?"; cat "$W/test_train_agree.txt"
    sh tests/test_train_cli.sh $SL /tmp/cli_out | tail -1
    sh tests/test_train_accuracy.sh $SL /tmp/acc_gpu cuda > "$W/test_acc_cuda.txt" 2>&1; echo "accuracy cuda: rc $?"; tail -3 "$W/test_acc_cuda.txt"
    sh tests/test_train_accuracy.sh $SL /tmp/acc_cpu cpu > "$W/test_acc_cpu.txt" 2>&1; echo "accuracy cpu: rc $?"; tail -3 "$W/test_acc_cpu.txt"
fi
if has memcheck; then
    stage "memcheck"
    CS="compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9"
    timeout 60 $CS $T/test_train_grad cuda > "$W/memcheck_grad.txt" 2>&1; echo "memcheck test_train_grad: rc $?"; tail -2 "$W/memcheck_grad.txt"
    if [ "$EXTRA" = 1 ]; then
        timeout 90 $CS $T/test_gpu_matmul --quick > "$W/memcheck_matmul.txt" 2>&1; echo "memcheck test_gpu_matmul --quick: rc $?"; tail -2 "$W/memcheck_matmul.txt"
    fi
    for args in "--fusion fused --graph" "--fusion none" "--fusion fused --gemm cublas --graph"; do
        timeout 90 $CS $SL train --data $DATA --limit 1000 --test-limit 1000 --epochs 2 --batch 64 $args \
            > "$W/memcheck_train.txt" 2>&1; rc=$?
        echo "memcheck train $args: rc $rc"; grep -E "ERROR SUMMARY|epoch   2" "$W/memcheck_train.txt"
    done
fi
if has probe; then
    stage "launch probe"
    $SL probe --only launch --json "$W/launch.profile.json" --md "$W/launch.md" > /dev/null 2>&1; cat "$W/launch.md"
    stage "GEMM shapes of one step (sl_gemm's rung vs cuBLAS)"
    $SL run --op matmul --shape 64x300x784,64x100x300,64x10x100,784x300x64,300x100x64,100x10x64,64x300x100,64x100x10,16x300x784,784x300x16 \
        --variants warptile,small,sl_gemm,cublas --json "$W/gemm_shapes.json" > "$W/gemm_shapes.txt" 2>&1; tail -30 "$W/gemm_shapes.txt"
    $SL run --op transpose --shape 64x784,64x300,64x100,784x300,300x100 --json "$W/transpose_shapes.json" \
        > "$W/transpose_shapes.txt" 2>&1; tail -12 "$W/transpose_shapes.txt"
fi
if has bench && [ "$EXTRA" = 1 ]; then
    stage "GEMM shapes of one step (sl_gemm's rungs vs cuBLAS)"
    $SL run --op matmul --shape 64x300x784,64x100x300,64x10x100,784x300x64,300x100x64,100x10x64,64x300x100,64x100x10,16x300x784,784x300x16 \
        --variants warptile,small,sl_gemm,cublas --json "$W/gemm_shapes.json" > "$W/gemm_shapes.txt" 2>&1; grep -E "x[0-9]+\*? +(small|sl_gemm|cublas) " "$W/gemm_shapes.txt"
fi
if has bench; then
    stage "ours"
    for b in 16 64; do for f in none fused; do for g in eager graph; do
        gf=""; [ $g = graph ] && gf="--graph --breakdown"
        $SL train --data $DATA --batch $b --lr 0.1 --lr-decay none --fusion $f $gf --epochs $EPOCHS --json "$W/ours-cuda-b$b-$f-$g.json" 2>&1 | grep -E "epoch|accuracy|us$|sum"
    done; done; done
    for g in eager graph; do
        gf=""; [ $g = graph ] && gf="--graph --breakdown"
        $SL train --data $DATA --batch 64 --lr 0.1 --lr-decay none --fusion fused --gemm cublas $gf --epochs $EPOCHS --json "$W/ours-cublas-b64-fused-$g.json" 2>&1 | grep -E "epoch|accuracy|us$|sum"
    done
    stage "accuracy: 10 epochs, batch 64, fused, graph: lr 0.1 with linear decay (the default config for the bar), and others"
    $SL train --data $DATA --batch 64 --lr 0.1 --lr-decay linear --fusion fused --graph --epochs 10 --json "$W/ours-cuda-b64-fused-graph-10ep.json" 2>&1 | grep -E "epoch|accuracy"
    [ "$EXTRA" = 1 ] && for cfg in "0.1 none 1" "0.05 none 1" "0.05 linear 1" "0.1 linear 2" "0.1 linear 3"; do
        set -- $cfg
        $SL train --data $DATA --batch 64 --lr $1 --lr-decay $2 --seed $3 --fusion fused --graph --epochs 10 --json "$W/acc-lr$1-$2-seed$3.json" 2>&1 | grep -E "accuracy"
    done
    stage "cpu backend ($(nproc) cores)"
    $SL train --data $DATA --backend cpu --batch 64 --lr 0.1 --lr-decay none --fusion fused --epochs 2 --json "$W/ours-cpu-b64-fused.json" 2>&1 | grep -E "epoch|accuracy"
    $SL train --data $DATA --backend cpu --batch 16 --lr 0.1 --lr-decay none --fusion fused --epochs 1 --json "$W/ours-cpu-b16-fused.json" 2>&1 | grep -E "epoch|accuracy"
    [ "$EXTRA" = 1 ] && $SL train --data $DATA --backend cpu --batch 64 --lr 0.1 --lr-decay linear --fusion fused --epochs 10 --json "$W/ours-cpu-b64-fused-10ep.json" 2>&1 | grep -E "epoch|accuracy"
fi
if has torch; then
    stage "torch peer"
    python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)"
    for b in 16 64; do for mode in eager graph; do
        e=$EPOCHS; [ $mode = eager ] && [ $b = 16 ] && e=2
        python3 bench/torch_mlp.py --data $DATA --batch $b --lr 0.1 --epochs $e --mode $mode --json "$W/torch-b$b-$mode.json" > /dev/null
    done; done
fi
stage "done"
