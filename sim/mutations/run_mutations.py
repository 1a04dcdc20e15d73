#!/usr/bin/env python3
"""Measures the sweep's power: every planted bug in mutations.py must make it fail.

For each mutation, one at a time: copy the sources (without build/ and .git), replace the
mutation's snippet in the copy, rebuild keel-sim there (Release with KEEL_DEBUG_CHECKS, as the
simulator is built for speed; the copy's build directory is reused, so each mutation recompiles
one file), and run the CI-sized sweep, stopping at the first failing seed. An unmutated baseline
must pass the same sweep first, or a "caught" mutation would prove nothing.

usage: python3 sim/mutations/run_mutations.py [--seeds 1..2000] [--jobs 2] [--only NAME ...]
Exit status: 0 when every mutation was caught, 1 when one was missed, 2 on a setup error.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# Seeds kept because they once failed or catch what the range does not (corpus/sim/regressions).
REGRESSIONS = os.path.join(ROOT, "corpus", "sim", "regressions")
sys.path.insert(0, HERE)
from mutations import MUTATIONS  # noqa: E402


def run(command, **kwargs):
    return subprocess.run(command, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          **kwargs)


def copy_sources(target):
    if os.path.isdir(target):
        shutil.rmtree(target)
    # shutil.copy, not copy2: fresh modification times, so that the reused build directory
    # recompiles whatever a previous run left mutated.
    shutil.copytree(ROOT, target, ignore=shutil.ignore_patterns("build", ".git"),
                    copy_function=shutil.copy)


def build(source, build_dir):
    configure = ["cmake", "-S", source, "-B", build_dir, "-G", "Ninja",
                 "-DCMAKE_BUILD_TYPE=Release", "-DKEEL_DEBUG_CHECKS=ON", "-DKEEL_TESTS=OFF",
                 "-DKEEL_BENCHMARKS=OFF", "-DKEEL_WERROR=OFF"]
    result = run(configure)
    if result.returncode == 0:
        result = run(["cmake", "--build", build_dir, "--target", "keel-sim", "-j", "2"])
    return result


def sweep(build_dir, seeds, jobs, stop_on_failure):
    """The range, then the regression seeds (CI's sweep runs both): a planted bug counts as
    caught by either."""
    options = ["--jobs", str(jobs), "--no-shrink"]
    if stop_on_failure:
        options.append("--stop-on-failure")
    binary = os.path.join(build_dir, "sim", "keel-sim")
    result = run([binary, "--seeds", seeds] + options)
    if result.returncode != 0:
        return result
    return run([binary, "--seeds-file", REGRESSIONS] + options)


def first_failure(output):
    match = re.search(r"^FAIL seed (\d+) \(([^)]*)\)[^:]*: (.*)$", output, re.MULTILINE)
    if not match:
        return "?", "", ""
    return match.group(1), match.group(2), match.group(3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1..2000", help="the sweep (default: CI's, 1..2000)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="run only these mutations")
    parser.add_argument("--workdir", default=os.path.join(ROOT, "build", "mutations"))
    parser.add_argument("--share", type=int, default=1,
                        help="run one of N shares of the mutations, the day's (CI: 3, so that "
                             "every mutation runs every third day within CI's time); "
                             "KEEL_MUTATION_ROTATION overrides the day number")
    parser.add_argument("--check-snippets", action="store_true",
                        help="only check that every snippet occurs once in the sources (ctest)")
    args = parser.parse_args()

    mutations = [m for m in MUTATIONS if not args.only or m["name"] in args.only]
    if args.share > 1 and not args.check_snippets:
        day = int(os.environ.get("KEEL_MUTATION_ROTATION", int(time.time() // 86400)))
        mutations = [m for index, m in enumerate(mutations) if index % args.share == day % args.share]
        print(f"share {day % args.share + 1} of {args.share}: {len(mutations)} mutations "
              f"(the others run on the other days; without --share, all)", flush=True)
    if args.check_snippets:
        stale = [m for m in mutations
                 if open(os.path.join(ROOT, m["file"])).read().count(m["find"]) != 1]
        for mutation in stale:
            print(f"mutation {mutation['name']}: its snippet does not occur exactly once in "
                  f"{mutation['file']}: update sim/mutations/mutations.py")
        print(f"{len(mutations) - len(stale)} of {len(mutations)} mutation snippets are current")
        return 1 if stale else 0
    source = os.path.join(args.workdir, "src")
    build_dir = os.path.join(args.workdir, "build")
    copy_sources(source)
    for mutation in mutations:
        text = open(os.path.join(source, mutation["file"])).read()
        if text.count(mutation["find"]) != 1:
            print(f"mutation {mutation['name']}: its snippet occurs {text.count(mutation['find'])} "
                  f"times in {mutation['file']} (must be once): update sim/mutations/mutations.py")
            return 2

    print(f"baseline: building keel-sim in {build_dir} and sweeping seeds {args.seeds}", flush=True)
    started = time.time()
    result = build(source, build_dir)
    if result.returncode != 0:
        print(result.stdout[-4000:])
        print("baseline: the unmutated copy does not build")
        return 2
    result = sweep(build_dir, args.seeds, args.jobs, stop_on_failure=False)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    if result.returncode != 0:
        print(result.stdout[-4000:])
        print("baseline: the unmutated sources fail the sweep; fix that first")
        return 2
    print(f"baseline passes ({time.time() - started:.0f} s): {summary}", flush=True)

    missed = []
    for mutation in mutations:
        path = os.path.join(source, mutation["file"])
        original = open(path).read()
        started = time.time()
        try:
            with open(path, "w") as out:
                out.write(original.replace(mutation["find"], mutation["replace"]))
            result = build(source, build_dir)
            if result.returncode != 0:
                print(result.stdout[-4000:])
                print(f"mutation {mutation['name']}: the mutated copy does not build")
                return 2
            result = sweep(build_dir, args.seeds, args.jobs, stop_on_failure=True)
        finally:
            with open(path, "w") as out:
                out.write(original)
        seconds = time.time() - started
        if result.returncode == 1:
            seed, phase, failure = first_failure(result.stdout)
            print(f"CAUGHT  {mutation['name']} ({seconds:.0f} s): seed {seed} ({phase}): "
                  f"{failure[:160]}", flush=True)
        else:
            missed.append(mutation["name"])
            print(f"MISSED  {mutation['name']} ({seconds:.0f} s): {mutation['why']}", flush=True)
    print(f"{len(mutations) - len(missed)} of {len(mutations)} mutations caught")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
