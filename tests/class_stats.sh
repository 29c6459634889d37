#!/usr/bin/env bash
# A campaign's class statistics are its cases' own: per class, the cases
# generated, verified in class, in class at the result and ties, and the
# rounding cells and tie exponents reached, as --json reports them, equal
# what 'tiefuzz gen --stats' counts for the same cases on its own path
# (eng_make_case, one case at a time, each counted as it comes).  The
# campaign counts a block of cases at once on its generation threads
# (campaign.c's note_block) and merges the threads' counts: a count put in
# the wrong field or lost in the merge shows here.
# Usage: class_stats.sh TIEFUZZ
. "$(dirname "$0")/lib.sh"
T=$1
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

# Ops of each form and family (a literal's K, two lanes, the legacy form,
# V_DIV_FMAS's VCC, integer classes); 50,000 cases each, the plain controls
# (a campaign's block 0, the instance gen makes).  The exact lowering: the
# statistics are the host's, and it runs every op on any device.  Then class
# lists that are not the default's: note_block counts a class at a time,
# every n-th case from the block's place in the list, so a list with a class
# twice, batches shorter than the list (a block of two cases, three classes)
# and a list longer than a Maxwell block's period check goes (17 classes,
# counting-sorted) each count otherwise if the place or the stride is off.
runs=()
for op in rdna2.v_fma_f32 rdna2.v_mad_f32 rdna2.v_fmaak_f32 rdna2.v_pk_fma_f16 rdna2.v_div_fmas_f32 \
    rdna2.v_fma_mix_f32 maxwell.xmad; do
    runs+=("$op all 65536")
done
runs+=("maxwell.xmad sign,carry,sign 2"
    "maxwell.imul_imm16 carry,sign,random,zero-half,sign,sign,carry,random,zero-half,carry,sign,random,carry,zero-half,sign,random,carry 1000"
    "rdna2.v_fma_f32 tie,near-tie,tie,random,special,tie,cancel,subnormal,overflow,double-round,tie,random,near-tie,cancel,special,subnormal,tie 999")
for run in "${runs[@]}"; do
    read -r op classes batch <<<"$run"
    "$T" gen "$op" --gen "$classes" --ctrl '' -n 50000 --stats >/dev/null 2>"$tmp/gen.txt" ||
        { bad "$op --gen $classes: gen failed"; continue; }
    "$T" run "$op" --gen "$classes" --batch "$batch" --ctrl '' --lowering exact --cases 50000 --no-findings --quiet \
        --json "$tmp/run.json" >/dev/null 2>"$tmp/run.err"
    rc=$?
    [ "$rc" -le 1 ] || { bad "$op --gen $classes: run failed (exit $rc): $(head -c 300 "$tmp/run.err")"; continue; }
    what="$op --gen $classes --batch $batch"
    python3 - "$op" "$tmp/gen.txt" "$tmp/run.json" <<'PY' && ok || bad "$what: the campaign's class statistics differ from gen --stats's"
import json, re, sys
op, gen_txt, run_json = sys.argv[1:]
want, cells, exps = {}, None, None
for line in open(gen_txt):
    m = re.match(r"(\S+): (\d+) generated, (\d+) verified .*, (\d+) at the result .*, (\d+) ties$", line)
    if m:
        want[m[1]] = tuple(int(x) for x in m.group(2, 3, 4, 5))
    m = re.match(r"rounding cells: (\d+), tie exponents: (\d+)$", line)
    if m:
        cells, exps = int(m[1]), int(m[2])
o = json.load(open(run_json))["ops"][0]
assert want and cells is not None, "gen --stats printed no counts"
got = {c: (s["generated"], s["verified"], s["at_result"], s["ties"])
       for c, s in o["classes"].items() if s["generated"]}
assert got == want, (op, "generated, verified, at the result, ties", "campaign", got, "gen", want)
assert (o["rounding_cells"], o["tie_exponents"]) == (cells, exps), \
    (op, "cells, tie exponents", o["rounding_cells"], o["tie_exponents"], cells, exps)
PY
done

finish class-stats
