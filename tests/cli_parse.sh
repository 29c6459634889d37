#!/usr/bin/env bash
# Input parsing that needs no device (issue 11, item 11): the class lists in help and messages,
# out-of-range --seed / --cases, duplicate --ctrl / --param names, and user bytes echoed escaped.
# Usage: cli_parse.sh TIEFUZZ
. "$(dirname "$0")/lib.sh"
T=$1
export LC_ALL=C
# Every run below must stop at its arguments: should one get past them, no device matches.
RUN="run --device no-such-device --cases 1"
# expect WANT_STATUS TEXT CMD...: the exit status, and TEXT (fixed string) in stdout or stderr.
expect() {
    local want=$1 text=$2; shift 2
    timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" != "$want" ]; then
        bad "$(printf "%q " "$@"): exit $got, want $want; stderr: $(head -c 300 "$tmp/err")"
    elif ! grep -qF -- "$text" "$tmp/out" "$tmp/err"; then
        bad "$(printf "%q " "$@"): '$text' not in: $(head -c 300 "$tmp/out" "$tmp/err")"
    else
        ok
    fi
}
# no_raw_bytes WHAT: what the last command printed holds no byte outside printable ASCII and newline.
no_raw_bytes() {
    if grep -q '[^ -~]' "$tmp/out" "$tmp/err"; then bad "$1: raw bytes echoed: $(od -c "$tmp/err" | head -3)"; else ok; fi
}

# Help and the --gen message name every class: the union of the classes 'ops --json' gives the ops.
classes=$("$T" ops --json | python3 -c '
import json, sys
print(" ".join(sorted({c for o in json.load(sys.stdin)["ops"] for c in o["classes"]})))')
[ -n "$classes" ] && ok || bad "ops --json lists no classes"
for cmd in "gen --help" "run --help" "selftest --help" "gen v_fma_f32 --gen ties" "$RUN --gen ties" \
           "selftest --gen ties"; do
    timeout 20 $T $cmd >"$tmp/out" 2>&1
    for c in $classes; do
        grep -qE -- "(^|[ (:])$c([ ,.)]|$)" "$tmp/out" && ok || bad "'$cmd' does not list class $c: $(grep -i class "$tmp/out" | head -c 300)"
    done
done
expect 2 "--gen 'ties': unknown class 'ties'" "$T" gen v_fma_f32 --gen ties
# Lists past 64 entries are refused, not cut; a name too long to be a class is named (issue 11, item 12).
expect 2 "more than 64 classes" "$T" gen v_fma_f32 --gen all,all,all,all,all
expect 2 "unknown class 'tie-tie-tie-tie-tie-tie-tie-tie-tie'" "$T" gen v_fma_f32 --gen tie-tie-tie-tie-tie-tie-tie-tie-tie
expect 0 "" "$T" gen v_fma_f32 --gen all,all,all,all -n 1

# --seed: 0 to 2^64 - 1, digits only (strtoull would saturate, skip spaces, take a sign).
for cmd in "gen v_fma_f32" "$RUN v_fma_f32" "selftest --cases 1 v_fma_f32"; do
    expect 2 "--seed '18446744073709551616': expected a number from 0 to 18446744073709551615" \
        $T $cmd --seed 18446744073709551616
done
expect 0 "--seed 18446744073709551615" "$T" gen v_fma_f32 --seed 18446744073709551615 -n 1
expect 2 "--seed ' 5'" "$T" gen v_fma_f32 --seed ' 5'
expect 2 "--seed '+5'" "$T" gen v_fma_f32 --seed +5
expect 2 "--seed '-1'" "$T" selftest --cases 1 v_fma_f32 --seed -1
expect 2 "tiefuzz gen: --seed needs a value" "$T" gen v_fma_f32 --seed

# --cases: 1 to 2^62.
for v in 100000000000000000000000 1e23 4611686018427387905 0; do
    expect 2 "--cases '$v': expected a number from 1 to 4611686018427387904" "$T" run --device no-such-device \
        --cases "$v" v_fma_f32
    expect 2 "--cases '$v': expected a number from 1 to 4611686018427387904" "$T" selftest --cases "$v" v_fma_f32
done
expect 0 " 1 cases      0 differences" "$T" selftest rdna2.v_fma_f32 --cases 1 --threads 1
expect 2 "give --cases or --time, not both" "$T" $RUN --time 1s

# A control or parameter named twice is refused, whichever command parses it.
for cmd in "eval v_fma_f32" "gen v_fma_f32" "$RUN v_fma_f32" "selftest --cases 1 v_fma_f32"; do
    expect 2 "--ctrl: control neg given twice (neg=1, then neg=2)" $T $cmd --ctrl neg=1,neg=2
done
expect 2 "--ctrl: control neg given twice (neg=1, then neg=1)" "$T" gen v_fma_f32 --ctrl neg=1,abs=2,neg=1
expect 2 "--param: model parameter omod given twice (omod=ignored, then omod=applied)" \
    "$T" gen v_fma_f32 --param omod=ignored,omod=applied
expect 0 "--ctrl abs=2,neg=1," "$T" gen v_fma_f32 --ctrl neg=1,abs=2 -n 1

# User text with bytes outside printable ASCII is echoed as \xHH, never raw.
ff=$'\xff'
expect 2 "unknown op 'v_fma\\xff'" "$T" eval "v_fma$ff" 1 2 3; no_raw_bytes "eval unknown op"
expect 2 "unknown class 'tie\\xff'" "$T" gen v_fma_f32 --gen "tie$ff"; no_raw_bytes "gen --gen"
expect 2 "word 1 '3f8\\xff': expected one hex word" "$T" eval v_fma_f32 "3f8$ff" 1 2; no_raw_bytes "eval word"
printf '3f800000 1 \xff\n' >"$tmp/in"
expect 2 "found '\\xff'" "$T" eval v_fma_f32 --batch "$tmp/in"; no_raw_bytes "eval --batch line"
expect 2 "unknown command 'ev\\xffal'" "$T" "ev${ff}al"; no_raw_bytes "unknown command"
expect 2 "no op matches 'v_\\x1b[31mfma'" "$T" $RUN $'v_\x1b[31mfma'; no_raw_bytes "run glob"
expect 2 "no op matches 'v_fma\\xff'" "$T" selftest --cases 1 "v_fma$ff"; no_raw_bytes "selftest glob"
for cmd in "gen v_fma_f32" "$RUN v_fma_f32" "selftest --cases 1 v_fma_f32"; do
    expect 2 "--ctrl: control list: byte 0xff at position 5 is not printable ASCII" $T $cmd --ctrl "neg=$ff"
    no_raw_bytes "$cmd --ctrl"
done
expect 2 "--param: model parameter list: byte 0x0a at position 6" "$T" gen v_fma_f32 --param $'omod=\n'
no_raw_bytes "gen --param"
expect 2 "--seed '\\xff': expected a number" "$T" gen v_fma_f32 --seed "$ff"; no_raw_bytes "gen --seed"

# The stack: generation keeps its 1,024-case blocks there (about 250-300 KB deep). run and
# selftest raise a soft limit below 8 MB as far as the hard one allows (a 100K-case selftest
# passes under 128 KB, which it did not before it was raised); one that cannot rise to 1 MB
# is refused, named, not a crash; and a command that generates nothing runs under it.  Where
# this machine's own hard limit is under 1 MB, the raise cannot be shown, and the refusal is
# what must happen under it instead.
hard=$(ulimit -Hs)
if [ "$hard" = unlimited ] || [ "$hard" -ge 1024 ]; then
    expect 0 "0 differences" bash -c "ulimit -S -s 128 && exec \"\$0\" selftest --cases 100000 v_pk_fma_f16 v_fma_f32" "$T"
else
    expect 2 "the stack's hard limit is $hard KB" \
        bash -c "ulimit -S -s 128 && exec \"\$0\" selftest --cases 100000 v_pk_fma_f16 v_fma_f32" "$T"
fi
expect 2 "tiefuzz selftest: the stack's hard limit is 256 KB, below the 1024 KB" \
    bash -c "ulimit -s 256 && exec \"\$0\" selftest --cases 1000 v_fma_f32" "$T"
expect 2 "tiefuzz run: the stack's hard limit is 256 KB" \
    bash -c "ulimit -s 256 && exec \"\$0\" run --cases 1000 v_fma_f32" "$T"
expect 0 "rdna2.v_fma_f32" bash -c "ulimit -s 256 && exec \"\$0\" ops" "$T"

finish cli-parse
