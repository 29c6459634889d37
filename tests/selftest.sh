#!/usr/bin/env bash
# tiefuzz selftest: the fast paths agree with the exact model on every op
# that has one (TIEFUZZ_SELFTEST_CASES per op, default 400,000: classes cycle,
# controls and parameters change every 4,096 cases); bad usage is refused; and
# a planted fast-path mistake (tiefuzz-planted) is caught and named.
# Usage: selftest.sh TIEFUZZ TIEFUZZ_PLANTED
set -u
T=$1 P=$2
cases=${TIEFUZZ_SELFTEST_CASES:-400000}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$T" selftest --cases "$cases" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
[ "$rc" = 0 ] && ok || bad "selftest exit $rc: $(head -c 600 "$tmp/err")"
# Every op with a fast path was compared on all its cases, with no difference.
compared=$(grep -c " $cases cases      0 differences" "$tmp/out")
fast_ops=$(grep -c "^rdna2\.\|^maxwell\." "$tmp/out")
[ "$compared" -ge 22 ] && [ "$compared" = "$fast_ops" ] && ok || bad "$compared ops compared in full of $fast_ops"
grep -q "no fast path" "$tmp/out" && ok || bad "ops without a fast path are not named"

"$T" selftest 'nosuch.*' >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "no op matches 'nosuch.\*'" "$tmp/err" && ok || bad "unknown glob: $(cat "$tmp/err")"
"$T" selftest --cases 0 >/dev/null 2>&1
[ $? = 2 ] && ok || bad "--cases 0 accepted"
"$T" selftest v_fma_f32 --ctrl frob=1 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && ok || bad "bad --ctrl accepted"

# The planted mistake: f32 ties with a unit below 2^-100 round away from zero
# in the fast path of the fused f32 forms.
"$P" selftest rdna2.v_fma_f32 --cases 20000 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 4 ] && ok || bad "planted mistake: selftest exit $rc, want 4"
grep -q "the fast path and the exact model differ on rdna2.v_fma_f32 --ctrl .* tuple [0-9a-f]\{8\} [0-9a-f]\{8\} [0-9a-f]\{8\}: outputs" "$tmp/err" \
    && ok || bad "planted mistake not named with its tuple: $(head -c 600 "$tmp/err")"
# ...and not in an op whose fast path has no mistake.
"$P" selftest rdna2.v_mad_f32 --cases 20000 >/dev/null 2>&1
[ $? = 0 ] && ok || bad "planted build: v_mad_f32 should agree"

echo "selftest: $pass passed, $fail failed"
[ "$fail" = 0 ]
