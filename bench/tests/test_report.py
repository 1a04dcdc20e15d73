# Tests of the benchmark's data path without servers: raw files -> runs.csv -> summary.csv ->
# README tables and chart hash, on a synthetic results folder; and the checks that must fail when
# any link of that chain no longer matches. Also the plan and the memory settling rule.
# Run: python3 -m unittest test_report (from bench/tests; ctest's bench_report_selftest).
import array
import json
import os
import shutil
import struct
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "harness"))
import cells  # noqa: E402
import report  # noqa: E402
import run  # noqa: E402
import snapshot  # noqa: E402
import subscribers  # noqa: E402
import summary  # noqa: E402

RB_HEADER = ('"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms",'
             '"p99_latency_ms","max_latency_ms"\n')


def measure(wall_s, server_ticks, client_cpu_s, other0_ticks=0, other1_ticks=0):
    client_ticks = round(client_cpu_s * 100)
    zero = [0] * 8
    return {"wall_s": wall_s, "client_rusage": {"utime_s": client_cpu_s * 0.4,
                                                "stime_s": client_cpu_s * 0.6},
            "clk_tck": 100, "server_core": 0, "client_core": 1,
            "server_ticks_before": [10, 5], "server_ticks_after": [10 + server_ticks, 5],
            "cores_before": {"0": zero, "1": zero},
            "cores_after": {"0": [server_ticks + other0_ticks, 0, 0, 500, 0, 0, 0, 0],
                            "1": [client_ticks + other1_ticks, 0, 0, 500, 0, 0, 0, 0]}}


class Fixture:
    """A complete full-run results folder, written from a few made-up runs."""

    def __init__(self, root):
        self.root = root
        self.folder = os.path.join(root, "bench", "results", "20990101-000000")
        os.makedirs(os.path.join(self.folder, "raw"))
        self.order = []
        self.plan = [
            cells._profile_cell("SET", 32, 3, None, 1_000_000, 2),
            cells._profile_cell("LPUSH", 32, 3, None, 1_000_000, 2),
            cells._profile_cell("GET", 1, 3, None, 1_000_000, 2),
            cells.Cell("ycsb-A-P16", "ycsb", ("GET", "SET"),
                       {"workload": "A", "read_proportion": 0.5, "records": 1000,
                        "operations": 2000, "warmup": 100, "pipeline": 16, "clients": 50,
                        "value_bytes": 1024, "seed": 1}, 2),
            cells._memory_cell(1_000_000, "1M", 2, 30),
            cells.Cell("cg-SET-P32-d3", "callgrind", ("SET",),
                       {"test": "SET", "pipeline": 32, "size": 3, "requests": 1000,
                        "clients": 50}, 2),
        ]
        for rep in (1, 2):
            for engine, rps, ticks in (("keel", 1_200_000 + rep, 70), ("redis", 1_000_000, 90)):
                self.profile("SET-P32-d3", engine, rep, rps, ticks, client_cpu=0.5)
            self.profile("LPUSH-P32-d3", "redis", rep, 900_000, 95, client_cpu=0.5)
            for engine, ticks in (("keel", 400), ("redis", 450)):
                # Pipeline 1: the client's core is saturated; redis has another process beside it.
                self.profile("GET-P1-d3", engine, rep, 120_000, ticks, client_cpu=7.9,
                             wall=8.0, other0=200 if engine == "redis" else 0)
            for engine, rps in (("keel", 300_000.0), ("redis", 250_000.0)):
                self.ycsb(engine, rep, rps)
            for engine, used, rss in (("keel", 100_000_000, 120_000_000),
                                      ("redis", 170_000_000, 180_000_000)):
                self.memory(engine, rep, used, rss)
            for engine, load in (("keel", 3_000_000), ("redis", 6_000_000)):
                self.callgrind(engine, rep, load, 1_000_000)
        self.write_meta()

    def run_dir(self, cell, engine, rep):
        rel = os.path.join(cell, f"{engine}-{rep}")
        path = os.path.join(self.folder, "raw", rel)
        os.makedirs(path)
        self.order.append(rel)
        return path

    def probe(self, path, cell, group, engine, rep, params, **extra):
        record = {"cell": cell, "group": group, "engine": engine, "rep": rep, "params": params,
                  "checks": [{"name": "exit code", "ok": True, "detail": "0"}]}
        record.update(extra)
        with open(os.path.join(path, "probe.json"), "w") as out:
            json.dump(record, out)

    def params(self, cell_id):
        return next(c for c in self.plan if c.id == cell_id).params

    def profile(self, cell, engine, rep, rps, ticks, client_cpu, wall=1.0, other0=0):
        path = self.run_dir(cell, engine, rep)
        with open(os.path.join(path, "client.txt"), "w") as out:
            out.write(RB_HEADER + f'"{cell.split("-")[0]}","{rps:.2f}","0.5","0.1","0.400",'
                      '"0.6","0.750","2.100"\n')
        self.probe(path, cell, "profile", engine, rep, self.params(cell),
                   measure=measure(wall, ticks, client_cpu, other0))

    def ycsb(self, engine, rep, rps):
        path = self.run_dir("ycsb-A-P16", engine, rep)
        with open(os.path.join(path, "client.txt"), "w") as out:
            out.write(json.dumps({"requests": 2000, "rps": rps, "p50_ms": 1.0, "p99_ms": 2.0,
                                  "max_ms": 3.0, "errors": 0, "read_nulls": 0}) + "\n")
        self.probe(path, "ycsb-A-P16", "ycsb", engine, rep, self.params("ycsb-A-P16"),
                   measure=measure(2000 / rps, 1, 0.2))

    def memory(self, engine, rep, used, rss):
        path = self.run_dir("mem-1M", engine, rep)
        samples = [[float(t), used + (64 if t < 5 else 0), rss] for t in range(40)]
        self.probe(path, "mem-1M", "memory", engine, rep, self.params("mem-1M"),
                   memory={"keys": 1_000_000, "samples": samples, "load_wall_s": 2.0,
                           "empty_used_memory_bytes": 1000, "empty_rss_bytes": 4_000_000})

    def callgrind(self, engine, rep, load, idle):
        path = self.run_dir("cg-SET-P32-d3", engine, rep)
        for name, total in (("load", load), ("idle", idle)):
            with open(os.path.join(path, f"callgrind.{name}.totals"), "w") as out:
                out.write(f"summary: {total}\ntotals: {total}\n")
        self.probe(path, "cg-SET-P32-d3", "callgrind", engine, rep,
                   self.params("cg-SET-P32-d3"), callgrind={"load_wall_s": 1.5})

    def write_meta(self):
        manifest = {"profile": "full", "complete": True, "argv": ["bench/run"],
                    "started": "2099-01-01T00:00:00", "duration_s": 3600,
                    "engines": ["keel", "redis"], "cores": {"server": 0, "client": 1},
                    "cells": [{"id": c.id, "group": c.group, "requires": list(c.requires),
                               "params": c.params, "reps": c.reps} for c in self.plan]}
        machine = {"keel_commit": "0123456789abcdef", "cpu_model": "Test CPU",
                   "cores_online": 2, "kernel": "6.0",
                   "redis_server": "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc"}
        support = {"supported": {"keel": {"GET": True, "SET": True, "LPUSH": False},
                                 "redis": {"GET": True, "SET": True, "LPUSH": True}}}
        for name, value in (("manifest.json", manifest), ("machine.json", machine),
                            ("support.json", support)):
            with open(os.path.join(self.folder, name), "w") as out:
                json.dump(value, out)
        with open(os.path.join(self.folder, "raw", "order.txt"), "w") as out:
            out.write("\n".join(self.order) + "\n")
        summary.write_derived(self.folder)
        self.readme = os.path.join(self.root, "README.md")
        with open(self.readme, "w") as out:
            out.write(f"# Title\n\n## Performance\n\nBy hand.\n\n{report.BEGIN}\nold\n"
                      f"{report.END}\n\n## After\n")

    def fake_chart(self, points):
        """A PNG holding only the text chunk the check reads (drawing needs matplotlib)."""
        def chunk(kind, body):
            return (struct.pack(">I", len(body)) + kind + body +
                    struct.pack(">I", zlib.crc32(kind + body)))
        text = report.CHART_KEY.encode() + b"\0" + report.chart_hash(points).encode()
        with open(os.path.join(self.folder, report.CHART_NAME), "wb") as out:
            out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"tEXt", text) + chunk(b"IEND", b""))

    def publish(self):
        report.write(self.folder, self.readme, chart=False)
        self.fake_chart(report.chart_points(report.load(self.folder)))


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.fixture = Fixture(self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def section(self):
        with open(self.fixture.readme) as source:
            return report.split_readme(source.read())[1]

    def assert_check_fails(self, fragment):
        with self.assertRaises(report.CheckFailure) as failure:
            report.check(self.fixture.folder, self.fixture.readme)
        self.assertIn(fragment, str(failure.exception))

    def test_published_section_passes_the_check_and_keeps_the_rest(self):
        self.fixture.publish()
        report.check(self.fixture.folder, self.fixture.readme)
        with open(self.fixture.readme) as source:
            text = source.read()
        self.assertTrue(text.startswith("# Title\n\n## Performance\n\nBy hand.\n\n"))
        self.assertTrue(text.endswith(f"{report.END}\n\n## After\n"))

    def test_tables_hold_medians_ratios_and_labels(self):
        self.fixture.publish()
        section = self.section()
        # SET -P 32: medians 1,200,001.5 and 1,000,000; CPU 0.70 and 0.90 s per million.
        self.assertIn("| SET | 3 B | one key | 1,200,002 ±0% | 1,000,000 ±0% | 1.20 |", section)
        self.assertIn("| 0.70 | 0.90 | 0.78 | server |", section)
        lpush = next(line for line in section.splitlines() if line.startswith("| LPUSH"))
        self.assertIn("not supported", lpush)
        self.assertIn("| — |", lpush)
        get = next(line for line in section.splitlines() if line.startswith("| GET"))
        self.assertIn("**client-bound**", get)
        self.assertIn("120,000 ±0% †", get)  # redis shared its core with other work
        self.assertIn("| 1,000,000 | 120.0 | 180.0 | 0.67 | 100.0 | 170.0 | 0.59 |", section)
        self.assertIn("| SET -P 32 -d 3 -c 50 | 1,000 | 2,000 | 5,000 | 0.40 |", section)
        self.assertIn("**client-bound**: the load generator's core", section)

    def test_chart_points_use_cpu_where_client_bound(self):
        points = {p[0]: p for p in report.chart_points(report.load(self.fixture.folder))}
        self.assertEqual(points["SET-P32-d3"][2], "requests per second")
        self.assertEqual(points["GET-P1-d3"][2], "CPU per request (client-bound)")
        self.assertAlmostEqual(points["GET-P1-d3"][1], 4.5 / 4.0, places=3)
        self.assertEqual(points["LPUSH-P32-d3"][1:], [None, "not supported"])
        self.assertAlmostEqual(points["cg-SET-P32-d3"][1], 2.5, places=3)

    def test_check_fails_on_an_edited_table(self):
        self.fixture.publish()
        with open(self.fixture.readme) as source:
            text = source.read()
        with open(self.fixture.readme, "w") as out:
            out.write(text.replace("1,000,000 ±0%", "1,100,000 ±0%", 1))
        self.assert_check_fails("does not match")

    def test_check_fails_when_raw_data_changes(self):
        self.fixture.publish()
        path = os.path.join(self.fixture.folder, "raw", "SET-P32-d3", "redis-2", "client.txt")
        with open(path) as source:
            text = source.read()
        with open(path, "w") as out:
            out.write(text.replace("1000000.00", "1000001.00"))
        self.assert_check_fails("runs.csv line")

    def test_check_fails_when_summary_is_edited(self):
        self.fixture.publish()
        path = os.path.join(self.fixture.folder, "summary.csv")
        with open(path) as source:
            text = source.read()
        with open(path, "w") as out:
            out.write(text.replace("1200001.5000", "1300000.0000"))
        self.assert_check_fails("summary.csv line")

    def test_check_fails_on_a_chart_of_other_data(self):
        self.fixture.publish()
        self.fixture.fake_chart([["other", 1.0, "requests per second"]])
        self.assert_check_fails("was not drawn from this data")
        os.remove(os.path.join(self.fixture.folder, report.CHART_NAME))
        self.assert_check_fails("is missing")

    def test_placeholder_until_a_complete_full_run_exists(self):
        results = os.path.dirname(self.fixture.folder)
        self.assertEqual(report.published_folder(results), self.fixture.folder)
        partial = os.path.join(results, "20991231-000000")
        os.makedirs(partial)
        with open(os.path.join(partial, "manifest.json"), "w") as out:
            json.dump({"profile": "quick", "complete": True}, out)
        self.assertEqual(report.published_folder(results), self.fixture.folder)
        with open(os.path.join(self.fixture.folder, "manifest.json")) as source:
            manifest = json.load(source)
        manifest["complete"] = False
        with open(os.path.join(self.fixture.folder, "manifest.json"), "w") as out:
            json.dump(manifest, out)
        self.assertIsNone(report.published_folder(results))
        report.write(None, self.fixture.readme)
        self.assertEqual(self.section().strip("\n"), report.PLACEHOLDER)
        report.check(None, self.fixture.readme)

    def test_markers_are_required(self):
        with open(self.fixture.readme, "w") as out:
            out.write("# no markers\n")
        with self.assertRaises(report.CheckFailure):
            report.check(None, self.fixture.readme)


class HarnessTest(unittest.TestCase):
    def test_full_plan_covers_the_issue(self):
        plan = cells.full_plan()
        ids = {c.id for c in plan}
        for test in ("SET", "GET", "LPUSH", "LPOP"):
            for pipeline in (1, 16, 32):
                for size in (3, 64):
                    self.assertIn(f"{test}-P{pipeline}-d{size}", ids)
        for pipeline in (1, 16, 32):
            self.assertIn(f"SADD-P{pipeline}", ids)
            self.assertIn(f"GET-P{pipeline}-d3-rand", ids)
        for workload in "ABC":
            self.assertIn(f"ycsb-{workload}-P1", ids)
        self.assertIn("mem-10M", ids)
        # Issue 14's hash cells: HSET and HGET at -P 32 and 16, one field and -r 1,000,000.
        for test in ("HSET", "HGET"):
            for pipeline in (16, 32):
                self.assertIn(f"{test}-P{pipeline}-d3", ids)
                self.assertIn(f"{test}-P{pipeline}-d3-rand", ids)
        self.assertIn("mem-hash-1x1M", ids)
        self.assertIn("mem-hash-100kx10", ids)
        # Issue 16's snapshot figures: 10M keys, a write load during the save.
        snap = [c for c in plan if c.group == "snapshot"]
        self.assertEqual([c.id for c in snap], ["snap-BGSAVE-10M"])
        self.assertEqual(snap[0].params["keys"], 10_000_000)
        self.assertTrue(all(c.reps >= 3 for c in plan if c.group != "micro"))
        # A million requests each, but the two cells whose every request is heavy (a 1 MB
        # BITCOUNT, a ten-key PFCOUNT), which take 20,000.
        # BITCOUNT, a ten-key PFCOUNT), which take 20,000, and the pub/sub fan-outs, which
        # deliver each PUBLISH to 10 or 100 subscribers and take a fifth and a fiftieth.
        expected = {"bits-BITCOUNT-1MB-P1": 20_000, "bits-PFCOUNT-10keys-P1": 20_000,
                    "PUBLISH-P16-s10": 200_000, "PUBLISH-P16-s100": 20_000}
        self.assertIn("PUBLISH-P16-s0", ids)
        self.assertTrue(all(c.params["requests"] == expected.get(c.id, 1_000_000)
                            and c.params["clients"] == 50
                            for c in plan if c.group == "profile"))
        # Every profile cell has its words in the README's tables.
        for cell in plan:
            if cell.group == "profile":
                label = report.profile_label(cell.params, 1_000_000)
                self.assertEqual(label[0], cell.params["test"])
        ycsb = [c for c in plan if c.group == "ycsb"]
        self.assertTrue(all(c.params["records"] == 1_000_000 and c.params["value_bytes"] == 1024
                            for c in ycsb))
        self.assertEqual(cells.select(plan, "mem-*,SET-P1-d3")[0].id, "SET-P1-d3")
        with self.assertRaises(SystemExit):
            cells.select(plan, "nothing-like-this")

    def test_memory_settles_only_after_a_quiet_window(self):
        # Redis after 10M keys: flat for 8 s, then the old hash table is freed.
        samples = [[t, 1800, 1850] for t in range(9)] + [[t, 1735, 1780] for t in range(9, 20)]
        self.assertTrue(run.settled(samples[:6], 5))  # a 5 s window reads too early
        self.assertFalse(run.settled(samples[:9], 10))  # not yet 10 s of samples
        self.assertFalse(run.settled(samples[:12], 10))  # the drop is inside the window
        self.assertFalse(run.settled(samples[:19], 10))
        self.assertTrue(run.settled(samples[:20], 10))

    def test_latencies_of_a_window_count_each_reply(self):
        # (time, latency, replies): a read at 10 that completed 98 replies of 1 ms, one at 20 of
        # a single 5 ms reply, one at 30 of a 9 ms reply, and one after the window.
        words = array.array("Q", [10, 1_000_000, 98, 20, 5_000_000, 1, 30, 9_000_000, 1,
                                  40, 50_000_000, 1])
        with tempfile.NamedTemporaryFile() as timeline:
            timeline.write(words.tobytes())
            timeline.flush()
            words = snapshot.read_timeline(timeline.name)
        figures = snapshot.window_latencies(words, 10, 40)
        self.assertEqual(figures["replies"], 100)
        self.assertEqual(figures["p50_ms"], 1.0)
        self.assertEqual(figures["p99_ms"], 5.0)  # the 99th of 100 replies
        self.assertEqual(figures["p99.9_ms"], 9.0)
        self.assertEqual(figures["max_ms"], 9.0)  # the read at 40 is outside [10, 40)
        self.assertEqual(snapshot.window_latencies(words, 50, 60), {"replies": 0})
        with tempfile.NamedTemporaryFile() as torn:
            torn.write(words.tobytes()[:-8])
            torn.flush()
            with self.assertRaises(RuntimeError):
                snapshot.read_timeline(torn.name)

    def test_parses_redis_benchmark_csv(self):
        figures = summary.parse_redis_benchmark_csv(
            RB_HEADER + '"SET","1234567.89","0.391","0.112","0.375","0.527","0.775","2.111"\n')
        self.assertEqual(figures, {"rps": 1234567.89, "p50_ms": 0.375, "p99_ms": 0.775,
                                   "max_ms": 2.111})
        with self.assertRaises(ValueError):
            summary.parse_redis_benchmark_csv(RB_HEADER)

    def test_a_failed_check_makes_the_run_invalid(self):
        tmp = tempfile.mkdtemp()
        try:
            fixture = Fixture(tmp)
            path = os.path.join(fixture.folder, "raw", "SET-P32-d3", "keel-1", "probe.json")
            with open(path) as source:
                probe = json.load(source)
            probe["checks"].append({"name": "every GET found its key", "ok": False,
                                    "detail": "3 misses"})
            with open(path, "w") as out:
                json.dump(probe, out)
            row = summary.derive_run(os.path.dirname(path))
            self.assertEqual(row["status"], "invalid")
            self.assertIn("3 misses", row["detail"])
        finally:
            shutil.rmtree(tmp)


class SubscribersTest(unittest.TestCase):
    def test_counts_every_message_however_the_stream_is_cut(self):
        channel = b"bench:chan"
        message = subscribers.message_header(channel) + b"$8\r\nmmmmmmmm\r\n"
        end = subscribers.message_header(channel + subscribers.END_SUFFIX) + b"$3\r\nend\r\n"
        stream = message * 500 + end + message * 3
        rng = __import__("random").Random(7)
        for _ in range(300):
            counter = subscribers.Counter(channel)
            at = 0
            while at < len(stream) and not counter.ended:
                size = rng.randint(1, 90)
                counter.feed(stream[at:at + size])
                at += size
            self.assertTrue(counter.ended)
            self.assertEqual(counter.count, 500)


if __name__ == "__main__":
    unittest.main()
