#!/usr/bin/env bash
# scripts/nightly end to end, twice on one output directory:
#   night 1 with the known list emptied: lavapipe's unfused Fma is new, so
#     exit 1, findings and regression candidates, a JUnit failure per finding,
#     a SARIF result per finding or crash;
#   night 2 with the known rules: nothing new, exit 0, and the libFuzzer
#     corpora start from what night 1 kept;
#   each night appends its line to history.jsonl and writes report.html.
# summary.json and junit.xml are checked for structure, results.sarif against
# the SARIF 2.1.0 shape (the properties the schema requires, and the links
# between results and rules).  Shares the fuzz suite's clang build.
# Usage: nightly.sh SOURCE_DIR BUILD_DIR
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
# The CI set-ups in ci/ parse, and point at what this repository has.
python3 - "$SRC" <<'PY' && ok || bad "the workflows and ClusterFuzzLite files in ci/"
import os, sys, yaml
src = sys.argv[1]
nightly = yaml.safe_load(open(f"{src}/ci/github/tiefuzz-nightly.yml"))
steps = nightly["jobs"]["nightly"]["steps"]
assert any("scripts/nightly" in s.get("run", "") for s in steps)
assert any(s.get("uses", "").startswith("actions/cache") for s in steps)
assert any(s.get("uses", "").startswith("actions/upload-artifact") for s in steps)
cfl = yaml.safe_load(open(f"{src}/ci/github/clusterfuzzlite.yml"))
fuzz = cfl["jobs"]["fuzz"]["steps"]
assert any("ci/clusterfuzzlite .clusterfuzzlite" in s.get("run", "") for s in fuzz)
assert any(s.get("uses", "").startswith("google/clusterfuzzlite/actions/build_fuzzers") for s in fuzz)
assert yaml.safe_load(open(f"{src}/ci/clusterfuzzlite/project.yaml"))["language"] == "c"
for f in ("Dockerfile", "build.sh"):
    assert os.path.isfile(f"{src}/ci/clusterfuzzlite/{f}")
PY

# The report of a night whose campaign the device stopped (a batch timed out): that op is a JUnit
# <error>, an untranslated one <skipped>, and the night exits 4 (a failed step).
mkdir -p "$tmp/r/logs" "$tmp/r/crashes" "$tmp/r/regression"
cat >"$tmp/r/run.json" <<'EOF'
{"tool": "tiefuzz", "format": 1, "device": {"name": "llvmpipe"}, "seed": 1, "jobs": 1, "findings": [],
 "ops": [{"op": "rdna2.v_fma_f32", "cases": 65536, "disagreements": 0, "seconds": 1.0, "rounding_cells": 9,
          "skipped": "the device 'llvmpipe' did not finish a batch within 1000 ms", "stopped": true},
         {"op": "rdna2.v_fma_f64", "cases": 0, "disagreements": 0, "seconds": 0, "rounding_cells": 0,
          "skipped": "not translated (see doc/translation.md)", "stopped": false}]}
EOF
python3 "$SRC/scripts/nightly-report" --out "$tmp/r" --run-status 3 --seconds 5 --budget 10 --device default \
    >/dev/null 2>&1
[ $? = 4 ] && python3 - "$tmp/r/junit.xml" <<'PY' && ok || bad "nightly report of a campaign the device stopped"
import sys, xml.etree.ElementTree as ET
suite = [s for s in ET.parse(sys.argv[1]).getroot() if s.get("name") == "tiefuzz run"][0]
assert (suite.get("errors"), suite.get("skipped")) == ("1", "1"), suite.attrib
cases = {c.get("name"): c for c in suite}
assert cases["rdna2.v_fma_f32"].find("error").get("type") == "device"
assert cases["rdna2.v_fma_f64"].find("skipped") is not None
PY

if ! command -v clang >/dev/null 2>&1; then
    echo "skipped: clang is not installed, and scripts/nightly builds with clang and libFuzzer"
    exit 77
fi
export TIEFUZZ_NIGHTLY_BUILD="$BUILD/fuzz-clang" TIEFUZZ_NO_BOOTSTRAP=1
N="$SRC/scripts/nightly"

"$N" --time 3s >/dev/null 2>&1; [ $? = 2 ] && ok || bad "--time 3s: want exit 2"
"$N" --frobnicate >/dev/null 2>&1; [ $? = 2 ] && ok || bad "unknown argument: want exit 2"
"$N" --jobs 0 >/dev/null 2>&1; [ $? = 2 ] && ok || bad "--jobs 0: want exit 2"

default=$("$BUILD/src/tiefuzz" devices --json | python3 -c 'import json,sys; print([d["name"] for d in json.load(sys.stdin)["devices"] if d["default"]][0])')
mkdir -p "$tmp/none"
mkdir -p "$tmp/cwd"
(cd "$tmp/cwd" && "$N" --time 16s --ops rdna2.v_fma_f32 --known "$tmp/none" --out "$tmp/n") >"$tmp/night1.log" 2>&1
night1=$?
# The console keeps the summary table's header, however long the table (issue 11, item 11).
grep -q "^op  *cases  *disagreements" "$tmp/night1.log" && ok || bad "the nightly console lost the table header"
# Everything a night writes is under --out: nothing in the working directory (libFuzzer's
# crash-* files from the corpus merge once landed there).
[ -z "$(ls -A "$tmp/cwd")" ] && ok || bad "scripts/nightly wrote into its working directory: $(ls -A "$tmp/cwd")"
case "$default" in
llvmpipe*) [ $night1 = 1 ] && ok || { tail -20 "$tmp/night1.log"; bad "night 1 on lavapipe without known rules: exit $night1, want 1"; } ;;
*) echo "note: default device $default; night 1 exited $night1"
   [ $night1 = 0 ] || [ $night1 = 1 ] && ok || bad "night 1: exit $night1" ;;
esac

check_reports() {  # check_reports DIR WANT_NEW(yes|no) [PREVIOUS_SUMMARY]
    python3 - "$@" <<'PY'
import json, os, sys
import xml.etree.ElementTree as ET
out, want = sys.argv[1], sys.argv[2]   # yes, no or any (a device whose divergences we do not know)
prev = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else None
s = json.load(open(f"{out}/summary.json"))
for key, t in [("tool", str), ("format", int), ("date", str), ("device", str), ("budget_seconds", int),
               ("seconds", int), ("campaign", dict), ("fuzz_targets", list), ("new_findings", list),
               ("regression_candidates", list), ("failed_steps", list), ("exit_status", int)]:
    assert isinstance(s[key], t), (key, s.get(key))
assert s["failed_steps"] == [], s["failed_steps"]
ops = s["campaign"]["ops"]
assert [o["op"] for o in ops] == ["rdna2.v_fma_f32"], ops
assert ops[0]["cases"] > 0 and ops[0]["rounding_cells"] > 0, ops[0]
assert [t["name"] for t in s["fuzz_targets"]] == ["fuzz_diff", "fuzz_formats"]
for t in s["fuzz_targets"]:
    assert (t["runs"] > 0 or t["crashes"]) and t["corpus_after"] > 0, t
    for c in t["crashes"]:
        assert os.path.isfile(c["file"]) and c["kind"], c
if prev:   # the corpus a night starts from is the one the night before kept
    for t, p in zip(s["fuzz_targets"], prev["fuzz_targets"]):
        assert t["corpus_before"] == p["corpus_after"], (t, p)
crashes = [c for t in s["fuzz_targets"] for c in t["crashes"]]
new = s["new_findings"]
if want == "yes":
    assert new and s["exit_status"] == 1, s["exit_status"]
    assert s["regression_candidates"] and all(os.path.getsize(f) > 0 for f in s["regression_candidates"])
    assert any(c["kind"] != "crash" for c in crashes) or not crashes
elif want == "no":
    assert new == [] and crashes == [] and s["exit_status"] == 0, (new, crashes)
for f in new:
    assert os.path.isfile(f["file"]) and f["op"] == "rdna2.v_fma_f32" and f["kind"] and f["signature"], f
    assert f["verdict"] in ("translation", "device", "model", "unknown"), f   # triage gave one

# JUnit: a case per op and per target; a failure per new finding or crash.
root = ET.parse(f"{out}/junit.xml").getroot()
assert root.tag == "testsuites", root.tag
suites = {x.get("name"): x for x in root.findall("testsuite")}
assert set(suites) == {"tiefuzz run", "libFuzzer"}, suites.keys()
run = suites["tiefuzz run"]
assert [c.get("name") for c in run.findall("testcase")] == [o["op"] for o in ops]
assert int(run.get("tests")) == len(ops)
assert len(run.findall("testcase/failure")) == len(new)
assert int(run.get("failures")) == sum(1 for c in run.findall("testcase") if c.find("failure") is not None)
fz = suites["libFuzzer"]
assert [c.get("name") for c in fz.findall("testcase")] == ["fuzz_diff", "fuzz_formats"]
assert len(fz.findall("testcase/failure")) == len(crashes)
for f in root.iter("failure"):
    assert f.get("message") and f.get("type") and "reproduce:" in f.text, f.attrib
for f in run.iter("failure"):
    assert "(triage: " in f.get("message") and "triage: " in f.text, (f.attrib, f.text)

# SARIF 2.1.0: required properties and types, results linked to rules.
r = json.load(open(f"{out}/results.sarif"))
assert r["version"] == "2.1.0" and "sarif-2.1.0" in r["$schema"]
assert isinstance(r["runs"], list) and len(r["runs"]) == 1
run0 = r["runs"][0]
driver = run0["tool"]["driver"]
assert isinstance(driver["name"], str) and driver["name"]
rules = driver["rules"]
ids = [x["id"] for x in rules]
assert len(ids) == len(set(ids)) and all(isinstance(x["shortDescription"]["text"], str) for x in rules)
results = run0["results"]
assert len(results) == len(new) + len(crashes), (len(results), len(new), len(crashes))
for res in results:
    assert res["ruleId"] in ids and ids[res["ruleIndex"]] == res["ruleId"], res
    assert res["level"] in ("none", "note", "warning", "error")
    assert isinstance(res["message"]["text"], str) and res["message"]["text"]
    for loc in res["locations"]:
        pl = loc["physicalLocation"]
        assert isinstance(pl["artifactLocation"]["uri"], str) and pl["region"]["startLine"] >= 1
    assert all(isinstance(v, str) for v in res["partialFingerprints"].values())
print(f"reports: {len(new)} new findings, {len(crashes)} crashes, {len(results)} SARIF results")
PY
}
case "$default" in
llvmpipe*) check_reports "$tmp/n" yes && ok || bad "night 1 reports" ;;
*) check_reports "$tmp/n" any && ok || bad "night 1 reports" ;;
esac
cp "$tmp/n/summary.json" "$tmp/night1.json" 2>/dev/null

# The page and the history (issue 14): one history line a night, and report.html beside the reports.
check_history() {  # check_history DIR NIGHTS
    python3 - "$@" <<'PY'
import json, sys
out, nights = sys.argv[1], int(sys.argv[2])
lines = open(f"{out}/history.jsonl").read().splitlines()
assert len(lines) == nights, (len(lines), nights)
s = json.load(open(f"{out}/summary.json"))
last = json.loads(lines[-1])
assert last["version"] == 1 and last["date"] == s["date"] and last["exit_status"] == s["exit_status"], last
op = last["ops"]["rdna2.v_fma_f32"]
assert op["cases"] > 0 and op["cases_per_s"] > 0 and op["cells"] > 0 and op["new"] + op["known"] > 0, op
assert set(last["fuzz_targets"]) == {"fuzz_diff", "fuzz_formats"}, last["fuzz_targets"]
page = open(f"{out}/report.html").read()
assert 'data-op="rdna2.v_fma_f32"' in page and f"{nights} night" in page
PY
}
check_history "$tmp/n" 1 && ok || bad "night 1: history.jsonl or report.html"

# The second night's campaign runs on two worker processes.
"$N" --time 16s --ops rdna2.v_fma_f32 --out "$tmp/n" --jobs 2 >"$tmp/night2.log" 2>&1
night2=$?
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["campaign"]["jobs"] == 2' "$tmp/n/summary.json" \
    && ok || bad "night 2: the campaign did not run with --jobs 2"
case "$default" in
llvmpipe*)
    [ $night2 = 0 ] && ok || { tail -20 "$tmp/night2.log"; bad "night 2 with the known rules: exit $night2, want 0"; }
    check_reports "$tmp/n" no "$tmp/night1.json" && ok || bad "night 2 reports"
    check_history "$tmp/n" 2 && ok || bad "night 2: history.jsonl or report.html"
    ;;
*) check_reports "$tmp/n" any "$tmp/night1.json" && ok || bad "night 2 reports" ;;
esac
finish
