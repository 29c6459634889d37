#!/usr/bin/env bash
# Exports, repro and fit (issue 11, item 9): Amber scripts dispatch enough
# workgroups for tile ops and leave NaN payloads unchecked when the run did;
# the finding file's strict-nan field; export past 4,096 findings; fit's
# ranges, grid limit, NaN rule and Ctrl-C.  Amber is not packaged for Debian,
# so the scripts' workgroup arithmetic and EXPECT lines are checked here, in
# Python, against the op's outputs.
# Usage: exports.sh TIEFUZZ [device]   (device: also repro on the default device)
. "$(dirname "$0")/lib.sh"
T=$1
mode=${2:-host}

# mk.py OUT OP KIND STRICT INPUT HOST DEVICE: a finding file, checksummed as
# tiefuzz does (xxh64 of everything before the last line).  STRICT is yes, no
# or "absent" (a file from before the field); word lists are comma-separated.
cat >"$tmp/mk.py" <<'PY'
import ctypes, os, sys
out, op, kind, strict, inp, host, dev = sys.argv[1:8]
lowering = os.environ.get("LOWERING", "exact")
lib = ctypes.CDLL("libxxhash.so.0")
lib.XXH64.restype = ctypes.c_uint64
lib.XXH64.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]
words = lambda s: " ".join(f"{int(w, 16):08x}" for w in s.split(","))
text = (f"tiefuzz-finding 1\nop {op}\ncontrols none\nparams none\nlowering {lowering}\ndevice test\ndriver test\n"
        f"driver-info test\ndriver-version 1\napi-version 1.2.0\ndeclared none\nseed 1\ncase 0\nclass random\n"
        f"kind {kind}\nsignature 00000000000000{abs(hash(out)) % 256:02x}\ncount 1\n")
if strict != "absent":
    text += f"strict-nan {strict}\n"
text += f"input {words(inp)}\nhost {words(host)}\ndevice-output {words(dev)}\n"
b = text.encode()
open(out, "w").write(text + f"checksum xxh64 {lib.XXH64(b, len(b), 0):016x}\n")
PY
mk() { python3 "$tmp/mk.py" "$@"; }
csv() { tr ' ' ',' <<<"$*"; }

# --- Amber: one workgroup of LocalSize invocations per 64 output words ---
"$T" ops --json >"$tmp/ops.json" || bad "ops --json"
python3 - "$tmp/ops.json" >"$tmp/tiles" <<'PY'
import json, sys
ops = json.load(open(sys.argv[1]))["ops"]
for o in ops:
    n_in = sum(w["direction"] == "input" for w in o["tuple"])
    n_out = len(o["tuple"]) - n_in
    if o["status"] == "translated" and (n_out > 64 or o["name"] in ("rdna2.v_fma_f32",
                                                                     "mma.ampere.m16n8k16.f16.f16.f16.f16")):
        print(o["name"], n_in, n_out)
PY
mkdir -p "$tmp/tile-findings"
while read -r op n_in n_out; do
    zeros=$(for ((i = 0; i < n_in; i++)); do printf '0 '; done)
    host=$("$T" eval "$op" $zeros) || { bad "eval $op"; continue; }
    dev=$(python3 -c 'import sys; w=sys.argv[1].split(); w[0]="%08x" % (int(w[0],16)^1); print(",".join(w))' "$host")
    mk "$tmp/tile-findings/$op.finding" "$op" one-unit-rounding no "$(csv $zeros)" "$(csv $host)" "$dev"
done <"$tmp/tiles"
expect_status 0 "export amber of tile findings" "$T" export "$tmp/tile-findings" --format amber -o "$tmp/amber"
python3 - "$tmp/amber" "$tmp/tiles" <<'PY' && ok || bad "amber RUN dispatches ceil(n_out / LocalSize) workgroups"
import glob, re, sys
want = {l.split()[0]: int(l.split()[2]) for l in open(sys.argv[2])}
big = 0
for path in glob.glob(sys.argv[1] + "/*.amber"):
    s = open(path).read()
    op = re.search(r"# tiefuzz finding (\S+):", s).group(1)
    local = int(re.search(r"OpExecutionMode %\w+ LocalSize (\d+) 1 1", s).group(1))
    groups = int(re.search(r"^RUN tiefuzz_pipeline (\d+) 1 1$", s, re.M).group(1))
    n_out = want.pop(op)
    assert int(re.search(r"BUFFER out DATA_TYPE uint32 SIZE (\d+)", s).group(1)) == n_out, path
    # One invocation per output word: every word written, no whole group idle.
    assert groups * local >= n_out > (groups - 1) * local, (op, groups, local, n_out)
    big += groups > 1
assert not want, f"no script for {want}"
assert big >= 7, f"only {big} ops with more than one workgroup"
PY

# --- Amber and NaN payloads: an m16n8 f32 tile with one row of NaNs ---
op=mma.turing.m16n8k8.f32.f16.f16.f32
read -r n_in n_out < <(grep "^$op " "$tmp/tiles" | cut -d' ' -f2-)
inp=$(python3 -c '
import sys; n = int(sys.argv[1]); w = ["3c003c00"] * n; w[0] = "3c007e00"; print(" ".join(w))' "$n_in")
host=$("$T" eval "$op" $inp)
# The device differs by one unit in word 100 and returns NaNs with another payload.
dev=$(python3 -c '
import sys; w = sys.argv[1].split()
w = ["7fc00000" if (int(x, 16) & 0x7fffffff) > 0x7f800000 else x for x in w]
w[w.index("7fc00000")] = "3f800000"   # and a number where the model has a NaN (nan-vs-number)
w[100] = "%08x" % (int(w[100], 16) + 1); print(",".join(w))' "$host")
mkdir -p "$tmp/nan-ignored" "$tmp/nan-strict" "$tmp/nan-old"
mk "$tmp/nan-ignored/t.finding" "$op" one-unit-rounding no "$(csv $inp)" "$(csv $host)" "$dev"
mk "$tmp/nan-strict/t.finding" "$op" one-unit-rounding yes "$(csv $inp)" "$(csv $host)" "$dev"
mk "$tmp/nan-old/t.finding" "$op" one-unit-rounding absent "$(csv $inp)" "$(csv $host)" "$dev"
for d in nan-ignored nan-strict nan-old; do
    expect_status 0 "export amber $d" "$T" export "$tmp/$d" --format amber -o "$tmp/amber-$d"
done
# Amber's comparisons, applied to a device output: EQ_BUFFER compares every
# bit; EXPECT out IDX BYTES EQ v... compares uint16 halves from that offset.
cat >"$tmp/amber_check.py" <<'PY'
import glob, re, sys
def passes(script, out_words):
    s = open(glob.glob(script + "/*.amber")[0]).read()
    if "EQ_BUFFER" in s:
        exp = re.search(r"BUFFER expected DATA_TYPE uint32 DATA\n(.*?)\nEND", s, re.S).group(1).split()
        return [int(x, 16) for x in exp] == out_words
    assert re.search(r"BUFFER out DATA_TYPE uint16 SIZE %d FILL 0" % (2 * len(out_words)), s)
    halves = [(w >> (16 * k)) & 0xffff for w in out_words for k in (0, 1)]
    for idx, vals in re.findall(r"^EXPECT out IDX (\d+) EQ ((?:0x[0-9a-f]+ ?)+)$", s, re.M):
        for i, v in enumerate(vals.split()):
            if halves[int(idx) // 2 + i] != int(v, 16):
                return False
    return True
def covered(script):
    s = open(glob.glob(script + "/*.amber")[0]).read()
    got = set()
    for idx, vals in re.findall(r"^EXPECT out IDX (\d+) EQ ((?:0x[0-9a-f]+ ?)+)$", s, re.M):
        got |= {int(idx) // 2 + i for i in range(len(vals.split()))}
    return got
PY
python3 - "$tmp" "$host" "$dev" <<'PY' && ok || bad "amber NaN expectations follow the finding's strict-nan"
import sys; sys.path.insert(0, sys.argv[1]); from amber_check import passes, covered
t = sys.argv[1]
host = [int(x, 16) for x in sys.argv[2].split()]
dev = [int(x, 16) for x in sys.argv[3].split(",")]
isnan = lambda w: (w & 0x7fffffff) > 0x7f800000
nan = {i for i, w in enumerate(host) if isnan(w) and isnan(dev[i])}   # what the run did not compare
numbered = [i for i, w in enumerate(host) if isnan(w) and not isnan(dev[i])]
assert nan and len(numbered) == 1, "the tile needs payload-only and nan-vs-number outputs"
fixed = list(dev); fixed[100] = host[100]         # the rounding fixed, payloads as the device had them
fixed[numbered[0]] = host[numbered[0]]
for d in ("nan-ignored", "nan-old"):            # no --strict-nan (or a file from before the field)
    assert passes(f"{t}/amber-{d}", host) and passes(f"{t}/amber-{d}", fixed), d
    assert not passes(f"{t}/amber-{d}", dev), d + ": the one-unit difference must still fail"
    nv = list(fixed); nv[numbered[0]] = dev[numbered[0]]
    assert not passes(f"{t}/amber-{d}", nv), d + ": a number for a NaN must still fail"
    want = {2 * w + k for w in range(len(host)) if w not in nan for k in (0, 1)}
    assert covered(f"{t}/amber-{d}") == want, d + ": every half checked but those both sides gave NaNs for"
d = f"{t}/amber-nan-strict"                     # --strict-nan: bits, payloads included
assert passes(d, host) and not passes(d, fixed) and not passes(d, dev)
PY

# The field: yes or no, named with file and line when neither.
sed 's/^strict-nan no$/strict-nan maybe/' "$tmp/nan-ignored/t.finding" >"$tmp/maybe.finding"
python3 - "$tmp/maybe.finding" <<'PY'
import ctypes, sys
lib = ctypes.CDLL("libxxhash.so.0"); lib.XXH64.restype = ctypes.c_uint64
lib.XXH64.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]
body = open(sys.argv[1]).read().rsplit("checksum", 1)[0].encode()
open(sys.argv[1], "w").write(body.decode() + f"checksum xxh64 {lib.XXH64(body, len(body), 0):016x}\n")
PY
expect_status 2 "strict-nan maybe" "$T" export "$tmp/maybe.finding" --format amber -o "$tmp/amber-maybe"
expect_in "$tmp/cli.err" "maybe.finding:[0-9]*: strict-nan: expected yes or no" "bad strict-nan named with its line"

# --- export takes every finding of a directory, past 4,096 ---
mkdir -p "$tmp/many"
python3 - "$tmp/many" <<'PY'
import ctypes, sys
lib = ctypes.CDLL("libxxhash.so.0"); lib.XXH64.restype = ctypes.c_uint64
lib.XXH64.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]
for i in range(4100):
    t = (f"tiefuzz-finding 1\nop rdna2.v_fma_f32\ncontrols none\nparams none\nlowering exact\nkind one-unit-rounding\n"
         f"signature {i:016x}\nstrict-nan no\ninput {0x3f800000 + i:08x} 3f800000 00000000\nhost 00000000\n"
         f"device-output 00000001\n").encode()
    open(f"{sys.argv[1]}/f{i:05d}.finding", "wb").write(t + b"checksum xxh64 %016x\n" % lib.XXH64(t, len(t), 0))
PY
expect_status 0 "export of 4,100 findings" "$T" export "$tmp/many" --format testfloat -o "$tmp/tf"
[ "$(wc -l <"$tmp/tf/rdna2.v_fma_f32.testfloat")" = 4100 ] && ok \
    || bad "export of 4,100 findings wrote $(wc -l <"$tmp/tf/rdna2.v_fma_f32.testfloat") lines"
# An output directory whose path is long (900 bytes; io_make_dirs makes up to 1,023): the file keeps
# its whole name inside it (paths were cut at 700 bytes, so the file went elsewhere).
deep=$(long_dir 900)
expect_status 0 "export into a 900-byte directory" "$T" export "$tmp/many" --format testfloat -o "$deep"
[ "${#deep}" = 900 ] && [ "$(wc -l <"$deep/rdna2.v_fma_f32.testfloat")" = 4100 ] && ok \
    || bad "export into a 900-byte directory: $(ls "$deep" 2>&1 | head -3)"

# --- fit ---
op=mma.volta.m8n8k4.f32.f16.f16.f16
expect_status 2 "fit grid too large" "$T" fit "$op" --param 'F=1..40,e_zero_f32=-200..0,L_max=1..64,e_zero_f16=-200..0' \
    --results /dev/null
expect_in "$tmp/cli.err" "more than 1000000: narrow the ranges" "fit grid limit named"
"$T" fit "$op" --emit-probes --probes-only >"$tmp/probes"
while read -r l; do echo "$l -> $("$T" eval "$op" $l)"; done <"$tmp/probes" >"$tmp/results"
# One more tile, a NaN in A: the model's canonical NaN, "measured" with another payload.
nan_in=$(head -1 "$tmp/probes" | sed 's/^[0-9a-f]\{4\}/7e00/')
echo "$nan_in -> $("$T" eval "$op" $nan_in | sed 's/7fffffff/7fc00000/g')" >>"$tmp/results"
grep -q 7fc00000 "$tmp/results" && ok || bad "fit: the NaN tile has no NaN output"
expect_status 2 "fit F=1...3" "$T" fit "$op" --param 'F=1...3' --results "$tmp/results"
expect_in "$tmp/cli.err" "F=1...3: expected a whole number or LO..HI" "fit F=1...3 named"
expect_status 2 "fit F=1..3x" "$T" fit "$op" --param 'F=1..3x' --results "$tmp/results"
expect_status 2 "fit F twice" "$T" fit "$op" --param 'F=20..22,F=23' --results "$tmp/results"
expect_status 0 "fit ignores NaN payloads" "$T" fit "$op" --param 'F=22..24' --results "$tmp/results"
expect_in "$tmp/cli.out" "consistent: F=23" "fit consistent without --strict-nan"
expect_status 1 "fit --strict-nan compares them" "$T" fit "$op" --param 'F=22..24' --results "$tmp/results" --strict-nan
# Long fits, where one combination in 40 is consistent (F=30; e_zero_f16 does
# not matter for an f32 output), so what is found in 2 s is less than a buffer.
"$T" fit "$op" --emit-probes --random 64 >"$tmp/probes30"
"$T" eval "$op" --param F=30 --batch "$tmp/probes30" | paste -d'>' "$tmp/probes30" - | sed 's/>/ -> /' >"$tmp/results30"
long=(fit "$op" --param 'F=1..40,e_zero_f16=-200..0' --results "$tmp/results30")
# Ctrl-C: the lines found so far reach the file, then a summary; the signal is the exit.
"$T" "${long[@]}" >"$tmp/fit.out" 2>&1 &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid"
got=$?
[ "$got" = 130 ] && grep -q "^consistent: " "$tmp/fit.out" \
    && grep -q "^interrupted after [0-9]* of 8040 combinations: [0-9]* consistent so far" "$tmp/fit.out" && ok \
    || bad "fit after SIGINT: exit $got, output $(head -c 300 "$tmp/fit.out")"
# Killed outright: the lines found so far are in the file all the same (line-buffered).
"$T" "${long[@]}" >"$tmp/fit.out" 2>&1 &
pid=$!
sleep 2
kill -KILL "$pid"
wait "$pid" 2>/dev/null
grep -q "^consistent: " "$tmp/fit.out" && ok || bad "fit after SIGKILL lost its output: $(head -c 300 "$tmp/fit.out")"
# Progress on a terminal.
script -qec "'$T' fit '$op' --param 'F=20..26,L_max=1..64,e_zero_f16=-3..0' --results '$tmp/results'" /dev/null \
    >"$tmp/tty.out" 2>&1
grep -q "fit: [0-9]* of 1792 combinations" "$tmp/tty.out" && ok || bad "fit shows no progress on a terminal"

# --- repro follows the finding's strict-nan, or --strict-nan ---
if [ "$mode" = device ]; then
    mkdir -p "$tmp/r"
    # The model returns the canonical 7fc00000; lavapipe's direct Fma keeps the
    # input's payload, 7fc00001.
    for s in no yes; do
        LOWERING=direct mk "$tmp/r/$s.finding" rdna2.v_fma_f32 nan-payload "$s" 7fc00001,3f800000,0 7fc00000 7fc00001
    done
    dev_out=$("$T" repro "$tmp/r/no.finding" 2>&1)
    if grep -q "verdict: agrees (NaN payloads not compared)" <<<"$dev_out"; then
        expect_status 0 "repro strict-nan no" "$T" repro "$tmp/r/no.finding"
        # Only when this device keeps the payload (else nothing to tell apart).
        if ! grep -q "device 0x7fc00001" <<<"$dev_out"; then
            echo "note: this device returns the canonical NaN; the payload checks are skipped" >&2
        else
            expect_status 1 "repro --strict-nan" "$T" repro "$tmp/r/no.finding" --strict-nan
            expect_status 1 "repro strict-nan yes" "$T" repro "$tmp/r/yes.finding"
        fi
    else
        bad "repro strict-nan no: $dev_out"
    fi
fi

finish
