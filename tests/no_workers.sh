#!/usr/bin/env bash
# A campaign with no worker thread (pthread_create refusing them, as at a process's thread limit)
# runs on its main thread alone, generating while the device runs a batch: the same cases, report
# and exit status as with its workers (run_batches' fallback, which nothing else reaches).
# Usage: no_workers.sh TIEFUZZ SHIM
. "$(dirname "$0")/lib.sh"
T=$1 SHIM=$2
mkdir "$tmp/none"  # an empty rule directory: lavapipe's unfused Fma counts as disagreement
for op in maxwell.xmad rdna2.v_fma_f32; do
    args=(run "$op" --cases 300000 --batch 4096 --known "$tmp/none" --no-findings --keep 50 --quiet)
    "$T" "${args[@]}" --json "$tmp/with.json" >/dev/null 2>"$tmp/err1"
    rc1=$?
    NO_WORKERS_COUNT="$tmp/count" LD_PRELOAD="$SHIM" timeout -s KILL 120 "$T" "${args[@]}" --json "$tmp/without.json" \
        >/dev/null 2>"$tmp/err2"
    rc2=$?
    [ "$rc1" = "$rc2" ] && ok || bad "$op: exit $rc2 with no worker, $rc1 with them; $(head -c 300 "$tmp/err2")"
    [ -s "$tmp/count" ] && ok || bad "$op: the preload refused no thread"
    rm -f "$tmp/count"
    python3 - "$tmp/with.json" "$tmp/without.json" <<'PY' && ok || bad "$op: the report differs with no worker"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    for o in d["ops"]:
        o.pop("seconds"), o.pop("cpu_seconds")
assert a["ops"][0]["cases"] == 300000, a["ops"][0]["cases"]
assert a == b, [k for k in a if a[k] != b[k]]
PY
done
finish no-workers
