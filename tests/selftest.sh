#!/usr/bin/env bash
# tiefuzz selftest: the fast paths agree with the exact model on every op
# that has one (TIEFUZZ_SELFTEST_CASES per op, default 400,000: classes cycle,
# controls and parameters change every 4,096 cases; TIEFUZZ_SELFTEST_TILES per
# tensor-core op, default 3,000, parameters every 64 tiles); bad usage is refused; and
# a planted fast-path mistake (tiefuzz-planted) is caught and named, for a
# scalar op and for a tile op.
# Usage: selftest.sh TIEFUZZ TIEFUZZ_PLANTED
. "$(dirname "$0")/lib.sh"
T=$1 P=$2
cases=${TIEFUZZ_SELFTEST_CASES:-400000}
tiles=${TIEFUZZ_SELFTEST_TILES:-3000}

"$T" selftest --cases "$cases" --tiles "$tiles" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
[ "$rc" = 0 ] && ok || bad "selftest exit $rc: $(head -c 600 "$tmp/err")"
# Every op was compared on all its cases (the tensor-core ops on all their
# tiles), with no difference: every family has a fast path.
compared=$(grep -c "^\(rdna2\|maxwell\)\..* $cases cases      0 differences" "$tmp/out")
scalar_ops=$(grep -c "^rdna2\.\|^maxwell\." "$tmp/out")
[ "$compared" -ge 22 ] && [ "$compared" = "$scalar_ops" ] && ok || bad "$compared ops compared in full of $scalar_ops"
tiles_compared=$(grep -c "^mma\..* $tiles cases      0 differences   generated .* K tiles/s" "$tmp/out")
tile_ops=$(grep -c "^mma\." "$tmp/out")
[ "$tiles_compared" -ge 13 ] && [ "$tiles_compared" = "$tile_ops" ] && ok || bad "$tiles_compared tile ops compared in full of $tile_ops"
grep -q "$cases cases each; $tiles tiles each for the $tile_ops tile ops" "$tmp/out" && ok || bad "summary line: $(tail -1 "$tmp/out")"
! grep -q "no fast path" "$tmp/out" && ok || bad "an op without a fast path: $(grep "no fast path" "$tmp/out")"
# Exactly one line per op of the registry, in its order.
"$T" ops --json | python3 -c 'import json, sys; [print(o["name"]) for o in json.load(sys.stdin)["ops"]]' >"$tmp/ops"
grep -v " ops compared" "$tmp/out" | awk '{print $1}' >"$tmp/lines"
[ -s "$tmp/ops" ] && cmp -s "$tmp/ops" "$tmp/lines" && ok || bad "not one line per op: $(diff "$tmp/ops" "$tmp/lines" | head -5)"
"$T" selftest --help >"$tmp/out" 2>&1
[ $? = 0 ] && grep -q "^usage: tiefuzz selftest" "$tmp/out" && ok || bad "--help"

"$T" selftest 'nosuch.*' >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "no op matches 'nosuch.\*'" "$tmp/err" && ok || bad "unknown glob: $(cat "$tmp/err")"
"$T" selftest --cases 0 >/dev/null 2>&1
[ $? = 2 ] && ok || bad "--cases 0 accepted"
"$T" selftest v_fma_f32 --ctrl frob=1 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "tiefuzz selftest: --ctrl: .*frob" "$tmp/err" && ok || bad "bad --ctrl: $(cat "$tmp/err")"
"$T" selftest v_fma_f32 --param omod=frob >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "tiefuzz selftest: --param: " "$tmp/err" && ok || bad "bad --param: $(cat "$tmp/err")"
for args in "--gen frob" "--seed x" "--threads 0" "--frob" "--cases" "--tiles 0" "--tiles x"; do
    "$T" selftest v_fma_f32 $args >/dev/null 2>"$tmp/err"
    [ $? = 2 ] && grep -q "tiefuzz selftest: " "$tmp/err" && ok || bad "selftest $args: $(cat "$tmp/err")"
done

# The planted mistake: f32 ties with a unit below 2^-100 round away from zero
# in the fast path of the fused f32 forms.
"$P" selftest rdna2.v_fma_f32 --cases 20000 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 4 ] && ok || bad "planted mistake: selftest exit $rc, want 4"
grep -q "the fast path and the exact model differ on rdna2.v_fma_f32 --ctrl .* tuple [0-9a-f]\{8\} [0-9a-f]\{8\} [0-9a-f]\{8\}: outputs" "$tmp/err" \
    && ok || bad "planted mistake not named with its tuple: $(head -c 600 "$tmp/err")"
# The differences shown are the lowest case indices, whatever the thread count.
"$P" selftest rdna2.v_fma_f32 --cases 20000 --threads 1 >/dev/null 2>"$tmp/err1"
"$P" selftest rdna2.v_fma_f32 --cases 20000 --threads 3 >/dev/null 2>"$tmp/err3"
head -n 3 "$tmp/err1" >"$tmp/first1"
head -n 3 "$tmp/err3" >"$tmp/first3"
grep -q "(case [0-9]* of seed 1)$" "$tmp/first1" && cmp -s "$tmp/first1" "$tmp/first3" \
    && ok || bad "planted mistake: first differences depend on the thread count"
# ...and not in an op whose fast path has no mistake.
"$P" selftest rdna2.v_mad_f32 --cases 20000 >/dev/null 2>&1
[ $? = 0 ] && ok || bad "planted build: v_mad_f32 should agree"

# The tiles' planted mistake (switched on by TIEFUZZ_PLANT_TILE): f16 ties
# with an odd kept significand round half down in the fast path.
tile=mma.volta.m8n8k4.f16.f16.f16.f16
TIEFUZZ_PLANT_TILE=1 "$P" selftest "$tile" --tiles 2000 >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 4 ] && grep -q "the fast path and the exact model differ on $tile --ctrl none --param F=.* tuple [0-9a-f]\{8\} " "$tmp/err" \
    && ok || bad "planted tile mistake: selftest exit $rc, want 4 naming the tile: $(head -c 400 "$tmp/err")"
"$P" selftest "$tile" --tiles 2000 >/dev/null 2>&1
[ $? = 0 ] && ok || bad "planted build without TIEFUZZ_PLANT_TILE: $tile should agree"

finish selftest
