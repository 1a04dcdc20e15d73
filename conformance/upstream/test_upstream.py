"""Self-tests of run.py's output parser and guard lists and of score.py (no server, no suite)."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402
import score  # noqa: E402

# runtest output as the suite prints it with TERM=dumb (abridged from real runs).
OUTPUT = """Cleanup: may take some time... OK
Starting test server at port 21079
[ready]: 18622
Testing unit/type/incr
[ok]: INCR against non existing key (0 ms)
[ok]: Check (1 ms) like names (12 ms)
[err]: INCR fails against a key holding a list in tests/unit/type/incr.tcl
n command 'rpush', with args beginning with: 'mylist' '1'
ERR unknown command 'rpush', with args beginning with: 'mylist' '1'
    while executing
[err]: SETBIT with out of range bit offset in tests/unit/type/string.tcl
Expected 'ERR unknown' to match '*out of range*' (context: type source line 87)
[ok]: INCR against non existing key (0 ms)
[ignore]: Not supported on external server
[ignore]: MULTI with config set: Not supported on external server
[ignore]: big list: large memory flag not provided
[skip]: a skipped test
[exception]: Executing test client: ERR unknown command 'function'.
ERR unknown command 'function'
[TIMEOUT]: clients state report follows.
sock55d0 => (IN PROGRESS) BLPOP with a hung client
[1/1 done]: unit/type/incr (0 seconds)
"""


class ParseOutput(unittest.TestCase):
    def setUp(self):
        results, self.notes = run.parse_output(OUTPUT)
        self.results = run.number_duplicates(results)

    def test_statuses_and_names(self):
        self.assertEqual([(name, status) for name, status, _ in self.results], [
            ("INCR against non existing key", "passed"),
            ("Check (1 ms) like names", "passed"),
            ("INCR fails against a key holding a list", "failed"),
            ("SETBIT with out of range bit offset", "failed"),
            ("INCR against non existing key [2]", "passed"),
            ("MULTI with config set", "skipped"),
            ("big list", "skipped"),
            ("a skipped test", "skipped"),
            ("BLPOP with a hung client", "failed"),
        ])

    def test_details(self):
        details = {name: detail for name, _, detail in self.results}
        # --durable cut "ERR unknow"; the errorInfo line below has the whole message.
        self.assertEqual(details["INCR fails against a key holding a list"],
                         "ERR unknown command 'rpush', with args beginning with: 'mylist' '1'")
        self.assertTrue(details["SETBIT with out of range bit offset"].startswith(
            "Expected 'ERR unknown' to match"))
        self.assertEqual(details["MULTI with config set"], "Not supported on external server")
        self.assertIn("timeout", details["BLPOP with a hung client"])

    def test_file_notes(self):
        self.assertEqual(len(self.notes), 2)
        self.assertIn("ERR unknown command 'function'", self.notes[0])
        self.assertIn("--timeout", self.notes[1])


class Guard(unittest.TestCase):
    def test_rotation_covers_every_file_outside_the_fixed_list(self):
        units = run.GUARD_FILES[:3] + ["unit/a", "unit/b", "unit/c", "unit/d", "unit/e"]
        seen = set()
        for day in range(5):
            os.environ["KEEL_UPSTREAM_ROTATION"] = str(day)
            share = run.rotating_share(units, 2)
            self.assertEqual(len(share), 2)
            self.assertFalse(set(share) & set(run.GUARD_FILES))
            seen |= set(share)
        del os.environ["KEEL_UPSTREAM_ROTATION"]
        self.assertEqual(seen, {"unit/a", "unit/b", "unit/c", "unit/d", "unit/e"})

    def test_baseline_tests_pass_on_both_servers(self):
        here = os.path.dirname(os.path.abspath(__file__))
        baseline = run.read_list(os.path.join(here, "baseline.txt"))
        keel = run.read_results(os.path.join(here, "results-keel.tsv"))
        redis = run.read_results(os.path.join(here, "results-redis.tsv"))
        known = run.read_list(os.path.join(here, "known-differences.txt"))
        self.assertTrue(baseline)
        for key in baseline:
            self.assertEqual(keel[key][0], "passed", key)
            self.assertEqual(redis[key][0], "passed", key)
        for key, reason in known.items():
            self.assertTrue(reason, f"known difference without a reason: {key}")
            self.assertNotIn(key, baseline)


class Score(unittest.TestCase):
    def test_causes(self):
        self.assertEqual(score.cause("ERR unknown command 'sadd', with args beginning with: 's'"),
                         "missing command SADD")
        self.assertEqual(score.cause("ERR unknown subcommand or wrong number of arguments for "
                                     "'loadaof'. Try DEBUG HELP."),
                         "missing subcommand LOADAOF")
        self.assertIn("SYNC", score.cause("replication_stream error. Received '-ERR unknown"))
        self.assertIn("did not run", score.cause(""))
        self.assertEqual(score.cause("Expected 'a' to equal 'b'"), "other: Expected 'a' to equal 'b'")

    def test_every_failure_in_a_claimed_family_has_a_reason(self):
        here = os.path.dirname(os.path.abspath(__file__))
        self.assertEqual(score.unexplained(score.failure_reasons(here, run.GUARD_FILES)), [])
        reasons = {("unit/a", "t1"): "missing command XADD", ("unit/a", "t2"): "other: Expected 1",
                   ("unit/b", "t3"): "by design: x", ("unit/b", "t4"): "not yet: y"}
        self.assertEqual(score.unexplained(reasons), [("unit/a", "t2")])

    def test_a_run_of_some_files_keeps_the_other_files_results(self):
        with tempfile.TemporaryDirectory() as out:
            run.write_results(os.path.join(out, "results-keel.tsv"),
                              [("unit/a", "t1", "passed", ""), ("unit/b", "t2", "failed", "x")])
            with open(os.path.join(out, "summary.tsv"), "w", encoding="utf-8") as f:
                f.write("file\tcounted\tkeel_passed\tnotes\nunit/a\t1\t1\t\n"
                        "unit/b\t1\t0\ta note\n")
            kept = run.kept_rows(os.path.join(out, "results-keel.tsv"), ["unit/b"])
            self.assertEqual(kept, [("unit/a", "t1", "passed", "")])
            units, notes = run.merge_previous(out, ["unit/c", "unit/a"], {"unit/c": ["new"]})
            self.assertEqual(units, ["unit/a", "unit/b", "unit/c"])
            self.assertEqual(notes, {"unit/c": ["new"], "unit/b": ["a note"]})

    def test_check_detects_a_stale_readme(self):
        here = os.path.dirname(os.path.abspath(__file__))
        fresh = score.block(here)
        stale = fresh.replace("| **total** |", "| **total (stale)** |")
        self.assertNotEqual(fresh, stale)
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as f:
            f.write("# x\n\n" + stale + "\nafter\n")
        try:
            sys.argv = ["score.py", "--check", "--readme", f.name]
            self.assertEqual(score.main(), 1)
            sys.argv = ["score.py", "--readme", f.name]
            self.assertEqual(score.main(), 0)
            sys.argv = ["score.py", "--check", "--readme", f.name]
            self.assertEqual(score.main(), 0)
            with open(f.name, encoding="utf-8") as g:
                text = g.read()
            self.assertTrue(text.startswith("# x\n\n" + fresh))
            self.assertTrue(text.endswith("\nafter\n"))
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
