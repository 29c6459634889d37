#!/usr/bin/env bash
# Triage on lavapipe (issue 13, acceptance 2-4; README, 'Triage'):
#  - a direct campaign of every op: every disagreement of the Fma forms is a translation verdict
#    caused by the unfused Fma; V_MADAK_F32's folded -0 + 0.0 is a device verdict naming
#    SignedZeroInfNanPreserve 32 (lavapipe advertises it), and its amber reproducer expects +0;
#  - planted user modules: an f16 multiply-add done in f32 and narrowed is the translation's own
#    arithmetic; a module with an instruction the interpreter lacks is unknown, naming it;
#  - run --known auto (rules derived from characterize) splits the campaign into known and
#    unknown exactly as corpus/known/lavapipe.txt does, with the same exit status.
# Usage: triage.sh TIEFUZZ SOURCE-ROOT
. "$(dirname "$0")/lib.sh"
T=$1 ROOT=$2
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
mkdir "$tmp/none"  # no known divergences
# 30,000 cases an op over the 22 RDNA 2 and Maxwell ops, whose disagreements the verdicts are about
# (about 6 s), and 2,000 tiles an op over the 13 tensor-core ops: their lowering is the integer
# emulation whatever --lowering says (src/isa/mma_lower.c ignores it), so they agree on lavapipe and
# only have to pass through the triaging campaign and its exit status; at 30,000 tiles they took
# 70 of the campaign's 75 s, twice (tests device and cli-device hold their agreement).
CASES=${TIEFUZZ_TRIAGE_CASES:-30000}
TILES=${TIEFUZZ_TRIAGE_TILES:-2000}

if [ "$("$T" devices 2>/dev/null | grep -c llvmpipe)" = 0 ]; then
    bad "triage.sh checks lavapipe's verdicts; no llvmpipe device here"
    finish triage
    exit
fi
dev=llvmpipe
# Every translated op but the tile ops, by name: an op of a new family joins the 30,000-case run.
read -ra scalar <<<"$("$T" ops --json | python3 -c 'import json, sys
print(" ".join(o["name"] for o in json.load(sys.stdin)["ops"] if o["status"] == "translated" and o["family"] != "mma"))')"
[ "${#scalar[@]}" -gt 0 ] && ok || bad "ops --json: no translated op outside mma"

# 1. Every op, direct lowering, lavapipe's hand-written rules: verdicts in --json, finding files.
"$T" run "${scalar[@]}" --device $dev --lowering direct --cases "$CASES" --seed 7 --quiet --known "$ROOT/corpus/known" \
    --findings "$tmp/f" --json "$tmp/known.json" >"$tmp/known.out" 2>"$tmp/known.err"
echo $? >"$tmp/known.status"
"$T" run 'mma.*' --device $dev --lowering direct --cases "$TILES" --seed 7 --quiet --known "$ROOT/corpus/known" \
    --findings "$tmp/f" --json "$tmp/known-mma.json" >"$tmp/known-mma.out" 2>"$tmp/known-mma.err"
echo $? >"$tmp/known-mma.status"
# The legacy forms with a literal K of +0, which lavapipe folds (drawn K is rarely +0).
"$T" run rdna2.v_madak_f32 rdna2.v_madmk_f32 --device $dev --lowering direct --ctrl k=0 --cases 20000 --seed 7 \
    --quiet --known "$ROOT/corpus/known" --findings "$tmp/f" --json "$tmp/known-k0.json" >"$tmp/known-k0.out" \
    2>"$tmp/known-k0.err"
echo $? >"$tmp/known-k0.status"
"$T" ops --json >"$tmp/ops.json"
python3 - "$tmp/ops.json" "$tmp/known.json" "$tmp/known-mma.json" <<'PY' && ok || bad "the two runs cover every translated op"
import json, sys
want = {o["name"] for o in json.load(open(sys.argv[1]))["ops"] if o["status"] == "translated"}
ran = [o for p in sys.argv[2:] for o in json.load(open(p))["ops"] if o["cases"] > 0]
names = [o["op"] for o in ran]
assert sorted(names) == sorted(want), (sorted(want - set(names)), sorted(set(names) - want))
PY
python3 - "$tmp/known.json" "$tmp/known-mma.json" "$tmp/known-k0.json" <<'PY' && ok || bad "verdicts of the direct campaign"
import json, sys
fma = {"rdna2.v_fma_f32", "rdna2.v_fmac_f32", "rdna2.v_fmaak_f32", "rdna2.v_fmamk_f32", "rdna2.v_div_fmas_f32",
       "rdna2.v_fma_mix_f32", "rdna2.v_fma_mixlo_f16", "rdna2.v_fma_mixhi_f16"}
found = [f for p in sys.argv[1:] for f in json.load(open(p))["findings"]]
wrong = [f for f in found if f["op"] in fma and (f["verdict"], f["verdict_cause"]) != ("translation", "fma-unfused")]
for f in wrong:
    print("unfused Fma not judged translation/fma-unfused:", f["op"], f["kind"], f["verdict"], f["verdict_cause"],
          f["verdict_reason"], file=sys.stderr)
seen = {f["op"] for f in found if f["op"] in fma}
if seen != fma:
    print("Fma forms without a disagreement:", sorted(fma - seen), file=sys.stderr)
folded = [f for f in found if f["op"] == "rdna2.v_madak_f32" and f["kind"] == "sign-of-zero"]
bad = [f for f in folded if (f["verdict"], f["verdict_cause"]) != ("device", "SignedZeroInfNanPreserve-32")]
for f in bad:
    print("folded -0 + 0.0 not judged device/SZINP 32:", f["verdict"], f["verdict_cause"], f["verdict_reason"],
          file=sys.stderr)
if not folded:
    print("no sign-of-zero finding for v_madak_f32", file=sys.stderr)
unjudged = [f for f in found if not f.get("verdict")]
for f in unjudged:
    print("no verdict:", f["op"], f["kind"], file=sys.stderr)
sys.exit(1 if wrong or seen != fma or bad or not folded or unjudged else 0)
PY
expect_in "$tmp/known.out" "^verdicts: [1-9][0-9]* translation, [0-9]* device" "the summary counts the verdicts"
expect_in "$tmp/known-k0.out" "^verdicts: [0-9]* translation, [1-9][0-9]* device" "the summary counts device verdicts"

# The driver bug's reproducer: the finding file says device, the script expects +0 (the rules'
# result, not the model's) and the note beside it names the rule.
madak=$(grep -l "^verdict device" "$tmp"/f/rdna2.v_madak_f32-*.finding 2>/dev/null | head -1)
if [ -n "$madak" ]; then
    ok
    expect_in "$madak" "^verdict-cause SignedZeroInfNanPreserve-32" "finding file: verdict-cause"
    expect_in "$madak" "^tiefuzz-finding 2" "finding file: format version 2"
    expect_status 0 "export --format amber of the device finding" "$T" export "$madak" --format amber -o "$tmp/amber"
    script=$(ls "$tmp"/amber/*.amber | head -1) note=$(ls "$tmp"/amber/*.txt | head -1)
    expect_in "$script" "Expected output: the one result the Vulkan rules allow" "amber: expectation is the rules'"
    expect_in "$script" "^0x00000000$" "amber: the rules require +0"
    expect_in "$note" "SignedZeroInfNanPreserve 32" "the note names the rule broken"
    expect_status 1 "repro of the device finding" "$T" repro "$madak"
    expect_in "$tmp/cli.out" "triage: device (SignedZeroInfNanPreserve-32)" "repro gives the verdict"
    # The nightly reports of a night that found it: JUnit names the verdict, SARIF files the driver bug
    # under its own rule.
    mkdir -p "$tmp/night/logs" "$tmp/night/crashes" "$tmp/night/regression"
    cp "$tmp/known-k0.json" "$tmp/night/run.json"
    echo "$madak" >"$tmp/night/logs/new-findings.txt"
    python3 "$ROOT/scripts/nightly-report" --out "$tmp/night" --run-status 1 --seconds 1 --budget 1 \
        --device $dev >/dev/null 2>&1
    python3 - "$tmp/night" <<'PY' && ok || bad "nightly reports: the device verdict in JUnit and SARIF"
import json, sys
import xml.etree.ElementTree as ET
out = sys.argv[1]
failures = list(ET.parse(f"{out}/junit.xml").getroot().iter("failure"))
assert failures and "triage: device" in failures[0].get("message") + failures[0].text, failures
assert "export" in failures[0].text and "--format amber" in failures[0].text, failures[0].text
run = json.load(open(f"{out}/results.sarif"))["runs"][0]
rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
results = run["results"]
assert rules == ["device-bug"], rules
assert len(results) == 1 and results[0]["ruleId"] == "device-bug", results
assert "SignedZeroInfNanPreserve-32" in results[0]["message"]["text"], results[0]["message"]
PY
    # and a translation verdict's script still expects the model
    fma=$(grep -l "^verdict translation" "$tmp"/f/rdna2.v_fma_f32-*.finding | head -1)
    expect_status 0 "export --format amber of a translation finding" "$T" export "$fma" --format amber -o "$tmp/amber2"
    expect_in "$(ls "$tmp"/amber2/*.amber | head -1)" "Expected output: tiefuzz's host model" "amber: model expected"
    [ -z "$(ls "$tmp"/amber2/*.txt 2>/dev/null)" ] && ok || bad "a translation finding gets no driver-bug note"
else
    bad "no v_madak_f32 finding with a device verdict in $tmp/f: $(ls "$tmp/f" | head)"
fi

# 2. Planted user modules.  An f16 multiply-add done in f32 (exact product, rounded sum) and then
# narrowed to f16 rounds twice: the device computes exactly what the module says, so the verdict
# is the translation's own arithmetic.
"$T" shader rdna2.v_fma_f16 --lowering direct --device $dev -o "$tmp/fma_f16.spvasm" 2>"$tmp/shader.err" \
    && ok || bad "shader v_fma_f16: $(cat "$tmp/shader.err")"
python3 - "$tmp/fma_f16.spvasm" "$tmp/f16_in_f32.spvasm" "$tmp/fdiv.spvasm" <<'PY' && ok || bad "planting modules"
import re, sys
text = open(sys.argv[1]).read()
# The direct lowering adds the exact f32 product and the addend in f32, rounds the sum to odd
# (TwoSum and a fix-up) and narrows that: one correct rounding to f16.  The planted module
# narrows the f32 sum itself, rounded to nearest: two roundings.
add = re.search(r"^(%\w+) = OpFAdd (%\w+) (%\w+) (%\w+)$", text, re.M)
narrow = re.search(r"^(%\w+) = OpFConvert (%\w+) (%\w+)$", text[add.end():], re.M) if add else None
if not add or not narrow:
    sys.exit("no f32 sum and f16 narrowing in the direct module")
planted = text.replace(narrow.group(0), f"{narrow.group(1)} = OpFConvert {narrow.group(2)} {add.group(1)}")
open(sys.argv[2], "w").write(planted)
# The same, then divided by itself (1.0) and multiplied back: OpFDiv is outside the interpreter.
half = narrow.group(2)
div = (f"%tf_q = OpFConvert {half} {narrow.group(3)}\n%tf_one = OpFDiv {half} %tf_q %tf_q\n"
       f"{narrow.group(1)} = OpFMul {half} %tf_q %tf_one")
open(sys.argv[3], "w").write(text.replace(narrow.group(0), div))
PY
"$T" run rdna2.v_fma_f16 --device $dev --shader "$tmp/f16_in_f32.spvasm" --cases 200000 --seed 3 --quiet \
    --known "$tmp/none" --findings "$tmp/f16" --json "$tmp/f16.json" >"$tmp/f16.out" 2>"$tmp/f16.err"
s=$?
[ "$s" = 1 ] && ok || bad "f16 in f32: exit $s, want 1 (double rounding disagrees): $(tail -3 "$tmp/f16.err")"
python3 - "$tmp/f16.json" <<'PY' && ok || bad "f16 in f32: verdicts"
import json, sys
found = json.load(open(sys.argv[1]))["findings"]
wrong = [f for f in found if f["verdict"] != "translation" or f["verdict_cause"] is not None
         or "own arithmetic" not in f["verdict_reason"]]
for f in wrong:
    print("f16 in f32:", f["kind"], f["verdict"], f["verdict_cause"], f["verdict_reason"], file=sys.stderr)
sys.exit(1 if wrong or not found else 0)
PY
"$T" run rdna2.v_fma_f16 --device $dev --shader "$tmp/fdiv.spvasm" --cases 20000 --seed 3 --quiet \
    --known "$tmp/none" --no-findings --json "$tmp/fdiv.json" >"$tmp/fdiv.out" 2>"$tmp/fdiv.err"
python3 - "$tmp/fdiv.json" <<'PY' && ok || bad "OpFDiv module: verdicts"
import json, sys
found = json.load(open(sys.argv[1]))["findings"]
wrong = [f for f in found if f["verdict"] != "unknown" or "OpFDiv" not in f["verdict_reason"]]
for f in wrong:
    print("OpFDiv:", f["kind"], f["verdict"], f["verdict_reason"], file=sys.stderr)
sys.exit(1 if wrong or not found else 0)
PY

# 3. --known auto against the hand-written rules: the same split, signature by signature.
expect_status 0 "characterize --known-rules" "$T" characterize --device $dev --known-rules "$tmp/derived.txt"
expect_in "$tmp/derived.txt" "verdict=translation cause=fma-unfused" "derived: the unfused Fma"
expect_in "$tmp/derived.txt" "verdict=device cause=SignedZeroInfNanPreserve-32" "derived: the folding"
"$T" run "${scalar[@]}" --device $dev --lowering direct --cases "$CASES" --seed 7 --quiet --known auto --no-findings \
    --json "$tmp/auto.json" >"$tmp/auto.out" 2>"$tmp/auto.err"
echo $? >"$tmp/auto.status"
"$T" run 'mma.*' --device $dev --lowering direct --cases "$TILES" --seed 7 --quiet --known auto --no-findings \
    --json "$tmp/auto-mma.json" >"$tmp/auto-mma.out" 2>"$tmp/auto-mma.err"
echo $? >"$tmp/auto-mma.status"
"$T" run rdna2.v_madak_f32 rdna2.v_madmk_f32 --device $dev --lowering direct --ctrl k=0 --cases 20000 --seed 7 \
    --quiet --known auto --no-findings --json "$tmp/auto-k0.json" >"$tmp/auto-k0.out" 2>"$tmp/auto-k0.err"
echo $? >"$tmp/auto-k0.status"
for run in "" -mma -k0; do
    [ "$(cat "$tmp/known$run.status")" = "$(cat "$tmp/auto$run.status")" ] && ok \
        || bad "exit status$run: corpus/known $(cat "$tmp/known$run.status"), auto $(cat "$tmp/auto$run.status")"
done
python3 - "$tmp"/{known,auto}{,-mma,-k0}.json <<'PY' \
    && ok || bad "--known auto splits as corpus/known/lavapipe.txt"
import json, sys
def split(*paths):
    found = [f for p in paths for f in json.load(open(p))["findings"]]
    return {(f["op"], f["signature"]): f["known"] for f in found}
hand, auto = split(*sys.argv[1:4]), split(*sys.argv[4:7])
diff = [(k, hand.get(k), auto.get(k)) for k in sorted(set(hand) | set(auto)) if hand.get(k) != auto.get(k)]
for d in diff:
    print("known differs (hand, auto):", d, file=sys.stderr)
print(f"{len(hand)} signatures, {sum(hand.values())} known by corpus/known, {sum(auto.values())} by auto",
      file=sys.stderr)
sys.exit(1 if diff or not hand else 0)
PY

finish triage
