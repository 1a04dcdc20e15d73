#!/usr/bin/env python3
"""Server CPU per request, user and system apart, from a bench/run results folder (the profile
cells' raw/<cell>/<engine>-<rep>/probe.json: the server's utime and stime ticks from
/proc/<pid>/stat before and after the measured redis-benchmark run). Prints, per cell and
engine, the median over the repetitions in microseconds per request, and the server's req/s.

    bench/cpu_split.py build/bench-results/<folder> [--label keel=keel-io_uring]
"""
import argparse
import glob
import json
import os
import statistics


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--label", action="append", default=[],
                        help="engine=name: how to print an engine (e.g. keel=keel-epoll)")
    args = parser.parse_args()
    labels = dict(item.split("=", 1) for item in args.label)
    rows = {}
    for path in sorted(glob.glob(os.path.join(args.folder, "raw", "*", "*", "probe.json"))):
        with open(path) as probe_file:
            probe = json.load(probe_file)
        measure = probe.get("measure") or {}
        if probe.get("group") != "profile" or "server_ticks_after" not in measure:
            continue
        requests = probe["params"]["requests"]
        tick_us = 1e6 / measure["clk_tck"]
        before, after = measure["server_ticks_before"], measure["server_ticks_after"]
        user_us = (after[0] - before[0]) * tick_us / requests
        system_us = (after[1] - before[1]) * tick_us / requests
        rps = requests / measure["wall_s"]
        key = (probe["cell"], labels.get(probe["engine"], probe["engine"]))
        rows.setdefault(key, []).append((user_us, system_us, rps))
    print(f"{'cell':14} {'engine':16} {'reps':>4} {'user us/req':>12} {'system us/req':>14} "
          f"{'total':>7} {'req/s':>9}")
    for (cell, engine), runs in sorted(rows.items()):
        user = statistics.median(r[0] for r in runs)
        system = statistics.median(r[1] for r in runs)
        rps = statistics.median(r[2] for r in runs)
        print(f"{cell:14} {engine:16} {len(runs):>4} {user:12.3f} {system:14.3f} "
              f"{user + system:7.3f} {rps:9,.0f}")


if __name__ == "__main__":
    main()
