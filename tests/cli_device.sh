#!/usr/bin/env bash
# Campaigns on the default device (lavapipe in CI), validation layer on.
# Usage: cli_device.sh TIEFUZZ DATADIR
. "$(dirname "$0")/lib.sh"
T=$1 DATA=$2
mkdir "$tmp/none"  # an empty rule directory: no known divergences
run() {  # run WANT_STATUS DESCRIPTION ARGS...
    local want=$1 what=$2; shift 2
    "$T" run "$@" --validate >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, want $want"; tail -20 "$tmp/err" "$tmp/out" >&2; fi
}

"$T" devices --json >"$tmp/dev.json" && ok || bad "devices --json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["devices"] and any(x["default"] for x in d["devices"])' \
    "$tmp/dev.json" && ok || bad "devices --json content"
default=$(python3 -c 'import json,sys; print([x["name"] for x in json.load(open(sys.argv[1]))["devices"] if x["default"]][0])' "$tmp/dev.json")
echo "default device: $default"

# Acceptance: every op, exact lowering, 1M cases each: zero disagreements.
run 0 "exact lowering, 1M cases per op" 'rdna2.*' --lowering exact --cases 1000000 --quiet --json "$tmp/exact.json"
python3 - "$tmp/exact.json" <<'PY' && ok || bad "exact campaign report"
import json, sys
d = json.load(open(sys.argv[1]))
ops = [o for o in d["ops"] if o["skipped"] is None]
assert len(ops) == 16, len(ops)
for o in ops:
    assert o["cases"] == 1000000 and o["disagreements"] == 0, o["op"]
    assert o["classes"]["tie"]["rate"] >= 0.9, (o["op"], o["classes"]["tie"])
    assert "RoundingModeRTE" in o["declared"], o["declared"]
    assert o["rounding_cells"] >= 20, (o["op"], o["rounding_cells"])
PY
cat "$tmp/out"

# Rounding cells: the targeted generator reaches more of them than uniform random bits.
run 0 "random-only campaign" rdna2.v_fma_f32 --gen random --lowering exact --cases 1000000 --quiet --json "$tmp/random.json" --no-findings
python3 - "$tmp/exact.json" "$tmp/random.json" <<'PY' && ok || bad "targeted generation reaches more rounding cells than random"
import json, sys
targeted = next(o for o in json.load(open(sys.argv[1]))["ops"] if o["op"] == "rdna2.v_fma_f32")
rand = json.load(open(sys.argv[2]))["ops"][0]
assert targeted["rounding_cells"] >= rand["rounding_cells"] + 10, (targeted["rounding_cells"], rand["rounding_cells"])
PY

# Tensor-core ops, emulated lowering: every class, zero disagreements (1M tiles each: scripts/bench --mma).
# 2,000 tiles an op (250 or 333 of each of its 6 or 8 classes): lowerings planted with F or e_zero one
# off, f16 ties rounded up, or inf - inf not NaN disagree first within tile 30 of every op they reach,
# in 150-1,900 of the 2,000 tiles; 20,000 tiles took 48 of this test's 97 s and found no more.
run 0 "mma exact, 2,000 tiles per op" 'mma.*' --lowering exact --cases 2000 --quiet
cat "$tmp/out"

# Acceptance (Maxwell): every integer op, 1M cases each, zero disagreements.
run 0 "maxwell exact, 1M cases per op" 'maxwell.*' --lowering exact --cases 1000000 --quiet
cat "$tmp/out"

# A --known the user names must exist (it used to be ignored: every known divergence became new).
run 2 "--known missing" rdna2.v_fma_f32 --cases 1000 --quiet --no-findings --known "$tmp/no-such-dir"
grep -q "known divergences: .*no-such-dir: No such file or directory" "$tmp/err" && ok || bad "--known missing: not named"

case "$default" in
llvmpipe*)
    # lavapipe computes GLSL.std.450 Fma unfused (Vulkan allows it): direct must disagree
    # (without the known-divergence rules, which would report it as known and exit 0).
    run 1 "direct v_fma_f32 disagrees" rdna2.v_fma_f32 --lowering direct --cases 100000 --show 1 --known "$tmp/none" --no-findings
    # The first disagreement shown says where the exact value lies against the tie (which class's
    # case comes first depends on the cases a seed gives).
    grep -Eq "position (below-tie|tie|above-tie)" "$tmp/err" && grep -q "distance to tie" "$tmp/err" && ok \
        || bad "disagreement explained"
    # A hand-written f16 translation with native f16 Fma disagrees too ...
    run 1 "native f16 Fma shader disagrees" rdna2.v_fma_f16 --shader "$DATA/v_fma_f16_native.spvasm" --cases 100000 --quiet --no-findings
    # The legacy K forms with K = +0 or a subnormal (flushed to +0): lavapipe folds x*0.0 and
    # x+0.0 despite SignedZeroInfNanPreserve.  A known divergence in corpus/known (the README's
    # first command, scripts/run, met it as a new finding); without the rules it disagrees.
    for k in 0x00000000 0x00400000; do
        run 1 "v_madmk_f32 k=$k folds, no rules" rdna2.v_madmk_f32 --ctrl k=$k --cases 100000 --quiet --no-findings --known "$tmp/none"
        run 0 "v_madmk_f32 k=$k is known" rdna2.v_madmk_f32 --ctrl k=$k --cases 100000 --quiet --no-findings
        grep -q "known divergences" "$tmp/out" && ok || bad "v_madmk_f32 k=$k: not reported as known"
        run 1 "v_madak_f32 k=$k folds, no rules" rdna2.v_madak_f32 --ctrl k=$k --cases 100000 --quiet --no-findings --known "$tmp/none"
        run 0 "v_madak_f32 k=$k is known" rdna2.v_madak_f32 --ctrl k=$k --cases 100000 --quiet --no-findings
    done
    ;;
*)
    echo "skipped: direct-lowering expectations are lavapipe's (default device is '$default')"
    ;;
esac
# ... and the built-in direct module, written out and given back, agrees wherever the built-in one does.
"$T" shader rdna2.v_fma_f16 --lowering direct -o "$tmp/direct.spvasm" && ok || bad "shader -o"
run 0 "built-in module through --shader" rdna2.v_fma_f16 --lowering direct --cases 100000 --quiet
run 0 "the same module as --shader" rdna2.v_fma_f16 --shader "$tmp/direct.spvasm" --cases 100000 --quiet
printf 'OpCapability Shader\nthis is not SPIR-V\n' >"$tmp/broken.spvasm"
run 2 "broken shader rejected" rdna2.v_fma_f16 --shader "$tmp/broken.spvasm" --cases 10
grep -q "broken.spvasm" "$tmp/err" && ok || bad "broken shader named"
# A LocalSize past the device's limits is refused, not run into a false finding (issue 11, item 6).
for size in "4294967295 1 1" "64 64 64" "64 0 1"; do
    sed "s/LocalSize [0-9]* [0-9]* [0-9]*/LocalSize $size/" "$tmp/direct.spvasm" >"$tmp/big.spvasm"
    run 2 "LocalSize $size refused" rdna2.v_fma_f16 --shader "$tmp/big.spvasm" --cases 10 --no-findings
    grep -q "big.spvasm: LocalSize $size: " "$tmp/err" && ok || bad "LocalSize $size: $(cat "$tmp/err")"
done
# A batch that does not finish in --timeout: the device is abandoned (not waited for, not torn
# down under the running work, which crashed in the driver before), the summary says why, exit 3.
start=$SECONDS
run 3 "batch timeout" maxwell.imad_hi_u32 --shader "$DATA/slow_imad_hi.spvasm" --timeout 1s --cases 200000 --no-findings
[ $((SECONDS - start)) -lt 30 ] && grep -q "did not finish a batch within 1000 ms" "$tmp/err" \
    && grep -q "maxwell.imad_hi_u32 .*STOPPED: .*did not finish" "$tmp/out" && ok \
    || bad "batch timeout: $((SECONDS - start)) s, message or summary missing"
run 2 "shader needs one op" 'rdna2.v_fma_*' --shader "$tmp/direct.spvasm" --cases 10

# These need disagreements: lavapipe's unfused Fma gives them (a device whose Fma is
# fused agrees on every case).
case "$default" in
llvmpipe*)
    # Same seed, same cases, whatever the batch size (one chunk of the check or
    # many, one thread or two): the same disagreements, and each counted under
    # the same key (a key out of step with its case moves counts between kinds).
    run 1 "batch 777" rdna2.v_fma_f32 --cases 30000 --batch 777 --keep 100000 --json "$tmp/b1.json" --quiet --known "$tmp/none" --no-findings
    run 1 "batch 65536" rdna2.v_fma_f32 --cases 30000 --keep 100000 --json "$tmp/b2.json" --quiet --known "$tmp/none" --no-findings
    python3 - "$tmp/b1.json" "$tmp/b2.json" <<'PY' && ok || bad "disagreements independent of batch size"
import json, sys
a, b = (json.load(open(p))["ops"][0]["disagreements_kept"] for p in sys.argv[1:3])
assert a and [x["case"] for x in a] == [x["case"] for x in b]
assert [x["input"] for x in a] == [x["input"] for x in b]
f1, f2 = (sorted((f["signature"], f["kind"], f["count"]) for f in json.load(open(p))["findings"]) for p in sys.argv[1:3])
assert f1 and f1 == f2, (f1, f2)
PY
    # The same with the findings written: each new signature is minimized on the
    # device in the middle of its batch, and the batch's later disagreements are
    # kept with the device's outputs as the device wrote them all the same
    # (check reads them from the batch's own buffer, which minimization must
    # not touch).
    run 1 "batch 65536, findings written" rdna2.v_fma_f32 --cases 30000 --keep 100000 --json "$tmp/b3.json" --quiet \
        --known "$tmp/none" --findings "$tmp/b3-findings"
    python3 - "$tmp/b2.json" "$tmp/b3.json" <<'PY' && ok || bad "kept disagreements the same with findings minimized"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ka, kb = (d["ops"][0]["disagreements_kept"] for d in (a, b))
assert ka and ka == kb, "kept disagreements differ"
assert len(b["findings"]) >= 5 and all(f["file"] for f in b["findings"]), "no findings written"
f1, f2 = (sorted((f["signature"], f["kind"], f["count"]) for f in d["findings"]) for d in (a, b))
assert f1 == f2, (f1, f2)
PY
    ;;
*)
    echo "skipped: the batch-size and minimization checks need lavapipe's disagreements (default device is '$default')"
    ;;
esac
# A --batch smaller than one tile (a tile op has 320 input words): the batch
# buffers still hold one tuple, so the run runs its cases (it used to submit
# empty batches forever).
timeout 120 "$T" run mma.ampere.m16n8k16.f32.f16.f16.f32 --batch 8 --cases 3 --quiet --known "$tmp/none" \
    --no-findings --json "$tmp/tile-batch.json" >"$tmp/out" 2>"$tmp/err"
got=$?
[ "$got" = 0 ] && python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["ops"][0]["cases"] == 3' \
    "$tmp/tile-batch.json" && ok || bad "tile op with --batch 8: exit $got (124: it hung), want 0 and 3 cases"

# Memory follows what a run keeps, not what it might: under a perturbing malloc (meson's
# MALLOC_PERTURB_ touches every block it hands out), a findings run peaked at 3 GB when each
# minimization sized its buffers by the device's capacity and --keep's array was allocated whole.
# (The bound is about twice lavapipe's need: a GPU driver's own allocations may need it raised.)
peak_mb() {  # peak_mb WANT ARGS...: run tiefuzz with ARGS; print its peak resident size in MB (Linux:
             # KB in ru_maxrss), or "exit N" when its status was not WANT
    local want=$1; shift
    MALLOC_PERTURB_=64 python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024 if rc == int(sys.argv[1]) else f"exit {rc}")' \
        "$want" "$T" run "$@"
}
# Lavapipe's unfused Fma disagrees with the direct lowering: exit 1 and findings (0 on an exact device).
want=1; case "$default" in llvmpipe*) ;; *) want=0 ;; esac
mb=$(peak_mb $want rdna2.v_fma_f32 --cases 300000 --quiet --known "$tmp/none" --findings "$tmp/f-mem")
[[ $mb =~ ^[0-9]+$ ]] && [ "$mb" -lt 250 ] && { [ $want = 0 ] || [ -n "$(ls "$tmp/f-mem")" ]; } && ok \
    || bad "a findings run: $mb (want exit $want, under 250 MB)"
mb=$(peak_mb 0 rdna2.v_fma_f32 --lowering exact --cases 300000 --quiet --no-findings --keep 1000000)
[[ $mb =~ ^[0-9]+$ ]] && [ "$mb" -lt 250 ] && ok || bad "--keep 1000000 with no disagreements: $mb (want exit 0, under 250 MB)"

# Two shards cover exactly what one run does, with no overlap.
for sh in none 0/2 1/2; do
    extra=(); [ "$sh" = none ] || extra=(--shard "$sh")
    run 1 "shard $sh" rdna2.v_fma_f32 --cases 600000 --quiet --known "$tmp/none" --findings "$tmp/f-${sh/\//-}" \
        --keep 1000000 --json "$tmp/shard-${sh/\//-}.json" "${extra[@]}"
done
python3 - "$tmp" <<'PY' && ok || bad "shards 0/2 and 1/2 together equal one run"
import json, sys
t = sys.argv[1]
one, a, b = (json.load(open(f"{t}/shard-{n}.json"))["ops"][0] for n in ("none", "0-2", "1-2"))
assert one["cases"] == a["cases"] + b["cases"] == 600000
cases = lambda o: sorted(x["case"] for x in o["disagreements_kept"])
assert cases(one) == sorted(cases(a) + cases(b)) and not set(cases(a)) & set(cases(b))
PY

# Their finding directories merge into the findings of the one run: same signatures, counts summed.
"$T" merge "$tmp/f-0-2" "$tmp/f-1-2" -o "$tmp/f-merged" --json "$tmp/merged.json" >"$tmp/out" 2>"$tmp/err" && ok \
    || { cat "$tmp/err"; bad "merge of the shards' findings"; }
python3 - "$tmp" <<'PY' && ok || bad "merged shard findings equal the unsharded run's"
import json, os, sys
t = sys.argv[1]
files = lambda d: sorted(f for f in os.listdir(d) if f.endswith(".finding"))  # not the lock file
assert files(f"{t}/f-merged") == files(f"{t}/f-none"), os.listdir(f"{t}/f-merged")
one = {f["signature"]: f["count"] for f in json.load(open(f"{t}/shard-none.json"))["findings"]}
merged = {f["signature"]: f["count"] for f in json.load(open(f"{t}/merged.json"))["findings"]}
assert merged == one, (merged, one)
PY
# ... byte for byte: per signature the earliest case's finding, with the summed count.
# The lock file names its last holder's pid, which differs between runs: only finding files compare.
diff -r -x .tiefuzz.lock "$tmp/f-merged" "$tmp/f-none" >&2 && ok || bad "merged shard finding files differ from the unsharded run's"
# Into a directory whose path is 1,000 bytes (io_make_dirs makes up to 1,023): the files keep their
# whole names (paths were cut at 1,024 bytes, sending them elsewhere under cut names).
deep=$(long_dir 1000)
"$T" merge "$tmp/f-0-2" "$tmp/f-1-2" -o "$deep" >/dev/null 2>"$tmp/err" && [ "${#deep}" = 1000 ] \
    && diff -r -x .tiefuzz.lock "$deep" "$tmp/f-none" >&2 && ok || bad "merge into a 1,000-byte directory: $(head -3 "$tmp/err")"

# --jobs: worker processes give what one process gives, for the same seed and cases: the same
# finding files byte for byte, and the same --json but for timings and finding paths.  A
# private TMPDIR shows the workers' scratch directory is cleaned up.
mkdir -p "$tmp/scratch"
export TMPDIR="$tmp/scratch"
run 1 "--jobs 2" rdna2.v_fma_f32 --cases 600000 --quiet --known "$tmp/none" --findings "$tmp/f-jobs2" \
    --keep 1000000 --json "$tmp/jobs2.json" --jobs 2
diff -r -x .tiefuzz.lock "$tmp/f-jobs2" "$tmp/f-none" >&2 && ok || bad "--jobs 2 finding files differ from --jobs 1's"
python3 - "$tmp/shard-none.json" "$tmp/jobs2.json" <<'PY' && ok || bad "--jobs 2 report differs from --jobs 1's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    for o in d["ops"]:
        o.pop("seconds")
        o.pop("cpu_seconds")
    for f in d["findings"]:
        f.pop("file")
assert a["ops"][0]["cases"] == 600000 and a["ops"][0]["disagreements_kept"], a["ops"][0]["cases"]
assert (a.pop("jobs"), b.pop("jobs")) == (1, 2)
for k in a:
    assert a[k] == b[k], k
PY
# Jobs compose with shards: 2 workers on shard 0/2 and 3 on shard 1/2 merge into the one run.
run 1 "--jobs 2 --shard 0/2" rdna2.v_fma_f32 --cases 600000 --quiet --known "$tmp/none" --findings "$tmp/f-j0" \
    --shard 0/2 --jobs 2
run 1 "--jobs 3 --shard 1/2" rdna2.v_fma_f32 --cases 600000 --quiet --known "$tmp/none" --findings "$tmp/f-j1" \
    --shard 1/2 --jobs 3
"$T" merge "$tmp/f-j0" "$tmp/f-j1" -o "$tmp/f-jm" >/dev/null 2>"$tmp/err" && diff -r -x .tiefuzz.lock "$tmp/f-jm" "$tmp/f-none" >&2 \
    && ok || bad "jobs within shards, merged, differ from the one run"
[ -z "$(ls -A "$tmp/scratch")" ] && ok || bad "--jobs left its scratch directory: $(ls "$tmp/scratch")"
# No more workers than chunks of 65,536 cases: 100,000 cases make 2.
run 1 "--jobs 4 on 2 chunks" rdna2.v_fma_f32 --cases 100000 --quiet --known "$tmp/none" --no-findings \
    --json "$tmp/few.json" --jobs 4
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert (d["jobs"], d["ops"][0]["cases"]) == (2, 100000), d["jobs"]' \
    "$tmp/few.json" && ok || bad "--jobs 4 with 2 chunks: want 2 workers covering 100,000 cases"
# A missing device: exit 3, and the workers' identical messages are relayed once.
run 3 "--jobs 2, no such device" rdna2.v_fma_f32 --device no-such-gpu --cases 10 --jobs 2
[ "$(grep -c "no Vulkan device matches 'no-such-gpu'" "$tmp/err")" = 1 ] && ok \
    || bad "--jobs: the missing device named once, not once per worker"
# A worker killed mid-run: exit 4 naming it, and the other worker's findings are still merged.
# The kill waits (up to 5 s) until every worker has written a finding file: a fixed 2.5 s was
# not always enough on a loaded machine (a cold shader cache, other tests on the cores).
# (--time 6s: the parent waits out the survivor's budget, which starts after the parent and so
# ends after the kill.)
"$T" run rdna2.v_fma_f32 --time 6s --known "$tmp/none" --findings "$tmp/f-killed" --jobs 2 --show 0 \
    >"$tmp/out" 2>"$tmp/err" &
parent=$!
for _ in $(seq 50); do
    dirs=0 written=0
    for d in "$tmp/scratch"/tiefuzz-jobs-*/job-*/; do
        [ -d "$d" ] || continue
        dirs=$((dirs + 1))
        ls "$d"*.finding >/dev/null 2>&1 && written=$((written + 1))
    done
    [ "$dirs" -ge 2 ] && [ "$written" = "$dirs" ] && break
    sleep 0.1
done
victim_pid=$(pgrep -P "$parent" | tail -1)
[ -n "$victim_pid" ] && kill -KILL "$victim_pid"
wait "$parent"
got=$?
[ "$got" = 4 ] && grep -q "was killed by signal 9" "$tmp/err" && ls "$tmp/f-killed"/*.finding >/dev/null 2>&1 \
    && ok || { bad "--jobs with a killed worker: exit $got, want 4, a message and the other's findings"; cat "$tmp/err" >&2; }
# What the killed worker had written (the kill waited for it) is kept, and the message says where.
ls "$tmp/scratch"/tiefuzz-jobs-*/job-*/*.finding >/dev/null 2>&1 \
    && grep -q "finding files are kept in $tmp/scratch/tiefuzz-jobs-" "$tmp/err" \
    && ok || bad "--jobs: a killed worker's finding files not kept, or kept without saying where"
rm -rf "$tmp/scratch"/*
# SIGINT to the parent alone reaches the workers: they stop early and the run ends with its summary.
"$T" run rdna2.v_fma_f32 --time 120s --known "$tmp/none" --no-findings --jobs 2 --show 0 >"$tmp/out" 2>"$tmp/err" &
parent=$!
sleep 3
kill -INT "$parent"
start=$SECONDS
wait "$parent"
got=$?
[ "$got" = 1 ] && [ $((SECONDS - start)) -lt 60 ] && grep -q "interrupted" "$tmp/err" && grep -q "rdna2.v_fma_f32" "$tmp/out" \
    && ok || { bad "--jobs interrupted: exit $got after $((SECONDS - start)) s"; cat "$tmp/err" >&2; }
[ -z "$(ls -A "$tmp/scratch")" ] && ok || bad "--jobs left its scratch directory after an interrupt: $(ls "$tmp/scratch")"
# SIGTERM (a CI job's timeout) stops a run cleanly too, with its summary and --json.
"$T" run rdna2.v_fma_f32 --time 120s --known "$tmp/none" --no-findings --show 0 --json "$tmp/term.json" \
    >"$tmp/out" 2>"$tmp/err" &
parent=$!
sleep 3
kill -TERM "$parent"
wait "$parent"
got=$?
[ "$got" = 1 ] && grep -q "interrupted" "$tmp/err" && grep -q "rdna2.v_fma_f32" "$tmp/out" && [ -s "$tmp/term.json" ] \
    && ok || { bad "SIGTERM: exit $got, want 1 with the summary and --json"; cat "$tmp/err" >&2; }
unset TMPDIR

# A corrupt input stops the merge before anything is written, naming the file.
cp -r "$tmp/f-0-2" "$tmp/f-bad"
victim=$(ls "$tmp/f-bad" | head -1)
sed -i '3s/./X/' "$tmp/f-bad/$victim"
"$T" merge "$tmp/f-bad" "$tmp/f-1-2" -o "$tmp/f-never" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ ! -e "$tmp/f-never" ] && grep -q "$victim" "$tmp/err" && ok || bad "merge with a corrupt finding: want exit 2, nothing written, the file named"

run 3 "no such device" rdna2.v_fma_f32 --device no-such-gpu --cases 10
grep -q "no Vulkan device matches 'no-such-gpu'" "$tmp/err" && ok || bad "missing device named"

finish
