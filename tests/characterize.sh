#!/bin/bash
# tiefuzz characterize (issue 13, item 1): on lavapipe each measured fact against its probe (unfused f32
# Fma, f16 Fma rounding the product to f16, NoContraction honoured, denormals preserved with no mode
# declared, specialization constants folded with the signed zero lost); on another default device the
# JSON's shape and a value for each fact. Both: the format version, determinism, --module, bad usage.
#   characterize.sh TIEFUZZ
. "$(dirname "$0")/lib.sh"
tiefuzz=$1
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

expect_status 0 "characterize --json" "$tiefuzz" characterize --json "$tmp/a.json"
cp "$tmp/cli.out" "$tmp/table.txt"
expect_in "$tmp/table.txt" '^fma$' "the table has its fma section"
expect_in "$tmp/table.txt" 'advertised against observed' "the table has the advertised section"
if jq -e . "$tmp/a.json" >/dev/null 2>&1; then ok; else bad "the JSON does not parse"; fi
[ "$(jq -r .format "$tmp/a.json")" = tiefuzz-characterize/1 ] && ok || bad "format is not tiefuzz-characterize/1"

profile() { jq -r --arg id "$1" '.profile[$id] // "MISSING"' "$tmp/a.json"; }
observed() { jq -r --arg id "$1" '[.probes[] | select(.id == $id) | .tuples[].observed] | join(" ")' "$tmp/a.json"; }
fact() {  # fact ID VERDICT OBSERVED-BITS: the probe's verdict and the bits it rests on
    local v o
    v=$(profile "$1") o=$(observed "$1")
    [ "$v" = "$2" ] && ok || bad "$1: verdict '$v', want '$2'"
    [ "$o" = "$3" ] && ok || bad "$1: observed '$o', want '$3'"
}

facts="fma.f32 fma.f16 nocontract.f32 nocontract.f16 denorm.add.in.f32 denorm.add.out.f32 denorm.mul.in.f32
       denorm.mul.out.f32 denorm.fma.in.f32 denorm.fma.out.f32 zero.add-spec.f32 zero.add-spec.f32.szinp"
if [ "$(jq -r .device.driver "$tmp/a.json")" = llvmpipe ]; then
    fact fma.f32 unfused 00000000                            # fused would give 2^-24 = 33800000
    fact fma.f16 "product rounded to f16" "0000 3c00"        # fused: 0c00 3c01; in f32: 0c00 3c00
    fact nocontract.f32 honoured 00000000
    fact nocontract.f16 honoured "0000 3c00"
    fact denorm.add.in.f32 preserved 00800001                # 2^-126 + 2^-149; flushed: 00800000
    fact denorm.add.out.f32 preserved 00400000               # 2^-127; flushed: 0
    fact denorm.mul.in.f32 preserved 01000000
    fact denorm.mul.out.f32 preserved 00000200
    fact denorm.fma.in.f32 preserved 01000000
    fact denorm.fma.out.f32 preserved 00000200
    # -0 + K with K = +0 a specialization constant: folded to x, -0 kept, with and without the mode.
    fact zero.add-spec.f32 "folded (x + 0 = x)" 80000000
    fact zero.add-spec.f32.szinp "folded (x + 0 = x)" 80000000
    fact zero.add-runtime.f32.szinp IEEE 00000000            # the control: at run time -0 + 0 = +0
    # lavapipe advertises SignedZeroInfNanPreserve 32 and folds anyway: the table says so.
    c=$(jq -r '.advertised[] | select(.property == "shaderSignedZeroInfNanPreserve" and .width == 32) | .contradicts' \
        "$tmp/a.json")
    [ "$c" = true ] && ok || bad "SignedZeroInfNanPreserve 32 on lavapipe: contradicts '$c', want true"
else
    echo "default device is not lavapipe: checking the JSON's shape and a value for each fact"
    for id in $facts; do
        v=$(profile "$id")
        [ "$v" != MISSING ] && [ -n "$v" ] && ok || bad "$id: no value"
    done
fi
# Every probe has an id, a verdict or a reason, and tuples when it ran.
n=$(jq '[.probes[] | select(.id and ((.ran and .verdict and (.tuples | length > 0)) or ((.ran | not) and .skipped)))] | length' "$tmp/a.json")
all=$(jq '.probes | length' "$tmp/a.json")
[ "$n" = "$all" ] && [ "$all" -gt 50 ] && ok || bad "probes well-formed: $n of $all"

expect_status 0 "characterize again" "$tiefuzz" characterize --json "$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" && ok || bad "two runs gave different JSON"

expect_status 0 "characterize --module" "$tiefuzz" characterize --module fma.f32
expect_in "$tmp/cli.out" 'OpExtInst %f32 %glsl Fma %a %b %c' "the fma.f32 module"
expect_status 2 "characterize --module unknown" "$tiefuzz" characterize --module nope
expect_status 2 "characterize bad argument" "$tiefuzz" characterize --bogus
expect_status 3 "characterize on no such device" "$tiefuzz" characterize --device no-such-device-xyz
finish characterize
