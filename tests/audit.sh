#!/usr/bin/env bash
# A campaign audits its fast path: with the planted fast-path mistake
# (tiefuzz-planted) a run ends as an internal error (exit 4) naming the
# tuple, by the sampled audit and by the re-check of disagreements; the real
# build audits the same cases and reports how many in --json.
# Usage: audit.sh TIEFUZZ TIEFUZZ_PLANTED
. "$(dirname "$0")/lib.sh"
T=$(realpath "$1") P=$(realpath "$2")
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
cd "$tmp"

for audit in 64 0; do
    "$P" run rdna2.v_fma_f32 --lowering exact --cases 200000 --quiet --no-findings --audit "$audit" \
        --json "$tmp/p.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = 4 ] && ok || bad "planted, --audit $audit: exit $rc, want 4; $(head -c 400 "$tmp/err")"
    grep -q "internal error: the fast path and the exact model differ on rdna2.v_fma_f32" "$tmp/err" \
        && ok || bad "planted, --audit $audit: not named: $(head -c 400 "$tmp/err")"
done

# The same with the default (direct) lowering, whose disagreements on the
# device are re-checked too: still an internal error, not a disagreement.
"$P" run rdna2.v_fma_f32 --cases 200000 --quiet --no-findings --audit 64 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 4 ] && grep -q "the fast path and the exact model differ on rdna2.v_fma_f32" "$tmp/err" \
    && ok || bad "planted, direct lowering: exit $rc, want 4; $(head -c 400 "$tmp/err")"

# A sampled audit failing in a batch while the batch before it, of earlier
# cases, is still on the device: that batch is checked first, so its
# disagreements are kept and its re-check failure, the earlier case, is the
# one reported.  The cases from the planted build itself: x0 the earliest
# re-check failure (no sampled audit), d the next case after it whose fast
# path is wrong (selftest lists the first few, under the same plain
# controls); batches of d cases put x0 in the first and d, sampled by
# --audit d, in the second.
case_of() { grep -o '(case [0-9]* of seed' "$1" | head -1 | tr -dc 0-9; }
"$P" run rdna2.v_fma_f32 --ctrl '' --cases 20000 --quiet --no-findings --audit 0 >/dev/null 2>"$tmp/err"
x0=$(case_of "$tmp/err")
"$P" selftest rdna2.v_fma_f32 --cases 20000 --ctrl '' >/dev/null 2>"$tmp/self"  # the same plain cases
d=$(grep -o '(case [0-9]* of seed' "$tmp/self" | tr -dc '0-9\n' | awk -v x="${x0:-0}" '$1 > x { print; exit }')
if [ -n "$x0" ] && [ -n "$d" ] && ! grep -q '(case 0 of seed' "$tmp/self"; then
    "$P" run rdna2.v_fma_f32 --ctrl '' --cases 20000 --batch "$d" --audit "$d" --quiet --no-findings \
        --json "$tmp/order.json" >/dev/null 2>"$tmp/err"
    rc=$?
    got=$(case_of "$tmp/err")
    [ "$rc" = 4 ] && [ "$got" = "$x0" ] && ok \
        || bad "sample failing at case $d, re-check at $x0 a batch before: exit $rc, reported case ${got:-none}, want $x0"
    # The first batch checked (its cases counted; its disagreements before x0 kept, which a device
    # whose own arithmetic is right need not have), and the run, stopped part-way, not called complete.
    python3 -c "import json, sys; d = json.load(open(sys.argv[1])); o = d['ops'][0]
sys.exit(o['cases'] != int(sys.argv[2]) or d['complete'] is not False)" "$tmp/order.json" "$d" && ok \
        || bad "the earlier batch not checked, or the run called complete ($(head -c 600 "$tmp/order.json"))"
    grep -q "^tiefuzz: incomplete: 1 of 1 ops stopped part-way" "$tmp/err" && ok \
        || bad "no incomplete line for the stopped op: $(head -c 400 "$tmp/err")"
    # A held sample is reported even where the batch before it fails on the device (a timeout of
    # next to nothing): the device's message, then the internal error, which outranks it (exit 4).
    # Batches of x0 cases: the first has no failing case, the second's sample, case x0, fails.  The
    # conductor waits for the second batch's generation after the failure, so the report does not
    # turn on which thread got there first.  A first batch of x0 cases can finish before the
    # conductor waits for it (a 0 ms wait then finds it done, 1 run in 150 or so): such a run
    # times nothing out and is made again, up to 20 times.
    for try in $(seq 20); do
        "$P" run rdna2.v_fma_f32 --ctrl '' --cases 20000 --batch "$x0" --audit "$x0" --timeout 0.0001 --quiet \
            --no-findings >/dev/null 2>"$tmp/err"
        rc=$?
        grep -q "did not finish a batch" "$tmp/err" && break
    done
    [ "$rc" = 4 ] && grep -q "did not finish a batch" "$tmp/err" \
        && grep -q "internal error: .*(case $x0 of seed" "$tmp/err" && ok \
        || bad "a sample held while the batch before it timed out: exit $rc, want 4 ($try runs); $(head -c 600 "$tmp/err")"
else
    bad "no cases to order: re-check failure '${x0}', next planted case '${d}' ($(head -c 300 "$tmp/self"))"
fi

# The tiles' planted mistake (f16 ties rounding half down in the fast path),
# caught by the sampled audit and by the re-check of the device's disagreements.
tile=mma.volta.m8n8k4.f16.f16.f16.f16
for audit in 64 0; do
    TIEFUZZ_PLANT_TILE=1 "$P" run "$tile" --lowering exact --cases 20000 --quiet --no-findings --audit "$audit" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = 4 ] && grep -q "internal error: the fast path and the exact model differ on $tile" "$tmp/err" \
        && ok || bad "planted tile mistake, --audit $audit: exit $rc, want 4; $(head -c 400 "$tmp/err")"
done

"$T" run rdna2.v_fma_f32 maxwell.xmad --lowering exact --cases 100001 --quiet --no-findings --audit 100 \
    --json "$tmp/r.json" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && ok || bad "real build: exit $rc; $(head -c 400 "$tmp/err")"
python3 - "$tmp/r.json" <<'PY' && ok || bad "audited counts"
import json, sys
ops = json.load(open(sys.argv[1]))["ops"]
# Every case whose index is a multiple of 100: 0, 100, ..., 100,000, so 1,001 of 100,001 (a sample
# at any other offset, one case late or early, counts 1,000); disagreements, none with the exact
# lowering, would add to it.
assert all(o["audited"] == 1001 for o in ops), [(o["op"], o["audited"]) for o in ops]
PY

finish audit
