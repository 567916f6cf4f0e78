"""negviz.core.cpu_features: the CPU model and the INT8-deciding features read from /proc/cpuinfo's
text, and a run's device shown with them. (Recorded by a real INT8 run: tests/evaluation/test_runner.py.)"""

from __future__ import annotations

from negviz.core.cpu_features import INT8_FEATURES, device_label, int8_cpu

CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu sse4_1 sse4_2 avx avx2 fma avx512f avx512bw avx512vl avx512_vnni amx_tile amx_int8 avx512_bf16

processor\t: 1
model name\t: Intel(R) Xeon(R) Platinum 8480+
flags\t\t: fpu sse4_1
"""


def test_the_features_are_those_of_the_first_cpu_in_their_dispatch_order():
    cpu = int8_cpu(CPUINFO)
    assert cpu["model"] == "Intel(R) Xeon(R) Platinum 8480+"
    assert cpu["features"] == [
        "sse4_1",
        "avx2",
        "fma",
        "avx512f",
        "avx512bw",
        "avx512vl",
        "avx512_vnni",
        "amx_tile",
        "amx_int8",
    ]
    assert int8_cpu("model name : Old\nflags : fpu sse2\n")["features"] == []  # none, which is not unknown


def test_this_machines_features_are_read():
    cpu = int8_cpu()
    assert cpu["model"] and set(cpu["features"]) <= set(INT8_FEATURES)


def test_the_device_is_shown_with_the_features_of_an_int8_run_only():
    summary = {"cpu": {"model": "AMD EPYC", "features": ["avx2", "avx512_vnni"]}}
    assert device_label("cpu", summary) == "cpu (AMD EPYC; avx2 avx512_vnni)"
    assert device_label("cpu", {"cpu": {"model": "arm64", "features": None}}) == "cpu (arm64; features not known)"
    assert device_label("cpu", {"metric": "x"}) == "cpu" and device_label("cuda", None) == "cuda"
    assert device_label("cpu", {"cpu": {"model": "X" * 500, "features": []}}) == f"cpu ({'X' * 60}; none)"
