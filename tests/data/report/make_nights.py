#!/usr/bin/env python3
"""A synthetic scripts/nightly output directory for tests/report.sh:
summary.json, run.json and history.jsonl of NIGHTS nights (the last one is
tonight), OPS ops, findings new, seen before and known, and a fuzz_diff
crash.  Strings that must be escaped ride along in a rule's reason and a
crash's repro output.  Deterministic: the same arguments, the same files.
Usage: make_nights.py OUT_DIR NIGHTS [OPS]"""
import datetime, json, os, random, sys

CLASSES = ["tie", "near-tie", "double-round", "subnormal", "overflow", "cancel", "special", "random",
           "carry", "sign", "merge", "zero-half", "e-zero"]
HOSTILE = "<script>alert('x')</script> & \"quoted\" <img src=x onerror=alert(1)>"

def op_names(n):
    return [f"synth.op_{i:02d}_f32" for i in range(n)]

def night_date(i, nights):
    base = datetime.datetime(2026, 1, 1, 3, 17, tzinfo=datetime.timezone.utc)
    return (base + datetime.timedelta(days=i - nights + 60)).isoformat(timespec="seconds")

def history_line(i, nights, ops, rng):
    return {"version": 1, "date": night_date(i, nights), "commit": f"{i:07x}abc", "device": "synthetic device",
            "exit_status": 1 if i % 7 == 0 else 0, "new_findings": 1 if i % 7 == 0 else 0, "crashes": i % 11 == 0,
            "ops": {op: {"cases": 1000000 + 5000 * i + k, "cases_per_s": 40000.0 + 300 * i + rng.random(),
                         "new": 3 if i % 7 == 0 else 0, "known": 100 + k, "cells": min(192, 40 + i // 3 + k % 5)}
                    for k, op in enumerate(ops)},
            "fuzz_targets": {"fuzz_diff": {"corpus": 120 + 2 * i, "runs": 900000 + i, "crashes": int(i % 11 == 0)},
                             "fuzz_formats": {"corpus": 80 + i, "runs": 500000 + i, "crashes": 0}}}

def run_op(k, op):
    o = {"op": op, "cases": 1300000 + k, "disagreements": 0, "audited": 5000, "seconds": 30.0 + k,
         "declared": "RoundingModeRTE 32", "skipped": None, "stopped": False, "not_run": False,
         "classes": {c: {"generated": 100000, "verified": 99000 - j, "rate": (99000 - j) / 100000,
                         "tie_rate": 0.5, "at_result": 90000, "at_result_rate": 0.9} for j, c in enumerate(CLASSES)},
         "tie_exponents": 200, "rounding_cells": 40 + k % 5, "control_pairs": {"reached": 150, "legal": 190},
         "disagreements_kept": []}
    if k < 3:   # the optional per-cell list (doc/report.md) on a few ops
        o["rounding_cells_reached"] = sorted({(k * 7 + j * 13) % 192 for j in range(o["rounding_cells"])})
        o["rounding_cells"] = len(o["rounding_cells_reached"])
    if k == 3:
        o.update(skipped="the device 'synthetic' did not finish a batch within 20000 ms", stopped=True)
    if k == 4:
        o.update(cases=0, seconds=0, skipped="interrupted before it ran", not_run=True)
    return o

def findings(out, ops):
    fdir = os.path.join(out, "findings")
    os.makedirs(fdir, exist_ok=True)
    rows = []
    for i, (status, known) in enumerate([("NEW", False), ("NEW", False), ("again", False),
                                          ("known", True), ("known", True)]):
        sig = f"{0xabc0 + i:016x}"
        k = i % len(ops)
        path = os.path.join(fdir, f"{ops[k]}-{sig}.finding")
        with open(path, "w") as f:   # not a valid finding (no checksum): the page says so
            f.write("tiefuzz-finding 1\nop %s\n| synthetic explanation\n" % ops[k])
        row = {"signature": sig, "op": ops[k], "kind": "tie-direction" if i % 2 else "one-unit-rounding",
               "count": 10 + i, "known": known, "status": status, "reason": HOSTILE if known else None,
               "file": path, "complexity_before": 100, "complexity_after": 5}
        if i == 0:
            row.update(verdict="device bug (triage)", verdict_cause="SignedZeroInfNanPreserve-32",
                       verdict_reason="outside the results the Vulkan rules allow")
        rows.append(row)
    return rows

def main():
    out, nights = sys.argv[1], int(sys.argv[2])
    ops = op_names(int(sys.argv[3]) if len(sys.argv) > 3 else 35)
    rng = random.Random(1)
    os.makedirs(os.path.join(out, "crashes"), exist_ok=True)
    with open(os.path.join(out, "history.jsonl"), "w") as f:
        for i in range(nights):
            f.write(json.dumps(history_line(i, nights, ops, rng), separators=(",", ":")) + "\n")
    found = findings(out, ops)
    run_ops = [run_op(k, op) for k, op in enumerate(ops)]
    for f in found:
        o = next(o for o in run_ops if o["op"] == f["op"])
        o["disagreements"] += f["count"]
    run = {"tool": "tiefuzz", "format": 1, "device": {"name": "synthetic device"}, "lowering": "direct",
           "seed": 7, "jobs": 1, "shard": None, "complete": False, "interrupted": True, "ops": run_ops,
           "findings": found}
    json.dump(run, open(os.path.join(out, "run.json"), "w"), indent=1)
    crash = os.path.join(out, "crashes", "fuzz_diff-crash-0123")
    open(crash, "wb").write(b"TFZC")
    summary = {"tool": "tiefuzz nightly", "format": 1, "date": night_date(nights - 1, nights),
               "commit": f"{nights - 1:07x}abc", "device": "synthetic device", "device_selector": "default",
               "budget_seconds": 1200, "seconds": 1190,
               "campaign": {"status": 1, "seed": 7, "jobs": 1, "complete": False, "ops": []},
               "fuzz_targets": [{"name": "fuzz_diff", "status": 1, "runs": 900000, "corpus_before": 120,
                                 "corpus_after": 122, "crashes": [{"file": crash, "kind": "tie-direction",
                                                                   "repro": "repro output " + HOSTILE}]},
                                {"name": "fuzz_formats", "status": 0, "runs": 500000, "corpus_before": 80,
                                 "corpus_after": 81, "crashes": []}],
               "new_findings": [{"file": f["file"], "op": f["op"], "kind": f["kind"], "signature": f["signature"],
                                 "count": f["count"]} for f in found if f["status"] == "NEW"],
               "regression_candidates": [], "failed_steps": [], "exit_status": 1}
    json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)

if __name__ == "__main__":
    main()
