#!/usr/bin/env python3
"""Compares a JUnit XML report of the conformance suite on rxe0 with rxe-departures.txt.

Prints the counts and exits 0 only when the failing tests are exactly the listed departures: a failure
not listed is a bug (ours or rxe's, to be understood), a listed test that passes is a stale entry.
"""
import sys
import xml.etree.ElementTree as ET

report, departures_file = sys.argv[1], sys.argv[2]
listed = {}
for line in open(departures_file, encoding="utf-8"):
    if line.strip() and not line.startswith("#"):
        test_id, behaviour, why = [part.strip() for part in line.split("|")]
        listed[test_id] = (behaviour, why)

passed, skipped, failed = 0, 0, {}
for case in ET.parse(report).iter("testcase"):
    test_id = case.get("classname").split(".")[-1] + "#" + case.get("name")
    problem = case.find("failure") if case.find("failure") is not None else case.find("error")
    if problem is not None:
        failed[test_id] = (problem.get("message") or "").splitlines()[0][:160] if problem.get("message") else ""
    elif case.find("skipped") is not None:
        skipped += 1
    else:
        passed += 1

unexpected = sorted(set(failed) - set(listed))
stale = sorted(set(listed) - set(failed))
for test_id in unexpected:
    print(f"UNEXPECTED FAILURE  {test_id}: {failed[test_id]}")
for test_id in stale:
    print(f"NOW PASSES (stale departure)  {test_id}")
print(f"conformance on rxe0: {passed} passed, {len(failed)} failed ({len(failed) - len(unexpected)} listed "
      f"rxe departures, {len(unexpected)} unexpected), {skipped} skipped; {len(stale)} stale departures")
sys.exit(0 if not unexpected and not stale else 1)
