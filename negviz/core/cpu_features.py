"""The CPU features that decide an INT8 (ONNX Runtime) run's arithmetic, for its provenance.

ONNX Runtime's dynamically quantized matmuls (MLAS's QGEMM) pick their kernel by the x86 features
present: SSE4.1, AVX2 (whose VPMADDUBSW saturates pairs of u8 x s8 products to 16 bits), AVX-VNNI,
AVX-512 core (F/BW/DQ/VL), AVX-512 VNNI (VPDPBUSD, no saturation) or AMX; the float parts around
them (quantizing activations, layer norms) are vectorised per ISA too. The same export scores
differently on another CPU: the shipped DEMETR run of bge-small INT8 moved by up to 0.0085 cosine
and 11 of 3,000 verdicts on an AVX-512 VNNI machine. So an INT8 run records the CPU's model name
and which of these features it has (runner.scored_record), and its device is shown with them.
"""

from __future__ import annotations

import platform
from pathlib import Path
from typing import Any, Mapping

# /proc/cpuinfo's names of the features MLAS's INT8 kernels and their float neighbours dispatch on.
INT8_FEATURES = (
    "sse4_1",
    "avx2",
    "fma",
    "avx_vnni",
    "avx512f",
    "avx512bw",
    "avx512dq",
    "avx512vl",
    "avx512_vnni",
    "amx_tile",
    "amx_int8",
)
SUMMARY_KEY = "cpu"  # where a run's summary keeps them


def int8_cpu(cpuinfo: str | None = None) -> dict[str, Any]:
    """{"model": the CPU's model name, "features": those of INT8_FEATURES it has, in that order},
    read from /proc/cpuinfo (``cpuinfo``: its text, for a test); off Linux, the machine type
    only and features None (not known, rather than none)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return {"model": platform.processor() or platform.machine(), "features": None}
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        fields.setdefault(name.strip(), value.strip())
    flags = set(fields.get("flags", "").split())
    model = fields.get("model name") or platform.machine()
    return {"model": model, "features": [f for f in INT8_FEATURES if f in flags]}


def device_label(device: str | None, summary: Mapping[str, Any] | None) -> str:
    """A run's device as shown: for an INT8 run on a CPU, with the features that decided its
    arithmetic ("cpu (AMD EPYC; avx2 avx512f avx512_vnni)")."""
    cpu = (summary or {}).get(SUMMARY_KEY)
    text = str(device) if device is not None else ""
    if not isinstance(cpu, Mapping):
        return text
    features = cpu.get("features")
    listed = " ".join(map(str, features)) if features else ("features not known" if features is None else "none")
    return f"{text} ({str(cpu.get('model') or '?')[:60]}; {listed})"
