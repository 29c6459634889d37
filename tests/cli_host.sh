#!/usr/bin/env bash
# Command-line behaviour that needs no device: usage errors, eval, gen, ops.
# Usage: cli_host.sh TIEFUZZ
. "$(dirname "$0")/lib.sh"
T=$1

expect_status 2 "no command" "$T"
expect_status 2 "unknown command" "$T" frobnicate
expect_in "$tmp/cli.err" "unknown command 'frobnicate'" "unknown command named"
expect_status 0 "--help" "$T" --help

# ops
expect_status 0 "ops --json" "$T" ops --json
python3 - "$tmp/cli.out" <<'PY' && ok || bad "ops --json content"
import json, sys
d = json.load(open(sys.argv[1]))
names = {o["name"]: o for o in d["ops"]}
assert len(names) == 36, len(names)
assert names["mma.volta.m8n8k4.f32.f16.f16.f16"]["status"] == "translated"
assert {p["name"]: p["default"] for p in names["mma.volta.m8n8k4.f32.f16.f16.f16"]["params"]}["e_zero_f16"] == "-19"
xm = names["maxwell.xmad"]
assert {c["name"] for c in xm["controls"]} >= {"cop", "mrg", "psl", "x", "cc", "sb_kind", "sc_kind", "imm"}
assert [p["name"] for p in xm["params"]] == ["csfu", "xmad_cc"] and xm["params"][0]["default"] == "envytools"
assert names["rdna2.v_fma_f64"]["status"] == "not translated"
fma = names["rdna2.v_fma_f32"]
assert [w["name"] for w in fma["tuple"]] == ["s0", "s1", "s2", "d"]
assert {c["name"] for c in fma["controls"]} == {"abs", "neg", "clamp", "omod"}
assert fma["lowerings"] == ["direct", "exact"]
mix = names["rdna2.v_fma_mixlo_f16"]
assert mix["params"][0]["name"] == "mix_rounding" and mix["params"][0]["default"] == "record"
PY
expect_status 0 "ops text" "$T" ops
expect_in "$tmp/cli.out" "NOT TRANSLATED" "ops marks v_fma_f64"

# eval: the record's cases, explanation, errors
expect_status 0 "eval fma" "$T" eval rdna2.v_fma_f32 3f800800 3f800800 bf801000
expect_in "$tmp/cli.out" "^33800000$" "fused record case"
expect_status 0 "eval mad explain" "$T" eval v_mad_f32 --explain 0x3f800800 0x3f800800 0xbf801000
expect_in "$tmp/cli.out" "position tie" "explain shows the product tie"
expect_in "$tmp/cli.out" "2^0 + 2^-11 + 2^-24" "explain shows the exact product as powers of two"
expect_in "$tmp/cli.out" "^00000000$" "unfused record case"
expect_status 0 "eval f16 explain" "$T" eval v_fma_f16 --explain 1001 3bfe 3c01 0
expect_in "$tmp/cli.out" "below the tie" "f16 record case is just below a tie"
expect_in "$tmp/cli.out" "^00003c01$" "f16 record case"
expect_status 2 "eval bad word" "$T" eval v_fma_f32 3f800800 xyz 0
expect_in "$tmp/cli.err" "word 2 'xyz'" "bad word named"
expect_status 2 "eval word count" "$T" eval v_fma_f32 1 2
expect_in "$tmp/cli.err" "takes 3 input words" "word count named"
expect_status 2 "eval unknown op" "$T" eval v_nope 1 2 3
expect_status 2 "eval illegal control" "$T" eval v_fmaak_f32 --ctrl abs=1 1 2
expect_in "$tmp/cli.err" "takes no control 'abs'" "illegal control named"
expect_status 2 "eval illegal mix op_sel" "$T" eval v_fma_mix_f32 --ctrl op_sel=1,op_sel_hi=0 1 2 3
expect_in "$tmp/cli.err" "op_sel needs op_sel_hi" "mix rule named"
expect_status 2 "eval bad param" "$T" eval v_fma_mixlo_f16 --param mix_rounding=sometimes 1 2 3 4
expect_status 0 "eval f64 host model" "$T" eval v_fma_f64 0 3ff00000 0 3ff00000 0 3ff00000
expect_in "$tmp/cli.out" "^00000000 40000000$" "f64 host model 1*1+1"

# Maxwell: illegal combinations are refused with the rule named; model-dependent parts are marked.
expect_status 2 "xmad imm with H1" "$T" eval maxwell.xmad --ctrl sb_kind=1,b_h1=1 1 2 3 0
expect_in "$tmp/cli.err" "no .H1 on an immediate" "imm16 half rule named"
expect_status 2 "xmad cbcc with const" "$T" eval maxwell.xmad --ctrl cop=3,sb_kind=2 1 2 3 0
expect_in "$tmp/cli.err" "CBCC takes no constant-bank" "cbcc rule named"
# No XMAD encoding has an IMM16 Sb with a constant-bank Sc (issue 11, item 10).
expect_status 2 "xmad imm Sb with const Sc" "$T" eval maxwell.xmad --ctrl sb_kind=1,sc_kind=1 1 2 3 0
expect_in "$tmp/cli.err" "an IMM16 Sb takes a register Sc" "imm/const pair refused with the rule"
expect_status 2 "gen imm Sb with const Sc" "$T" gen maxwell.xmad --ctrl sb_kind=1,sc_kind=1
expect_status 2 "xmad psl with const sc" "$T" eval maxwell.xmad --ctrl psl=1,sc_kind=1 1 2 3 0
expect_in "$tmp/cli.err" "PSL and .MRG take no constant-bank Sc" "psl rule named"
expect_status 2 "iadd3 -a -b" "$T" eval maxwell.iadd3 --ctrl nega=1,negb=1 1 2 3 0
expect_in "$tmp/cli.err" "Ra together with -Sb is illegal" "negation rule named"
expect_status 2 "xmad cc refused" "$T" eval maxwell.xmad --ctrl cc=1 --param xmad_cc=refuse 1 2 3 0
expect_status 0 "xmad record vector" "$T" eval maxwell.xmad 12345678 8a24c923 9123064a 0
expect_in "$tmp/cli.out" "^d51310b2 00000000$" "XMAD R2, R2, R3, R4 as on a Tegra X1"
expect_status 0 "iadd3 33-bit RS" "$T" eval maxwell.iadd3 --ctrl shift=1 ffffffff 1 0 0
expect_in "$tmp/cli.out" "^00010000 00000000$" "0xffffffff + 1 .RS keeps bit 32"
expect_status 0 "signed sequence explain" "$T" eval maxwell.imad_hi_s32 --explain 80000000 0000ffff 0
expect_in "$tmp/cli.out" "readings that agree: .*cross" "the explanation names the CSFU readings that agree"
expect_status 0 "csfu explain" "$T" eval maxwell.xmad --explain --ctrl cop=4,sasign=1 8000 2 0 0
expect_in "$tmp/cli.out" "model-dependent: the CSFU fix-up" "CSFU marked model-dependent"

# fit recovers planted T-FDPA parameters from the seed's probe tiles alone.
OP=mma.volta.m8n8k4.f16.f16.f16.f16
"$T" fit $OP --emit-probes --probes-only >"$tmp/probes" && ok || bad "fit --emit-probes"
for planted in "-19 23" "-20 24"; do
    set -- $planted
    "$T" eval $OP --param e_zero_f16=$1,F=$2 --batch "$tmp/probes" >"$tmp/outs" && ok || bad "eval tiles"
    paste -d'>' "$tmp/probes" "$tmp/outs" | sed 's/>/ -> /' >"$tmp/results"
    expect_status 0 "fit e_zero $1 F $2" "$T" fit $OP --param e_zero_f16=-45..-14,F=20..26 --results "$tmp/results"
    expect_in "$tmp/cli.out" "^consistent: e_zero_f16=$1 F=$2$" "fit finds the planted pair"
    expect_in "$tmp/cli.out" "^1 of 224 combinations reproduce" "and only it"
done
# With random tiles too, and a grid that misses: exit 1.
"$T" fit $OP --emit-probes --random 8 >"$tmp/probes2"
"$T" eval $OP --batch "$tmp/probes2" >"$tmp/outs2"
paste -d'>' "$tmp/probes2" "$tmp/outs2" | sed 's/>/ -> /' >"$tmp/results2"
expect_status 1 "fit without the right value" "$T" fit $OP --param e_zero_f16=-45..-30 --results "$tmp/results2"
expect_in "$tmp/cli.out" "no combination reproduces every tile" "a miss is said"
expect_status 2 "fit bad results" "$T" fit $OP --param F=20..26 --results "$tmp/probes"
expect_in "$tmp/cli.err" "probes:1: expected 'INPUT WORDS -> OUTPUT WORDS'" "bad results file named"

# gen | eval --batch, determinism, errors
"$T" gen v_fma_f16 --gen all --seed 5 -n 2000 >"$tmp/g1" && ok || bad "gen"
"$T" gen v_fma_f16 --gen all --seed 5 -n 2000 >"$tmp/g2" && cmp -s "$tmp/g1" "$tmp/g2" && ok || bad "gen is deterministic"
"$T" gen v_fma_f16 --gen all --seed 6 -n 2000 >"$tmp/g3" && ! cmp -s "$tmp/g1" "$tmp/g3" && ok || bad "seed changes cases"
"$T" eval v_fma_f16 --batch "$tmp/g1" >"$tmp/e1" && ok || bad "eval --batch"
[ "$(wc -l <"$tmp/e1")" = 2000 ] && ok || bad "eval --batch line count $(wc -l <"$tmp/e1")"
line=$(sed -n 2p "$tmp/g1")
single=$("$T" eval v_fma_f16 $line)
[ "$single" = "$(head -1 "$tmp/e1")" ] && ok || bad "batch and single eval agree"
"$T" gen v_fmaak_f32 -n 3 >"$tmp/k" && head -1 "$tmp/k" | grep -q -- "k=0x" && ok || bad "gen names K in its header"
printf '3f800000 3f800000 3f800000\n3f800000 zz 0\n' >"$tmp/badbatch"
expect_status 2 "eval bad batch" "$T" eval v_fma_f32 --batch "$tmp/badbatch"
expect_in "$tmp/cli.err" "badbatch:2: column" "batch error names file, line and column"
expect_status 2 "eval missing batch file" "$T" eval v_fma_f32 --batch "$tmp/none"
# Bounded input: a stream with no newline, NUL bytes or a directory end with exit 2 and a message,
# in bounded memory (under a 1 GiB address-space limit; /dev/zero once grew to 23 GB).
bounded() { (ulimit -v 1048576; timeout 60 "$@"); }
expect_status 2 "eval --batch /dev/zero" bounded "$T" eval v_fma_f32 --batch /dev/zero
expect_in "$tmp/cli.err" "/dev/zero:1: contains a NUL byte" "NUL input named"
head -c 3000000 /dev/zero | tr '\0' 1 >"$tmp/longline"
expect_status 2 "eval --batch one long line" bounded "$T" eval v_fma_f32 --batch "$tmp/longline"
expect_in "$tmp/cli.err" "longline:1: line too long" "long line named"
expect_status 2 "eval --batch a directory" "$T" eval v_fma_f32 --batch "$tmp"
expect_in "$tmp/cli.err" "is a directory" "directory named"
printf '3f800000 3f800000 3f800000' >"$tmp/nonewline"
expect_status 0 "eval --batch last line without newline" "$T" eval v_fma_f32 --batch "$tmp/nonewline"
expect_status 2 "gen bad class" "$T" gen v_fma_f32 --gen ties
expect_in "$tmp/cli.err" "unknown class 'ties'" "bad class named"

# Known-divergence rules and regression files: a --known that is missing or not a directory, and
# rule or instance values with typos (which would never match), are refused with file and line.
mkdir "$tmp/rules"
expect_status 2 "replay --known missing" "$T" replay --host-only --known "$tmp/no-such-dir"
expect_in "$tmp/cli.err" "no-such-dir: No such file or directory" "missing --known named"
expect_status 2 "replay --known a file" "$T" replay --host-only --known "$tmp/g1"
expect_in "$tmp/cli.err" "not a directory" "--known file named"
expect_status 0 "replay --known an empty directory" "$T" replay --host-only --known "$tmp/rules"
for rule in "kind=tie-directoin" "lowering=direkt" "op=rdna2.v_fam_f32"; do
    echo "device=llvmpipe op=rdna2.* $rule reason=a typo" >"$tmp/rules/typo.txt"
    expect_status 2 "rule with $rule" "$T" replay --host-only --known "$tmp/rules"
    expect_in "$tmp/cli.err" "typo.txt:1: " "rule with $rule: file and line named"
done
rm "$tmp/rules/typo.txt"
printf 'tiefuzz-regression 1\nop rdna2.v_fma_f32\ninstance controls=none params=none lowering=direkt\n3f800000 3f800000 3f800000 -> 40000000\n' \
    >"$tmp/bad.tuples"
expect_status 2 "regression file with lowering=direkt" "$T" replay --host-only "$tmp/bad.tuples"
expect_in "$tmp/cli.err" "bad.tuples:3: lowering 'direkt'" "bad lowering named with file and line"

# run: usage errors are caught before any device is opened
expect_status 2 "run unknown op" "$T" run 'nosuch.*'
expect_status 2 "run not translated" "$T" run rdna2.v_fma_f64
expect_in "$tmp/cli.err" "not translated" "f64 refused with a reason"
expect_status 2 "run bad lowering" "$T" run --lowering fast
expect_status 2 "run cases and time" "$T" run --cases 5 --time 5s
expect_status 2 "run bad duration" "$T" run --time soon
expect_status 2 "run bad ctrl" "$T" run v_fma_f32 --ctrl clamp=2 --cases 1
# An unwritable --json is refused before the campaign, with the reason (issue 11, item 7, in part).
expect_status 2 "run --json in a missing directory" "$T" run v_fma_f32 --cases 1 --json "$tmp/no-such-dir/r.json"
expect_in "$tmp/cli.err" "cannot write in .*no-such-dir: No such file or directory" "--json reason named"
expect_status 2 "run --json a directory" "$T" run v_fma_f32 --cases 1 --json "$tmp"
expect_in "$tmp/cli.err" "is a directory" "--json directory named"

finish
