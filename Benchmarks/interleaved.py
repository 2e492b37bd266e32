#!/usr/bin/env python3
"""Interleaved rounds against a copy, judged so that a noisy minute cannot flatter a ratio.

    interleaved.py ROUNDS SPEC.json

SPEC is {"peer": NAME, "pairs": [[OURS, THEIRS], ...]?, "commands": [{"name": NAME, "run": SHELL,
"prepare": SHELL?, "cleanup": SHELL?}, ...]}: each round runs every command once, in order, each between its
own untimed `prepare` and `cleanup` (removing its output: each command then writes into memory the one
before it gave back, as the copy does, and the outputs never pile up on /dev/shm). The
peer (a `cp -r` of the same data) is one of the commands. A round whose peer took more than 1.5 times the
run's best peer time is flagged and run again (at most ROUNDS more rounds in all); flagged rounds are
reported, never counted; once those extra rounds are spent, a round still over the limit is counted and
reported as such (`still_over_limit`).

Prints JSON: for each command its wall times (median, min, max), its peak RSS (the kernel's accounting of
that command's own children, KiB), and its ratio to the peer within each round (peer / command: above 1 is
faster than the copy), as median, min and max; the peer's time of each counted round; the flagged rounds.
"""
import json
import os
import statistics
import subprocess
import sys
import time

FLAG_FACTOR = 1.5


def run_once(command):
    if command.get("prepare"):
        subprocess.run(command["prepare"], shell=True, check=True)
    start = time.monotonic()
    process = subprocess.Popen(command["run"], shell=True, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.monotonic() - start
    if status != 0:
        sys.exit(f"failed (status {status}): {command['run']}")
    if command.get("cleanup"):
        subprocess.run(command["cleanup"], shell=True, check=True)
    return elapsed, usage.ru_maxrss


def main():
    rounds = int(sys.argv[1])
    with open(sys.argv[2]) as spec_file:
        spec = json.load(spec_file)
    commands = spec["commands"]
    names = [c["name"] for c in commands]
    peer = names.index(spec["peer"])
    counted, flagged, extra = [], [], 0

    def best_peer():
        return min(r[peer][0] for r in counted)

    while len(counted) < rounds:
        counted.append([run_once(c) for c in commands])
        # Judged against the best so far, then again once the rounds are in (the best may come late).
        if len(counted) > 1 and counted[-1][peer][0] > FLAG_FACTOR * best_peer() and extra < rounds:
            flagged.append(counted.pop())
            extra += 1
        if len(counted) == rounds:
            late = [r for r in counted if r[peer][0] > FLAG_FACTOR * best_peer()]
            for r in late:
                if extra >= rounds:
                    break
                counted.remove(r)
                flagged.append(r)
                extra += 1

    def summary(values):
        return {"median": statistics.median(values), "min": min(values), "max": max(values)}

    report = {"rounds": len(counted), "peer": spec["peer"], "peer_times": [r[peer][0] for r in counted],
              "flagged_peer_times": [r[peer][0] for r in flagged],
              "still_over_limit": sum(r[peer][0] > FLAG_FACTOR * best_peer() for r in counted), "commands": {}}
    for index, name in enumerate(names):
        report["commands"][name] = {
            "seconds": summary([r[index][0] for r in counted]),
            "peak_rss_kib": max(r[index][1] for r in counted),
            "ratio": summary([r[peer][0] / r[index][0] for r in counted]),
        }
    # Further pairs [OURS, THEIRS]: THEIRS / OURS within each round (above 1: ours is faster).
    report["pairs"] = {}
    for ours, theirs in spec.get("pairs", []):
        a, b = names.index(ours), names.index(theirs)
        report["pairs"][f"{ours} vs {theirs}"] = summary([r[b][0] / r[a][0] for r in counted])
    json.dump(report, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
