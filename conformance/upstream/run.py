#!/usr/bin/env python3
"""Runs Redis's own Tcl test suite (tests/ of Debian's redis source package, fetched by fetch.sh)
against keel-server and redis-server in the suite's external mode, one fresh server per file.

  run.py                      # the whole suite against both servers; writes the results and the
                              # summary here and prints the score
  run.py --files unit/expire,unit/type/string         # only these files
  run.py --check              # the baseline guard (CI): the guard's files against keel-server
                              # only; fails when a test of baseline.txt no longer passes
  run.py --update-baseline    # after a full run: baseline.txt := the tests Keel passes now

What counts: a test counts when it passes against redis-server (the reference run); Keel's score
is the counted tests that also pass against keel-server. Both servers get the same options
(SERVER_OPTIONS, the parts of the suite's own tests/assets/default.conf that apply to a server the
suite did not start) and the suite gets the same flags (RUNTEST_FLAGS). The suite runs from a
working copy (build/upstream-work) with the few harness edits of HARNESS_EDITS, each with its
reason; no test is edited.

Files written (into conformance/upstream/ unless --out): results-keel.tsv and results-redis.tsv
(file, test, status passed/failed/skipped, detail), summary.tsv (per file: counted tests, Keel's
passes, notes such as a time limit or a server crash). score.py makes the README's table of them.
Python 3 standard library only.
"""
import argparse
import glob
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "conformance", "lib"))
import servers  # noqa: E402

# tests/assets/default.conf, less what only a server the suite starts itself needs (pidfile,
# logfile, dir, daemonize, always-show-logo) and with persistence off (the suite's external mode
# never expects a save point).
SERVER_OPTIONS = [
    "--save", "", "--appendonly", "no",
    "--enable-debug-command", "yes",
    "--enable-protected-configs", "yes",
    "--enable-module-command", "yes",
    "--latency-monitor-threshold", "1",
    "--notify-keyspace-events", "KEA",
    "--repl-diskless-sync-delay", "0",
    "--loglevel", "verbose",
    "--databases", "16",
    "--propagation-error-behavior", "panic",
]
# --durable: an exception inside a test fails that test instead of ending the file.
# --ignore-encoding: OBJECT ENCODING names Redis's internal representations (listpack, intset,
# ...), which Keel does not share by design; the tests still check every reply.
RUNTEST_FLAGS = ["--durable", "--ignore-encoding"]

# Edits to the suite's harness (tests/support, tests/test_helper.tcl), never to a test: (file,
# original text, replacement, reason). run.py stops if an original text is not found exactly once.
HARNESS_EDITS = [
    ("tests/support/server.tcl",
     "    r flushall\n    r function flush\n",
     "    r flushall\n"
     "    if {[catch {r function flush} e] && ![string match {*unknown command*} $e]} {\n"
     "        error $e $::errorInfo\n"
     "    }\n",
     "external mode flushes functions before every server block; a server without FUNCTION has "
     "none to flush, and without this edit every block would end with an exception before its "
     "first test"),
    ("tests/support/test.tcl",
     "                lappend details $::errorInfo\n            }\n"
     "            lappend ::tests_failed $details\n",
     "                lappend details $::errorInfo\n            }\n"
     "            lappend ::tests_failed $details\n"
     "            catch {r discard}\n",
     "a test that fails between MULTI and EXEC (on a command Keel does not have yet, such as "
     "GEOADD in 'command stats for MULTI') leaves its client queuing, and every later test of "
     "the file would get QUEUED; after a failed test the client's transaction is discarded (an "
     "error outside MULTI is ignored)"),
]

# The files the CI guard runs (the families Keel claims), in this order, within GUARD_BUDGET_S.
GUARD_FILES = ["unit/type/string", "unit/keyspace", "unit/expire", "unit/protocol",
               "unit/info", "unit/info-command", "unit/scan", "unit/introspection",
               "unit/introspection-2", "unit/slowlog", "unit/latency-monitor", "unit/type/incr",
               "unit/auth", "unit/quit", "unit/printver"]
GUARD_BUDGET_S = 300

STATUS_RE = re.compile(r"^\[(ok|err|skip|ignore|exception|TIMEOUT)\]: (.*)$")
OK_RE = re.compile(r"^(.*) \(\d+ ms\)$")
ERR_RE = re.compile(r"^(.*) in tests/\S+\.tcl$")
IGNORE_RE = re.compile(r"^(.*): (Not supported .*|Tag: .*|large memory flag not provided)$")
IN_PROGRESS_RE = re.compile(r"^\S+ => \(IN PROGRESS\) (.*)$")


def log(message):
    print(message, file=sys.stderr, flush=True)


def fetch_source(fetch=True):
    """The unpacked source folder (fetch.sh; idempotent). With fetch False, the one fetch.sh left
    in its cache, or exit 77 (skipped) when there is none."""
    if not fetch:
        cache = os.environ.get("KEEL_UPSTREAM_DIR", os.path.join(REPO, "build", "upstream-src"))
        found = sorted(glob.glob(os.path.join(cache, "redis-*", "runtest")))
        if not found:
            print(f"run.py: no suite in {cache} (conformance/upstream/fetch.sh gets it); skipped")
            sys.exit(77)
        return os.path.dirname(found[-1])
    out = subprocess.run(["bash", os.path.join(HERE, "fetch.sh")], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return out.strip().splitlines()[-1]


def prepare_workdir(src, work):
    """A fresh working copy of the suite: runtest, tests/ with HARNESS_EDITS applied, and src/
    with Debian's redis-cli and redis-benchmark (the suite calls src/redis-cli)."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    shutil.copy2(os.path.join(src, "runtest"), work)
    shutil.copytree(os.path.join(src, "tests"), os.path.join(work, "tests"), symlinks=True)
    os.makedirs(os.path.join(work, "src"))
    for tool in ("redis-cli", "redis-benchmark"):
        path = shutil.which(tool)
        if path:
            os.symlink(path, os.path.join(work, "src", tool))
    for relative, old, new, _reason in HARNESS_EDITS:
        path = os.path.join(work, relative)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if text.count(old) != 1:
            raise SystemExit(f"run.py: harness edit of {relative} does not apply (the suite "
                             f"changed?): {old!r}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new))


def suite_files(src):
    """The suite's own list of files (::all_tests in tests/test_helper.tcl), in its order."""
    with open(os.path.join(src, "tests", "test_helper.tcl"), encoding="utf-8") as f:
        text = f.read()
    match = re.search(r"set ::all_tests \{(.*?)\}", text, re.S)
    return match.group(1).split()


def parse_output(text):
    """[(test, status, detail)] and a list of file-level notes from runtest's output."""
    results = []
    notes = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        match = STATUS_RE.match(line)
        if match:
            kind, data = match.groups()
            if kind == "ok":
                name = OK_RE.match(data).group(1) if OK_RE.match(data) else data
                results.append((name, "passed", ""))
            elif kind == "err":
                err = ERR_RE.match(data)
                name = err.group(1) if err else data
                detail = ""
                while index < len(lines) and not lines[index].strip():
                    index += 1
                if index < len(lines) and not STATUS_RE.match(lines[index]):
                    detail = lines[index].strip()
                    # --durable cuts the first 10 characters ("assertion:") of any error; for an
                    # exception the next line, errorInfo's first, has the whole message.
                    following = lines[index + 1].strip() if index + 1 < len(lines) else ""
                    if detail and following.endswith(detail) and len(following) > len(detail):
                        detail = following
                results.append((name, "failed", detail))
            elif kind == "skip":
                results.append((data, "skipped", "skipped by name"))
            elif kind == "ignore":
                ignored = IGNORE_RE.match(data)
                if ignored:
                    results.append((ignored.group(1), "skipped", ignored.group(2)))
                # else a whole server block was left out by its tags: no test is named
            elif kind == "exception":
                detail = data
                if index < len(lines):
                    detail += " " + lines[index].strip()
                notes.append("exception: " + detail[:200])
            elif kind == "TIMEOUT":
                notes.append("a test exceeded --timeout")
            continue
        match = IN_PROGRESS_RE.match(line)
        if match:
            results.append((match.group(1), "failed", "timeout: no progress within --timeout"))
    return results, notes


def number_duplicates(results):
    """A name that occurs again in one file gets ' [2]', ' [3]', ... so each row is unique."""
    seen = {}
    numbered = []
    for name, status, detail in results:
        seen[name] = seen.get(name, 0) + 1
        label = name if seen[name] == 1 else f"{name} [{seen[name]}]"
        numbered.append((label, status, detail))
    return numbered


def suite_baseport():
    """A --baseport for runtest whose test server (it listens on the first of baseport-32 ...
    baseport-1 where that port and the port 10000 above it are free) gets a port that was free a
    moment ago, so two runs at once (two worktrees, CI) do not both pick the default 21079."""
    rng = random.Random(os.getpid() ^ time.monotonic_ns())
    for _ in range(100):
        port = rng.randrange(20000, 55000)
        try:
            for candidate in (port, port + 10000):
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                    probe.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port + 32
    return 21111  # the suite's default; its own probe still looks for a free port


def run_file(work, unit, binary, file_timeout, test_timeout, keep_logs):
    """Runs one suite file against a fresh server; returns (results, notes, seconds)."""
    server = servers.ServerProcess(
        binary, make_args=lambda port: ["--port", str(port)] + SERVER_OPTIONS,
        name=os.path.basename(binary))
    notes = []
    started = time.monotonic()
    try:
        server.start()
    except servers.StartError as error:
        return [], [f"server did not start: {str(error).splitlines()[0]}"], 0.0
    env = dict(os.environ, TERM="dumb")
    argv = ["./runtest", "--host", "127.0.0.1", "--port", str(server.port), "--single", unit,
            "--timeout", str(test_timeout), "--baseport", str(suite_baseport())] + RUNTEST_FLAGS
    process = subprocess.Popen(argv, cwd=work, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=file_timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        notes.append(f"stopped at the file time limit ({file_timeout}s)")
    # The suite's test server and its client run in the session started above; make sure none
    # of them survives (a client left blocked on a dead server, say).
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    text = output.decode(errors="replace")
    results, more_notes = parse_output(text)
    notes += more_notes
    if not server.running():
        notes.append(f"server exited during the file (status {server.process.poll()})")
    server.cleanup()
    if server.sanitizer_report():
        notes.append("sanitizer report in the server log")
    if keep_logs:
        os.makedirs(keep_logs, exist_ok=True)
        stem = unit.replace("/", "_") + "." + os.path.basename(binary)
        with open(os.path.join(keep_logs, stem + ".out"), "w") as f:
            f.write(text)
        with open(os.path.join(keep_logs, stem + ".log"), "w") as f:
            f.write(server.log())
    return number_duplicates(results), notes, time.monotonic() - started


WORK_PREFIX = os.path.join(REPO, "build", "upstream-work") + os.sep


def write_results(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write("file\ttest\tstatus\tdetail\n")
        for unit, name, status, detail in rows:
            # No machine's paths in the committed results: the working copy's become relative.
            clean = lambda s: s.replace("\t", " ").replace("\n", " ").replace(  # noqa: E731
                WORK_PREFIX, "")
            f.write(f"{unit}\t{clean(name)}\t{status}\t{clean(detail)[:300]}\n")


def read_results(path):
    """{(file, test): (status, detail)} in file order (dicts keep insertion order)."""
    rows = {}
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            rows[(parts[0], parts[1])] = (parts[2], parts[3] if len(parts) > 3 else "")
    return rows


def read_list(path):
    """Lines 'file<TAB>test[<TAB>reason]' of baseline.txt or known-differences.txt, comments
    (#) and blank lines left out: {(file, test): reason}."""
    entries = {}
    if not os.path.exists(path):
        return entries
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            entries[(parts[0], parts[1])] = parts[2] if len(parts) > 2 else ""
    return entries


def summarise(units, keel, redis, notes_by_unit, times):
    """Rows (file, counted, keel_passed, notes) for summary.tsv."""
    rows = []
    for unit in units:
        counted = [key for key, (status, _) in redis.items()
                   if key[0] == unit and status == "passed"]
        passed = [key for key in counted if keel.get(key, ("", ""))[0] == "passed"]
        rows.append((unit, len(counted), len(passed), "; ".join(notes_by_unit.get(unit, []))))
    return rows


def default_keel():
    return os.path.join(REPO, "build", "asan", "io", "keel-server")


def run_suite(args):
    src = fetch_source(not args.no_fetch)
    work = args.work
    prepare_workdir(src, work)
    units = args.files.split(",") if args.files else suite_files(src)
    out = args.out
    os.makedirs(out, exist_ok=True)
    redis_rows, keel_rows = [], []
    notes_by_unit, times = {}, {}
    for unit in units:
        redis_results, redis_notes, redis_s = run_file(
            work, unit, args.redis, args.file_timeout, args.test_timeout, args.keep_logs)
        redis_rows += [(unit, *row) for row in redis_results]
        redis_passed = sum(1 for row in redis_results if row[1] == "passed")
        notes = [f"redis-server: {note}" for note in redis_notes]
        if redis_passed == 0 and not args.all_files:
            keel_results, keel_notes, keel_s = [], ["no test passes on redis-server in "
                                                    "external mode; not run on keel-server"], 0.0
        else:
            keel_results, keel_notes, keel_s = run_file(
                work, unit, args.keel, args.file_timeout, args.test_timeout, args.keep_logs)
        keel_rows += [(unit, *row) for row in keel_results]
        notes += keel_notes if redis_passed == 0 and not args.all_files else [
            f"keel-server: {note}" for note in keel_notes]
        notes_by_unit[unit] = notes
        times[unit] = (redis_s, keel_s)
        keel_names = {row[0] for row in keel_results if row[1] == "passed"}
        keel_passed = sum(1 for row in redis_results if row[1] == "passed" and
                          row[0] in keel_names)
        log(f"{unit}: keel {keel_passed}/{redis_passed} ({redis_s:.0f}s redis, {keel_s:.0f}s "
            f"keel){' ' + '; '.join(notes) if notes else ''}")
    run_units = units
    if args.files:
        # A run of some files updates their rows and keeps every other file's: the committed
        # results stay whole, and the README's score stays a score of the whole suite.
        units, notes_by_unit = merge_previous(out, units, notes_by_unit)
        redis_rows = kept_rows(os.path.join(out, "results-redis.tsv"), run_units) + redis_rows
        keel_rows = kept_rows(os.path.join(out, "results-keel.tsv"), run_units) + keel_rows
        order = {unit: index for index, unit in enumerate(units)}
        redis_rows.sort(key=lambda row: order[row[0]])
        keel_rows.sort(key=lambda row: order[row[0]])
    write_results(os.path.join(out, "results-redis.tsv"), redis_rows)
    write_results(os.path.join(out, "results-keel.tsv"), keel_rows)
    keel = read_results(os.path.join(out, "results-keel.tsv"))
    redis = read_results(os.path.join(out, "results-redis.tsv"))
    rows = summarise(units, keel, redis, notes_by_unit, times)
    with open(os.path.join(out, "summary.tsv"), "w", encoding="utf-8") as f:
        f.write("file\tcounted\tkeel_passed\tnotes\n")
        for unit, counted, passed, notes in rows:
            f.write(f"{unit}\t{counted}\t{passed}\t{notes}\n")
    total = sum(row[1] for row in rows)
    passed = sum(row[2] for row in rows)
    run_rows = [row for row in rows if row[0] in run_units]
    print(f"Redis test suite: keel-server passes {sum(row[2] for row in run_rows)} of "
          f"{sum(row[1] for row in run_rows)} counted tests (tests that pass on redis-server), in "
          f"{len(run_units)} files" + (f"; in all {len(units)} files of the results: {passed} of "
                                        f"{total}" if args.files else ""))
    return 0


def kept_rows(path, replaced_units):
    """The rows of a results file outside `replaced_units`, as write_results takes them."""
    if not os.path.exists(path):
        return []
    return [(unit, name, status, detail)
            for (unit, name), (status, detail) in read_results(path).items()
            if unit not in replaced_units]


def merge_previous(out, units, notes_by_unit):
    """The files of a previous summary.tsv in `out` in their order, then `units` it lacked; and
    the notes of the files not run again."""
    previous, notes = [], dict(notes_by_unit)
    path = os.path.join(out, "summary.tsv")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in list(f)[1:]:
                parts = line.rstrip("\n").split("\t")
                if not parts[0]:
                    continue
                previous.append(parts[0])
                if parts[0] not in units and len(parts) > 3 and parts[3]:
                    notes[parts[0]] = [parts[3]]
    return previous + [unit for unit in units if unit not in previous], notes


def rotating_share(units, count):
    """`count` more files, changing every day, from the files with baseline tests outside the
    fixed guard list; KEEL_UPSTREAM_ROTATION overrides the day number."""
    rest = [unit for unit in units if unit not in GUARD_FILES]
    if not rest or count <= 0:
        return []
    day = int(os.environ.get("KEEL_UPSTREAM_ROTATION", int(time.time() // 86400)))
    start = (day * count) % len(rest)
    return [rest[(start + i) % len(rest)] for i in range(min(count, len(rest)))]


def check(args):
    """The guard: runs files against keel-server only and fails when a baseline test of a file
    that ran no longer passes."""
    baseline = read_list(args.baseline)
    baseline_units = list(dict.fromkeys(unit for unit, _ in baseline))
    if args.files:
        units = args.files.split(",")
    else:
        units = [unit for unit in GUARD_FILES if unit in baseline_units]
        units += rotating_share(baseline_units, args.rotate)
    src = fetch_source(not args.no_fetch)
    prepare_workdir(src, args.work)
    deadline = time.monotonic() + args.budget
    regressions, new_passes, checked, ran = [], [], 0, []
    for unit in units:
        if time.monotonic() > deadline:
            log(f"guard: time budget of {args.budget}s spent; not run: {unit}")
            continue
        results, notes, seconds = run_file(args.work, unit, args.keel, args.file_timeout,
                                           args.test_timeout, args.keep_logs)
        ran.append(unit)
        passed = {name for name, status, _ in results if status == "passed"}
        details = {name: detail for name, status, detail in results}
        expected = [name for u, name in baseline if u == unit]
        checked += len(expected)
        lost = [name for name in expected if name not in passed]
        if lost:
            # A loaded machine can fail a timing test once; a regression fails twice running.
            log(f"guard: {unit}: {len(lost)} baseline tests failed; running the file again")
            again, more_notes, more_seconds = run_file(
                args.work, unit, args.keel, args.file_timeout, args.test_timeout,
                args.keep_logs)
            passed_again = {name for name, status, _ in again if status == "passed"}
            flaky = [name for name in lost if name in passed_again]
            if flaky:
                log(f"guard: {unit}: passed the second time (flaky?): {'; '.join(flaky)}")
            lost = [name for name in lost if name not in passed_again]
            notes += more_notes
            seconds += more_seconds
        for name in lost:
            regressions.append(f"{unit}: {name}: {details.get(name, 'did not run') or 'failed'}")
        new_passes += [f"{unit}: {name}" for name in passed if (unit, name) not in baseline]
        log(f"guard: {unit}: {len(expected) - len(lost)}/{len(expected)} baseline tests pass "
            f"({seconds:.0f}s){' ' + '; '.join(notes) if notes else ''}")
    if new_passes:
        log("guard: tests that pass now but are not in baseline.txt (add them when they also "
            "pass on redis-server: run.py, then run.py --update-baseline):")
        for line in new_passes:
            log("  " + line)
    if regressions:
        log("guard: FAILED, baseline tests that no longer pass on keel-server:")
        for line in regressions:
            log("  " + line)
    print(f"guard: baseline tests of {len(ran)} files: {', '.join(ran)}")
    print(f"upstream: {checked - len(regressions)} passed, {len(regressions)} failed", flush=True)
    return 1 if regressions else 0


def update_baseline(args):
    keel = read_results(os.path.join(args.out, "results-keel.tsv"))
    redis = read_results(os.path.join(args.out, "results-redis.tsv"))
    known = read_list(os.path.join(HERE, "known-differences.txt"))
    lines = [f"{unit}\t{name}" for (unit, name), (status, _) in redis.items()
             if status == "passed" and keel.get((unit, name), ("",))[0] == "passed"]
    clash = [f"{u}: {n}" for (u, n) in known if f"{u}\t{n}" in lines]
    if clash:
        log("run.py: known differences that pass now (remove them from "
            "known-differences.txt): " + "; ".join(clash))
    with open(os.path.join(HERE, "baseline.txt"), "w", encoding="utf-8") as f:
        f.write("# Tests of Redis's suite that keel-server passes (and redis-server too), one per "
                "line: file<TAB>test.\n# Written by conformance/upstream/run.py "
                "--update-baseline from results-keel.tsv; `run.py --check` fails when one of\n"
                "# them no longer passes.\n")
        for line in lines:
            f.write(line + "\n")
    print(f"baseline.txt: {len(lines)} tests")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keel", default=default_keel(), help="keel-server binary")
    parser.add_argument("--redis", default=shutil.which("redis-server") or "redis-server")
    parser.add_argument("--files", help="comma-separated suite files (unit/expire,...)")
    parser.add_argument("--all-files", action="store_true",
                        help="run keel-server on files where nothing passes on redis-server too")
    parser.add_argument("--out", default=HERE, help="where results and summary go")
    parser.add_argument("--work", default=os.path.join(REPO, "build", "upstream-work"))
    parser.add_argument("--file-timeout", type=int,
                        help="wall time limit of one file, seconds (600; --check: 300)")
    parser.add_argument("--test-timeout", type=int,
                        help="runtest --timeout: seconds without progress before it gives up "
                             "(120, as in the full run: a test that waits for blocked clients needs it)")
    parser.add_argument("--keep-logs", help="folder for runtest output and server logs")
    parser.add_argument("--check", action="store_true", help="the baseline guard")
    parser.add_argument("--budget", type=int, default=GUARD_BUDGET_S,
                        help="--check: seconds after which no further file is started")
    parser.add_argument("--rotate", type=int, default=2,
                        help="--check: files of the rotating share")
    parser.add_argument("--baseline", default=os.path.join(HERE, "baseline.txt"),
                        help="--check: the list of tests that must pass")
    parser.add_argument("--update-baseline", action="store_true")
    parser.add_argument("--no-fetch", action="store_true",
                        help="use the suite fetch.sh left; exit 77 (skipped) without one")
    args = parser.parse_args()
    # The servers run in their own working folders: make paths absolute.
    args.keel = os.path.abspath(args.keel) if os.sep in args.keel else args.keel
    args.redis = os.path.abspath(args.redis) if os.sep in args.redis else args.redis
    global WORK_PREFIX
    WORK_PREFIX = os.path.abspath(args.work) + os.sep
    if args.file_timeout is None:
        args.file_timeout = 300 if args.check else 600
    if args.test_timeout is None:
        args.test_timeout = 120 if args.check else 120
    if args.update_baseline:
        return update_baseline(args)
    for binary in (args.keel,) + (() if args.check else (args.redis,)):
        if not os.path.exists(binary) and not shutil.which(binary):
            raise SystemExit(f"run.py: no server binary {binary}")
    return check(args) if args.check else run_suite(args)


if __name__ == "__main__":
    sys.exit(main())
