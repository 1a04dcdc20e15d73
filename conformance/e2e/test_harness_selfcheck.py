# Checks the harness itself: a failing assertion makes a case exit 1 with "FAIL", the server's log
# and no server left running; a known_bug check that fails skips (exit 77), and one that passes
# fails, so that stale markers are noticed.
import os
import re
import subprocess
import sys

import keel_harness as h


def must_fail():
    with h.start_server() as server:
        h.check_equal(server.command("GET", "missing"), b"present", "GET of a missing key")


def reproducing_known_bug():
    with h.known_bug("a check that fails"):
        h.check(False, "this check fails")


def stale_known_bug():
    with h.known_bug("a check that passes"):
        h.check(True, "this check passes")


def run_case(case):
    argv = [sys.executable, "-B", os.path.abspath(__file__), "--server", h.server_binary(),
            "--case", case]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


def selfcheck():
    failed = run_case("must_fail")
    h.check_equal(failed.returncode, 1, f"exit code of a failing case; output:\n{failed.stdout}")
    h.check_contains(failed.stdout, "FAIL must_fail: GET of a missing key", "failing case output")
    h.check_contains(failed.stdout, "Ready to accept connections", "server log in the report")
    pids = re.findall(r"pid=(\d+)", failed.stdout)
    h.check(pids, f"no server pid in the failure report:\n{failed.stdout}")
    for pid in pids:
        h.check(not os.path.exists(f"/proc/{pid}"), f"server {pid} still exists after the case")

    skipped = run_case("reproducing_known_bug")
    h.check_equal(skipped.returncode, h.SKIP_EXIT_CODE, f"known bug case:\n{skipped.stdout}")
    h.check_contains(skipped.stdout, "SKIPPED (known bug): a check that fails", "known bug output")

    stale = run_case("stale_known_bug")
    h.check_equal(stale.returncode, 1, f"stale known bug case:\n{stale.stdout}")
    h.check_contains(stale.stdout, "known bug no longer reproduces", "stale known bug output")


if __name__ == "__main__":
    sys.exit(h.main({"selfcheck": selfcheck, "must_fail": must_fail,
                     "reproducing_known_bug": reproducing_known_bug,
                     "stale_known_bug": stale_known_bug}))
