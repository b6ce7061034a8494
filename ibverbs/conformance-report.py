#!/usr/bin/env python3
"""The conformance suite's report for one device, from JUnit's XML report of a run on it.

  conformance-report.py REPORT.xml DEPARTURES.txt [FULL_REPORT_OUT]

FULL_REPORT_OUT gets one line per behaviour: PASS, FAIL or DEPARTURE (a failure listed in
DEPARTURES.txt with what the device does and why), then the test's display name, which names the
IBTA rule or rdma-core behaviour it checks, and for a departure the device's behaviour. stdout gets
the failures that are not listed, the listed ones that now pass, and the last line
"N passed, N failed, N skipped". Exit 0 only when the failing tests are exactly the listed departures.
"""
import sys
import xml.etree.ElementTree as ET

report, departures_file = sys.argv[1], sys.argv[2]
full = open(sys.argv[3], "w", encoding="utf-8") if len(sys.argv) > 3 else None
listed = {}
sometimes = set()   # "?TEST-ID": a property that reaches the departure only with some random examples
for line in open(departures_file, encoding="utf-8"):
    if line.strip() and not line.startswith("#"):
        test_id, behaviour, why = [part.strip() for part in line.split("|")]
        if test_id.startswith("?"):
            test_id = test_id[1:]
            sometimes.add(test_id)
        listed[test_id] = (behaviour, why)


def display_name(case):
    out = case.find("system-out")
    for text_line in (out.text or "").splitlines() if out is not None else []:
        if "display-name:" in text_line:
            return text_line.split("display-name:", 1)[1].strip().split(" > ")[-1]
    return case.get("name")


passed, skipped, failed = 0, 0, {}
for case in ET.parse(report).iter("testcase"):
    test_id = case.get("classname").split(".")[-1] + "#" + case.get("name")
    problem = case.find("failure") if case.find("failure") is not None else case.find("error")
    name = case.get("classname").split(".")[-1] + ": " + display_name(case)
    if problem is not None:
        message = (problem.get("message") or "").strip().splitlines()
        failed[test_id] = message[0][:160] if message else ""
        if test_id in listed:
            verdict = f"DEPARTURE  {name}  -- device: {listed[test_id][0]} (see {listed[test_id][1]})"
        else:
            verdict = f"FAIL       {name}  -- {failed[test_id]}"
    elif case.find("skipped") is not None:
        skipped += 1
        verdict = f"SKIPPED    {name}"
    else:
        passed += 1
        verdict = f"PASS       {name}"
    if full:
        full.write(verdict + "\n")

unexpected = sorted(set(failed) - set(listed))
stale = sorted(set(listed) - set(failed) - sometimes)
for test_id in unexpected:
    print(f"UNEXPECTED FAILURE  {test_id}: {failed[test_id]}")
for test_id in stale:
    print(f"NOW PASSES (stale departure)  {test_id}")
summary = (f"of the {len(failed)} failures {len(failed) - len(unexpected)} are listed departures, "
           f"{len(unexpected)} are not; {len(stale)} listed departures now pass")
print(summary)
print(f"{passed} passed, {len(failed)} failed, {skipped} skipped")
if full:
    full.write(summary + "\n" + f"{passed} passed, {len(failed)} failed, {skipped} skipped\n")
sys.exit(0 if not unexpected and not stale else 1)
