#!/usr/bin/env bash
# Partial runs say what did not run (issue 11, item 4): in the exit status
# (5 where nothing else decides), the summary, --json and the nightly JUnit.
# Usage: partial.sh TIEFUZZ SOURCE_ROOT
. "$(dirname "$0")/lib.sh"
T=$1 SRC=$2
mkdir "$tmp/none"  # an empty rule directory: no known divergences

# SIGTERM in the first of three ops that agree (exact lowering): exit 5, the
# two ops that never started marked NOT RUN, --json complete=false.
"$T" run rdna2.v_fma_f32 rdna2.v_mad_f32 rdna2.v_fma_f16 --lowering exact --time 120s --known "$tmp/none" \
    --no-findings --json "$tmp/term.json" >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 3
kill -TERM "$pid"
wait "$pid"
got=$?
[ "$got" = 5 ] && ok || { bad "SIGTERM with agreement: exit $got, want 5 (incomplete)"; cat "$tmp/err" >&2; }
[ "$(grep -c "NOT RUN: interrupted before it ran a case" "$tmp/out")" = 2 ] && ok \
    || bad "summary: want two ops NOT RUN: $(cat "$tmp/out")"
grep -q "^tiefuzz: incomplete: interrupted; 2 of 3 ops ran no case" "$tmp/err" && ok \
    || bad "the incomplete line: $(cat "$tmp/err")"
python3 - "$tmp/term.json" <<'PY' && ok || bad "--json after SIGTERM: complete, interrupted and not_run"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False and d["interrupted"] is True, (d["complete"], d["interrupted"])
not_run = sorted(o["op"] for o in d["ops"] if o["not_run"])
assert not_run == ["rdna2.v_fma_f16", "rdna2.v_mad_f32"], not_run
assert all(o["cases"] > 0 for o in d["ops"] if not o["not_run"])
PY

# A run that completes says so.
"$T" run rdna2.v_fma_f32 --lowering exact --cases 70000 --known "$tmp/none" --no-findings --quiet \
    --json "$tmp/full.json" >/dev/null 2>"$tmp/err"
got=$?
[ "$got" = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["complete"] and not d["interrupted"]' \
    "$tmp/full.json" && ok || bad "a complete run: exit $got, want 0 and complete=true"

# A shard that owns none of the cases: exit 0, and the reason in the summary (not "no usable device").
"$T" run rdna2.v_fma_f32 --cases 1000 --shard 1/2 --no-findings --quiet --json "$tmp/shard.json" >"$tmp/out" 2>"$tmp/err"
got=$?
[ "$got" = 0 ] && grep -q "SKIPPED: shard 1/2 owns none of the 1000 cases" "$tmp/out" && ok \
    || bad "empty shard: exit $got, want 0 and the reason: $(cat "$tmp/out" "$tmp/err")"

# A killed --jobs worker is recorded in --json (workers.failed), not only in the exit status.
# (--time 5s: the parent waits out the survivor's budget, which starts after the parent and so ends
# at least 2 s after the kill; 8 s only waited longer.)
"$T" run rdna2.v_fma_f32 --lowering exact --time 5s --known "$tmp/none" --no-findings --jobs 2 --show 0 \
    --json "$tmp/killed.json" >"$tmp/out" 2>"$tmp/err" &
parent=$!
sleep 3
victim=$(pgrep -P "$parent" | tail -1)
[ -n "$victim" ] && kill -KILL "$victim"
wait "$parent"
got=$?
[ "$got" = 4 ] && python3 - "$tmp/killed.json" <<'PY' && ok || { bad "killed worker: exit $got, want 4 and workers.failed=1"; cat "$tmp/err" >&2; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["workers"] == {"started": 2, "failed": 1} and d["complete"] is False, (d.get("workers"), d["complete"])
PY

# kill -9 of the --jobs parent: the workers die with it (they stop cleanly and leave
# their files in the scratch directory), a later --jobs run names what was left, and
# 'tiefuzz merge' recovers the finding files (issue 11, item 5).
mkdir "$tmp/scratch"
TMPDIR="$tmp/scratch" "$T" run rdna2.v_fma_f32 --time 60s --known "$tmp/none" --findings "$tmp/f-orphan" --jobs 2 \
    --show 0 >/dev/null 2>&1 &
parent=$!
sleep 4
workers=$(pgrep -P "$parent" | tr '\n' ' ')
kill -KILL "$parent"
wait "$parent" 2>/dev/null
# They stop at the end of the batch in hand (and write their report): up to 30 s on a busy machine.
for _ in $(seq 60); do
    left=""
    for w in $workers; do kill -0 "$w" 2>/dev/null && left="$left $w"; done
    [ -z "$left" ] && break
    sleep 0.5
done
[ -n "$workers" ] && [ -z "$left" ] && ok || bad "workers of a killed parent: started '$workers', still running '$left'"
for w in $left; do kill -KILL "$w"; done
scratch=$(ls -d "$tmp/scratch"/tiefuzz-jobs-* 2>/dev/null | head -1)
ls "$scratch"/job-*/*.finding >/dev/null 2>&1 && ok || bad "the killed run's workers left no finding files in '$scratch'"
TMPDIR="$tmp/scratch" "$T" run rdna2.v_fma_f32 --lowering exact --cases 70000 --jobs 2 --no-findings --quiet \
    >/dev/null 2>"$tmp/err"
grep -q "$scratch holds what the workers of an earlier --jobs run (pid $parent, findings $tmp/f-orphan)" "$tmp/err" \
    && ok || bad "a later --jobs run does not name the orphaned scratch directory: $(cat "$tmp/err")"
"$T" merge -o "$tmp/f-recovered" "$scratch"/job-*/ >/dev/null 2>"$tmp/err" \
    && ls "$tmp/f-recovered"/rdna2.v_fma_f32-*.finding >/dev/null 2>&1 && ok \
    || bad "merge of the orphaned scratch directory: $(cat "$tmp/err")"

# A finding file that cannot be written (here a directory is in its place): exit 4 as merge,
# the message says so, --json names no file for it, and the counts stay consistent: the
# findings' counts add up to the disagreements (issue 11, item 7).
# The finding files of a first run tell the name to block; it is the first of the two runs into
# $tmp/f-new that the NEW/again check below compares (one run less: the name is the same).
"$T" run rdna2.v_fma_f32 --cases 70000 --known "$tmp/none" --findings "$tmp/f-new" --quiet >"$tmp/out1" 2>&1
victim=$(ls "$tmp/f-new" | head -1)
mkdir -p "$tmp/f-blocked/$victim"
"$T" run rdna2.v_fma_f32 --cases 70000 --known "$tmp/none" --findings "$tmp/f-blocked" --quiet \
    --json "$tmp/blocked.json" >"$tmp/out" 2>"$tmp/err"
got=$?
[ -n "$victim" ] && [ "$got" = 4 ] && grep -q "cannot write $tmp/f-blocked/$victim" "$tmp/err" && ok \
    || bad "an unwritable finding file: exit $got, want 4 and the message: $(cat "$tmp/err")"
python3 - "$tmp/blocked.json" "$victim" <<'PY' && ok || bad "--json after a finding file could not be written"
import json, os, sys
d = json.load(open(sys.argv[1]))
fs = d["findings"]
assert not [f for f in fs if f["file"] and os.path.basename(f["file"]) == sys.argv[2]], fs
assert all(f["file"] is None or os.path.isfile(f["file"]) for f in fs), fs
assert sum(f["count"] for f in fs) == sum(o["disagreements"] for o in d["ops"]), (fs, d["ops"])
PY

# Readability (issue 11, item 11): summary rows within 100 columns (file paths and rule reasons
# aside), each known rule's reason printed once and referred to by number, new findings marked NEW,
# and those an earlier run found marked again.
"$T" run rdna2.v_fma_f32 'rdna2.v_fma_mix*' --cases 70000 --findings "$tmp/f-read" --quiet >"$tmp/out" 2>&1
long=$(grep -v '\.finding\|KNOWN: \|(rules: ' "$tmp/out" | awk 'length > 100')
[ -z "$long" ] && ok || bad "summary lines over 100 columns: $long"
rules=$(grep -c "^  \[[0-9]*\] KNOWN: " "$tmp/out")
refs=$(grep -o "  \[[0-9]*\]$" "$tmp/out" | sort -u | wc -l)
[ "$rules" = "$refs" ] && [ "$(grep -c "KNOWN: " "$tmp/out")" = "$rules" ] && ok \
    || bad "known reasons: $rules printed, $refs referred to: $(cat "$tmp/out")"
# (the first run into $tmp/f-new, $tmp/out1, is above)
"$T" run rdna2.v_fma_f32 --cases 70000 --known "$tmp/none" --findings "$tmp/f-new" --quiet >"$tmp/out2" 2>&1
n1=$(grep -c "^NEW  " "$tmp/out1"); n2=$(grep -c "^again  " "$tmp/out2")
[ "$n1" -gt 0 ] && [ "$n1" = "$n2" ] && [ "$(grep -c "^NEW  " "$tmp/out2")" = 0 ] \
    && grep -q "^findings: $n1 new, 0 seen in an earlier run" "$tmp/out1" && ok \
    || bad "NEW then again: $n1 new in the first run, $n2 again in the second: $(cat "$tmp/out2")"

# The nightly report lists an op that did not run as skipped in JUnit, with the reason.
mkdir -p "$tmp/r/logs" "$tmp/r/regression" "$tmp/r/findings" "$tmp/r/crashes"
cat >"$tmp/r/run.json" <<'EOF'
{"tool": "tiefuzz", "format": 1, "device": {"name": "x"}, "seed": 1, "jobs": 1, "complete": false,
 "interrupted": false,
 "ops": [{"op": "rdna2.v_fma_f32", "cases": 65536, "disagreements": 0, "seconds": 1.0, "rounding_cells": 9,
          "skipped": null, "stopped": false, "not_run": false},
         {"op": "rdna2.v_mad_f32", "cases": 0, "disagreements": 0, "seconds": 0, "rounding_cells": 0,
          "skipped": "no case ran before the --time budget was spent", "stopped": false, "not_run": true}],
 "findings": []}
EOF
python3 "$SRC/scripts/nightly-report" --out "$tmp/r" --run-status 5 --seconds 5 --budget 10 --device default \
    >/dev/null 2>&1
python3 - "$tmp/r" <<'PY' && ok || bad "nightly report of an incomplete campaign"
import json, sys, xml.etree.ElementTree as ET
out = sys.argv[1]
s = json.load(open(f"{out}/summary.json"))
# (the fuzz targets did not run here: only the campaign's step is judged)
run_steps = [f for f in s["failed_steps"] if "tiefuzz run" in f]
assert s["campaign"]["complete"] is False and run_steps == [], (s["campaign"], run_steps)
assert [o["op"] for o in s["campaign"]["ops"] if o["not_run"]] == ["rdna2.v_mad_f32"]
cases = {c.get("name"): c for c in ET.parse(f"{out}/junit.xml").getroot().iter("testcase")}
sk = cases["rdna2.v_mad_f32"].find("skipped")
assert sk is not None and "not run" in sk.get("message"), ET.tostring(cases["rdna2.v_mad_f32"])
assert cases["rdna2.v_fma_f32"].find("skipped") is None
PY

finish partial
