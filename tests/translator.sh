#!/usr/bin/env bash
# run --translator (README, 'Bring your own translator'): a user's translation
# command asked for the module of each control setting, with the controls fuzzed.
# Usage: translator.sh TIEFUZZ DATADIR
. "$(dirname "$0")/lib.sh"
T=$1 DATA=$2
mkdir "$tmp/none"  # no known divergences
run() {  # run WANT_STATUS DESCRIPTION ARGS...: stdout $tmp/out, stderr $tmp/err
    local want=$1 what=$2; shift 2
    "$T" run "$@" --known "$tmp/none" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, want $want"; tail -20 "$tmp/err" "$tmp/out" >&2; fi
}
exact="sh $DATA/translator_exact.sh $T"
planted="sh $DATA/translator_planted.sh $T"

# The worked example: tiefuzz's own exact lowering, asked for per setting, agrees
# under fuzzed controls; the findings it would write are labelled user-shader.
run 0 "exact translator, fuzzed controls" rdna2.v_fma_f32 --translator "$exact" --cases 2000000 --seed 2 --quiet \
    --no-findings

# A translator is asked again for each K (it may fold K into its module), and
# TIEFUZZ_K agrees with the k= of TIEFUZZ_CTRL.
cat >"$tmp/log_k.sh" <<EOF
echo "\$TIEFUZZ_K \$TIEFUZZ_CTRL" >>"$tmp/k.log"
exec $exact
EOF
run 0 "exact translator, literal op" rdna2.v_fmaak_f32 --translator "sh $tmp/log_k.sh" --cases 1000000 --seed 2 \
    --quiet --no-findings
[ "$(sort -u "$tmp/k.log" | wc -l)" -ge 3 ] && ok || bad "one translation per K: $(sort -u "$tmp/k.log" | head -5)"
awk '$2 != "k=" $1 { exit 1 }' "$tmp/k.log" && ok || bad "TIEFUZZ_K is the k= of TIEFUZZ_CTRL: $(head -3 "$tmp/k.log")"

# The planted mistake needs neg's addend bit: fixed plain controls never reach it,
# fuzzed controls must, and every disagreement is at a setting with that bit.
run 0 "planted translator, fixed controls" rdna2.v_fma_f32 --translator "$planted" --ctrl none --cases 1000000 \
    --seed 2 --quiet --no-findings
run 1 "planted translator, fuzzed controls" rdna2.v_fma_f32 --translator "$planted" --cases 2000000 --seed 2 \
    --quiet --findings "$tmp/findings" --json "$tmp/planted.json"
python3 - "$tmp/planted.json" <<'PY' && ok || bad "planted disagreements all have neg & 4"
import json, sys
op = json.load(open(sys.argv[1]))["ops"][0]
kept = op["disagreements_kept"]
assert op["disagreements"] > 0 and kept, op["disagreements"]
for d in kept:
    neg = int(dict(kv.split("=") for kv in d["controls"].split(","))["neg"], 0)
    assert neg & 4, d["controls"]
PY
grep -l "^lowering user-shader" "$tmp"/findings/*.finding >/dev/null && ok || bad "findings labelled user-shader"
grep -h "^controls " "$tmp"/findings/*.finding | grep -qv "neg=[4-7]," && bad "a minimized finding lost neg & 4" || ok

# A translator that fails for one setting: exit 2 (not a crash), naming that
# setting (reached only by fuzzing: clamp=1) and quoting what it printed.
cat >"$tmp/fail.sh" <<EOF
case "\$TIEFUZZ_CTRL" in
*clamp=1*) echo "my-translator: clamp is not supported yet" >&2; exit 3 ;;
esac
exec $exact
EOF
run 2 "failing translator" rdna2.v_fma_f32 --translator "sh $tmp/fail.sh" --cases 4000000 --seed 2 --quiet \
    --no-findings
expect_in "$tmp/err" "for rdna2.v_fma_f32 --ctrl abs=[0-9]*,neg=[0-9]*,clamp=1,omod=[0-9]* --param omod=ignored: exited with status 3" \
    "failing translator: setting and status"
expect_in "$tmp/err" "| my-translator: clamp is not supported yet" "failing translator: its message"
# (STOPPED on the op's row when no case finished before the failing setting, else a "stopped:" line)
expect_in "$tmp/out" "[Ss][Tt][Oo][Pp][Pp][Ee][Dd]: --translator '.*' for rdna2.v_fma_f32 --ctrl [^ ]*clamp=1" \
    "failing translator: the summary says why the op stopped"

# Invalid modules are refused as --shader's are, with the setting named.
cat >"$tmp/garbage.sh" <<'EOF'
echo "this is not SPIR-V" >"$TIEFUZZ_OUT"
EOF
run 2 "translator writing garbage" rdna2.v_fma_f32 --translator "sh $tmp/garbage.sh" --cases 1000 --no-findings
expect_in "$tmp/err" "the module for rdna2.v_fma_f32 --ctrl abs=0,neg=0,clamp=0,omod=0 --param omod=ignored: " \
    "garbage module: setting named"
cat >"$tmp/no_main.sh" <<EOF
$T shader "\$TIEFUZZ_OP" --ctrl "\$TIEFUZZ_CTRL" -o "$tmp/nm.spvasm" && sed 's/"main"/"other"/' "$tmp/nm.spvasm" >"\$TIEFUZZ_OUT"
EOF
run 2 "translator renaming main" rdna2.v_fma_f32 --translator "sh $tmp/no_main.sh" --cases 1000 --no-findings
expect_in "$tmp/err" "does not fit the tiefuzz shader interface: no GLCompute entry point named \"main\"" "interface check"
run 2 "translator writing nothing" rdna2.v_fma_f32 --translator true --cases 1000 --no-findings
expect_in "$tmp/err" "exited 0 but wrote no module to \$TIEFUZZ_OUT (it printed nothing)" "no module"

# A translator that hangs is killed with what it started, after --timeout.
cat >"$tmp/hang.sh" <<EOF
sleep 60 &
echo \$! >"$tmp/hang.pid"
wait
EOF
start=$(date +%s)
run 2 "hanging translator" rdna2.v_fma_f32 --translator "sh $tmp/hang.sh" --timeout 1s --cases 1000 --no-findings
[ $(($(date +%s) - start)) -lt 20 ] && ok || bad "hanging translator: not stopped within 20 s"
expect_in "$tmp/err" "did not finish within 1 s (killed)" "hanging translator: timeout named"
sleep 0.5
state=$(ps -o stat= -p "$(cat "$tmp/hang.pid")")  # gone, or a zombie its new parent has not reaped yet
case "$state" in "" | Z*) ok ;; *) bad "the translator's child survived the timeout: $state" ;; esac

# Usage.
run 2 "--shader and --translator" rdna2.v_fma_f32 --translator true --shader "$tmp/x.spv" --cases 10
# With --jobs each worker asks the translator for its own settings; the parent labels the merged
# findings user-shader as one process does, and finds the planted mistake as one process does.
run 1 "planted translator, --jobs 2" rdna2.v_fma_f32 --translator "$planted" --cases 2000000 --seed 2 --jobs 2 \
    --quiet --findings "$tmp/findings-jobs" --json "$tmp/planted-jobs.json"
python3 - "$tmp/planted.json" "$tmp/planted-jobs.json" <<'PY' && ok || bad "--jobs 2: the same disagreements as one process"
import json, sys
one, two = (json.load(open(p))["ops"][0] for p in sys.argv[1:3])
assert (one["cases"], one["disagreements"]) == (two["cases"], two["disagreements"]), (one["disagreements"], two["disagreements"])
PY
ls "$tmp"/findings-jobs/*.finding >/dev/null 2>&1 && ! grep -L "^lowering user-shader" "$tmp"/findings-jobs/*.finding | grep -q . \
    && ok || bad "--jobs 2: no findings, or one not labelled user-shader"
finish translator
