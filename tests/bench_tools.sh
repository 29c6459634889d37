#!/usr/bin/env bash
# The benchmark's own program (tests/bench_rdna2, which scripts/bench runs for
# the README's figures) keeps working: each of its tables, briefly, with the
# fields scripts/bench reads, and its refusals of bad arguments.  Not a speed
# check: the figures are only held to be numbers.
# Usage: bench_tools.sh BENCH_RDNA2
. "$(dirname "$0")/lib.sh"
B=$1
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

# fields FILE PREFIX KEY...: every line starting with PREFIX has every KEY=NUMBER (or KEY=-); prints the count.
fields() {
    python3 - "$@" <<'PY'
import re, sys
path, prefix, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
n = 0
for line in open(path):
    if not line.startswith(prefix):
        continue
    f = dict(x.split("=", 1) for x in line.split() if "=" in x)
    for k in keys:
        if k not in f or not re.fullmatch(r"-|[0-9.]+(e[+-]?[0-9]+)?", f[k]):
            sys.exit(f"{line.strip()}: {k} missing or not a number")
    n += 1
print(n)
PY
}

# The main table: the host figures and the device's, for an RDNA 2 op and a Maxwell one.
expect_status 0 "main table" "$B" --seconds 0.02 rdna2.v_fma_f32 maxwell.xmad
n=$(fields "$tmp/cli.out" "op=" tuples fast batch exact hw pipeline device hw_vector device_plain device_awake) &&
    [ "$n" = 2 ] && ok ||
    bad "main table: $n lines with every field"
# same=1 only where a pipeline was timed (without one the line says "-", nothing compared).
expect_in "$tmp/cli.out" "op=rdna2.v_fma_f32 .*pipeline=[0-9][^ ]* .*same=1" "the pipeline's passes the same"
# The pipeline is timed in rounds, the ops in turn (a slow spell of the machine takes a share of each
# op's passes, not one op's window whole): the line that says so names both ops.
python3 - "$tmp/cli.out" <<'PY' && ok || bad "the pipeline's rounds line"
import re, sys
m = [re.match(r"# pipeline: \d+ rounds of .* the (\d+) ops in turn", l) for l in open(sys.argv[1])]
m = [x for x in m if x]
assert len(m) == 1 and m[0].group(1) == "2", m
PY
# The figures each op must have measured (the fields check lets any be "-"): none missing here.
expect_in "$tmp/cli.out" "op=maxwell.xmad .*fast=[0-9].*batch=[0-9].*exact=[0-9].*hw=[0-9].*pipeline=[0-9].*device=[0-9]" \
    "the main table measured every figure"
# The device figure is the higher of its two readings, the cores as they are and kept awake (tests/awake.h).
# (device_awake is "-" where the spinners could not start: then device is device_plain.)
python3 - "$tmp/cli.out" <<'PY' && ok || bad "device is not the higher of device_plain and device_awake"
import sys
for line in open(sys.argv[1]):
    if line.startswith("op="):
        f = dict(x.split("=", 1) for x in line.split())
        readings = [float(f[k]) for k in ("device_plain", "device_awake") if f[k] != "-"]
        assert readings and float(f["device"]) == max(readings), line
PY

# The device figure alone (scripts/bench reads it in a fresh process): the host figures "-".
expect_status 0 "--device-only" "$B" --device-only rdna2.v_fma_f16
expect_in "$tmp/cli.out" "op=rdna2.v_fma_f16 .*fast=- batch=- exact=- hw=- pipeline=- device=[0-9]" \
    "--device-only: the device figure alone"

# A thread's wake-up on another core, the cores as they are and kept awake: percentiles in order.
# It needs two cores: with one it must say so (exit 3).
if [ "$(nproc)" -lt 2 ]; then
    expect_status 3 "--wake-latency on one core" "$B" --wake-latency
    expect_in "$tmp/cli.err" "needs two cores" "--wake-latency on one core says why"
else
    expect_status 0 "--wake-latency" "$B" --wake-latency
    n=$(fields "$tmp/cli.out" "wake " p50_us p90_us p99_us awake_p50_us awake_p90_us awake_p99_us) &&
        [ "$n" = 1 ] && ok || bad "--wake-latency: $n lines with every field"
    python3 - "$tmp/cli.out" <<'PY' && ok || bad "--wake-latency: percentiles out of order"
import sys
f = dict(x.split("=", 1) for x in open(sys.argv[1]).read().split() if "=" in x)
for pre in ("", "awake_"):
    assert 0 < float(f[pre + "p50_us"]) <= float(f[pre + "p90_us"]) <= float(f[pre + "p99_us"]), f
PY
fi
expect_status 2 "--wake-latency with another table" "$B" --wake-latency --device-only

# Where a case's time goes, class by class.
expect_status 0 "--per-class" "$B" --per-class --no-device --seconds 0.01 rdna2.v_fma_f32
n=$(fields "$tmp/cli.out" "class " construct_ns verdict_ns attempts) && [ "$n" = 8 ] && ok ||
    bad "--per-class: $n class lines, want 8"

# The campaigns' block path, stage by stage: all of v_fma_f32's classes together, then each of its eight.
expect_status 0 "--stages" "$B" --stages --no-device rdna2.v_fma_f32
# (rest_ns, the whole less the stages timed apart, may come out a little below zero: checked below.)
n=$(fields "$tmp/cli.out" "stages " seed_ns construct_ns verdict_ns whole_ns) && [ "$n" = 9 ] && ok ||
    bad "--stages: $n stage lines, want 9"
expect_in "$tmp/cli.out" "stages op=rdna2.v_fma_f32 class=all " "--stages: the classes together first"
# Each stage timed something: a design and a verdict take more than a nanosecond a case, and the
# whole, which makes both, more than either.
python3 - "$tmp/cli.out" <<'PY' && ok || bad "--stages: a stage that timed nothing"
import sys
for line in open(sys.argv[1]):
    if line.startswith("stages "):
        f = {k: float(v) for k, v in (x.split("=", 1) for x in line.split()[3:])}  # past op and class
        assert f["construct_ns"] > 1 and f["verdict_ns"] > 1, line
        assert f["whole_ns"] > max(f["construct_ns"], f["verdict_ns"]), line
        assert "rest_ns" in f, line
PY

# A campaign's blocks: each block's instance and cost.
expect_status 0 "--per-block" "$B" --per-block 3 --no-device rdna2.v_fmaak_f32
n=$(fields "$tmp/cli.out" "block " block ns) && [ "$n" = 3 ] && ok || bad "--per-block 3: $n block lines"
expect_in "$tmp/cli.out" "block=2 .*ctrl=k=0x" "--per-block names each block's K"

# The schedule's rows: an op with a schedule times the rows asked for, an op without one says so.
expect_status 0 "--rows" "$B" --rows 2 rdna2.v_fma_f32 rdna2.v_fmaak_f32
n=$(fields "$tmp/cli.out" "rows op=rdna2.v_fma_f32" rows timed module_ms create_ms first_ms second_ms) && [ "$n" = 1 ] &&
    ok || bad "--rows: the v_fma_f32 line ($n)"
expect_in "$tmp/cli.out" "rows op=rdna2.v_fma_f32 rows=64 timed=2 " "--rows 2: 2 of v_fma_f32's 64 rows timed"
expect_in "$tmp/cli.out" "rows op=rdna2.v_fmaak_f32 rows=0$" "--rows: an op with no schedule"

# Bad arguments: exit 2 and a message.
expect_status 2 "--rows 0" "$B" --rows 0 rdna2.v_fma_f32
expect_in "$tmp/cli.err" "want 1 to" "--rows 0 says the range"
expect_status 2 "--rows without the device" "$B" --rows 2 --no-device rdna2.v_fma_f32
expect_status 2 "two tables at once" "$B" --per-class --rows 2 rdna2.v_fma_f32
expect_status 2 "--stages with another table" "$B" --stages --per-class --no-device rdna2.v_fma_f32
expect_status 2 "--device-only without the device" "$B" --device-only --no-device rdna2.v_fma_f32
expect_status 2 "--per-block 0" "$B" --per-block 0 rdna2.v_fma_f32
expect_status 2 "no such op" "$B" --no-device no.such.op

finish bench-tools
