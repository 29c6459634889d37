#!/usr/bin/env bash
# A planted model change (e_zero keyed by the C type instead of the output
# type) against the built-in translation: the e-zero tile class finds it
# within 10,000 tiles, 1,000,000 uniform random tiles rarely or never.
# Usage: mma_planted.sh TIEFUZZ
. "$(dirname "$0")/lib.sh"
T=$1
mkdir "$tmp/none"  # an empty rule directory: no known divergences
OP=mma.volta.m8n8k4.f32.f16.f16.f16
"$T" shader $OP --lowering exact -o "$tmp/m.spvasm" || { bad shader; finish; exit; }
count() {  # count CLASS CASES: prints "disagreements first-case"
    rm -f "$tmp/r.json"
    "$T" run $OP --shader "$tmp/m.spvasm" --param e_zero_key=c-type --gen "$1" --cases "$2" --quiet --no-findings \
        --known "$tmp/none" --keep 1 --json "$tmp/r.json" >/dev/null 2>&1
    python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["ops"][0]; k=o["disagreements_kept"]
print(o["disagreements"], k[0]["case"] if k else "none")' "$tmp/r.json"
}
read -r en ef < <(count e-zero 10000)
read -r rn rf < <(count random 1000000)
echo "e_zero keyed by C type: e-zero class: $en of 10,000 tiles disagree (first at tile $ef);" \
     "uniform random: $rn of 1,000,000 (first at $rf)"
[ "$ef" != none ] && [ "$ef" -lt 10000 ] && ok || bad "e-zero class missed it"
[ "$rn" -lt 100 ] && ok || bad "random tiles found it often ($rn)"
finish
