#!/bin/bash
# One session on a lent GPU (see benchmarks/README.md, "GPU"): the GPU path checked against the
# CPU (bench_gpu.py), then the transfer runs of issue 35 that a CPU cannot do in a session:
#   - the NevIR-split fine-tune of all-MiniLM-L6-v2 to its final (4th) epoch, the shipped epoch-1
#     recipe run to the end;
#   - its mirror, the same recipe trained on the ExcluIR sample (--train excluir-split);
#   - both final checkpoints evaluated on the other benchmarks (fp32, the CUDA default), runs exported.
# Needs the pinned MiniLM weights installed and python3 with negviz importable. Writes to $OUT.
set -u
OUT=${OUT:-/tmp/gpu_out}
S=$OUT/s
mkdir -p "$S/runs"
ROOTDIR=${ROOTDIR:-/root} # checkpoints, store and cache of the session
export HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1 NEGVIZ_DB_URL=sqlite:///$ROOTDIR/gpu.sqlite NEGVIZ_CACHE_DIR=$ROOTDIR/cache
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD # negviz from this checkout, also from the models folder
PY=${PY:-python3}
case $PY in /*) ;; */*) PY=$PWD/$PY ;; esac # a relative path still works from the models folder
DEVICE=${DEVICE:-cuda}
# DRY=1: a few items each, on any device (checks this script, not the models)
DRY_FT=() DRY_EVAL=() EPOCHS=4
[ "${DRY:-0}" = 1 ] && DRY_FT=(--limit-train 16 --limit-heldout 10 --demetr-sample 5 --general 3) DRY_EVAL=(--limit 5) EPOCHS=1
step() { echo "[$(date +%T)] $*" | tee -a "$S/steps.log"; }
finish() { step "done"; tar -C "$OUT" -czf "$OUT/session.tar.gz" s; }
trap finish EXIT

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$S/nvidia.txt" 2>&1
nproc >"$S/nproc.txt"
step "1. GPU path check"
[ "${DRY:-0}" = 1 ] && check=(--limit 10) || check=()
timeout 170 $PY benchmarks/bench_gpu.py --out "$S/gpu_check.json" "${check[@]}" >"$S/gpu_check.log" 2>&1
step "   rc=$?"

# The shipped NevIR-split recipe (data/runs/*__minilm-nevir-split-epoch1: its epoch 1 on the CPU).
FT=(--model all-MiniLM-L6-v2 --family bi-encoder --heldout-fraction 0.3 --epochs $EPOCHS --lr 0.0001
  --batch-size 8 --warmup-ratio 0.1 --scale 20 --seed 0 --limit-train 400 --train-kind pairs
  --train-layers 0 --demetr-sample 200 --lora-rank 0 --general 100 --save-dir $ROOTDIR/ck --keep final
  --device "$DEVICE" --force --json --quiet --export "$S/runs" "${DRY_FT[@]}")
for src in nevir excluir; do
  transfer=200
  [ $src = excluir ] && transfer=0 # the ExcluIR-trained model is measured on its held-out queries
  step "2. fine-tune --train $src-split"
  timeout 150 $PY -m negviz finetune "${FT[@]}" --train $src-split --transfer $transfer \
    >"$S/ft_$src.json" 2>"$S/ft_$src.err"
  step "   rc=$?"
  ckpt=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" "$S/ft_$src.json")
  rm -rf "$ROOTDIR/models/minilm-$src-split" && mkdir -p $ROOTDIR/models && cp -r "$ckpt" "$ROOTDIR/models/minilm-$src-split"
done

evaluate() { # model folder, stem, eval args...
  local model=$1 stem=$2
  shift 2
  step "3. eval $stem $(basename "$model")"
  # run from the models folder: the run is named by the folder (minilm-nevir-split), not its path
  res=$(cd "$(dirname "$model")" && timeout 120 $PY -m negviz eval --model "$(basename "$model")" "$@" --json \
    --quiet --force --device "$DEVICE" "${DRY_EVAL[@]}" 2>>"$S/eval.err")
  id=$(echo "$res" | $PY -c "import json,sys; print(json.load(sys.stdin)['run_id'])") &&
    $PY -m negviz export-run "$id" "$S/runs/${stem}__$(basename "$model").parquet" >>"$S/eval.log" 2>&1
  step "   rc=$?"
}
N=$ROOTDIR/models/minilm-nevir-split
E=$ROOTDIR/models/minilm-excluir-split
evaluate $N excluir --dataset excluir
evaluate $E nevir --dataset nevir
evaluate $N demetr --dataset demetr
evaluate $E demetr --dataset demetr
evaluate $N cannot-heldout --dataset cannot --split heldout
evaluate $E cannot-heldout --dataset cannot --split heldout
for m in nevir excluir; do cp "$ROOTDIR/models/minilm-$m-split/negviz_finetune.json" "$S/provenance_$m.json"; done
