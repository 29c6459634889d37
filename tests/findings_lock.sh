#!/usr/bin/env bash
# One writer a findings directory (no device needed): while another process
# holds DIR/.tiefuzz.lock, `run --findings DIR` and `merge -o DIR` refuse at
# once (exit 2) naming DIR and the holder's pid, and write nothing; once it
# is released they go ahead, and the lock file names the last holder.
# Usage: findings_lock.sh TIEFUZZ SOURCE_DIR
. "$(dirname "$0")/lib.sh"
T=$1
SRC=$2
holder=
on_exit '[ -n "$holder" ] && kill "$holder" 2>/dev/null'

mkdir "$tmp/in" "$tmp/out" "$tmp/none"
cp "$SRC"/corpus/fuzz/formats/rdna2.v_fma_f32-*.finding "$tmp/in/"
lock=$tmp/out/.tiefuzz.lock

# Another process holds the lock (flock(1) takes the same flock(2) lock) and
# has written its pid, as a tiefuzz run does; the subshell becomes the sleep,
# so killing $holder releases the lock.
(exec 9>>"$lock"; flock 9; echo 'pid 4242' >"$lock"; exec sleep 60) &
holder=$!
for _ in $(seq 50); do grep -q 4242 "$lock" 2>/dev/null && break; sleep 0.1; done

"$T" merge "$tmp/in" -o "$tmp/out" >"$tmp/stdout" 2>"$tmp/err"
got=$?
[ "$got" = 2 ] && ok || bad "merge into a locked directory: exit $got, want 2"
grep -q "findings directory $tmp/out is in use .*(pid 4242)" "$tmp/err" && ok \
    || bad "merge's refusal names the directory and the holder's pid: $(cat "$tmp/err")"
[ -z "$(ls "$tmp/out")" ] && ok || bad "merge wrote into a locked directory: $(ls "$tmp/out")"

# run refuses before it opens a device, whatever the ops: no Vulkan needed.
"$T" run rdna2.v_fma_f32 --cases 1000 --quiet --known "$tmp/none" --findings "$tmp/out" >"$tmp/stdout" 2>"$tmp/err"
got=$?
[ "$got" = 2 ] && ok || bad "run on a locked findings directory: exit $got, want 2"
grep -q "findings directory $tmp/out is in use .*(pid 4242)" "$tmp/err" && ok \
    || bad "run's refusal names the directory and the holder's pid: $(cat "$tmp/err")"

kill "$holder"
wait "$holder" 2>/dev/null
holder=

# Released: the merge goes ahead and leaves its own pid in the lock file.
"$T" merge "$tmp/in" -o "$tmp/out" >"$tmp/stdout" 2>"$tmp/err" &
pid=$!
wait "$pid"
got=$?
[ "$got" = 0 ] && ok || bad "merge after the holder ended: exit $got; $(cat "$tmp/err")"
[ "$(ls "$tmp/out"/*.finding | wc -l)" = 3 ] && ok || bad "merge after the holder ended wrote $(ls "$tmp/out")"
grep -qx "pid $pid" "$lock" && ok || bad "the lock file names the merge's pid $pid: $(cat "$lock")"

# A merge into a new directory makes and locks it.
"$T" merge "$tmp/in" -o "$tmp/new" >"$tmp/stdout" 2>"$tmp/err" && [ -f "$tmp/new/.tiefuzz.lock" ] && ok \
    || bad "merge into a new directory: $(cat "$tmp/err")"

finish
