# bench/run's harness end to end at a tiny scale, on keel-server and redis-server: the results
# folder is complete, every server was pinned to core 0 and every load generator to core 1,
# readiness came from PING and each server exited cleanly, unsupported commands are detected by
# COMMAND INFO (never a hand list), GETs found their keys, the memory cell settled, and the
# big-request cell timed its command with PINGs answered meanwhile.
# It asserts the instrument works, never a speed: timing is not a test.
#   python3 test_run_smoke.py --keel build/asan/io/keel-server \
#       --loadgen build/asan/bench/keel_loadgen
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "harness"))
import servers  # noqa: E402
import summary  # noqa: E402

CELLS = ("SET-P32-d3,LPUSH-P32-d3,GET-P1-d3,GET-P32-d3-rand,ycsb-A-P16,mem-100k,big-SET-8MiB,"
         "churn-DEL-8MiB,snap-BGSAVE-200k")


def keel_knows(binary, command):
    """Asks keel-server itself, independently of the harness."""
    with tempfile.TemporaryDirectory() as tmp:
        server = servers.Server(servers.Engine("keel", binary), 0, tmp, "1gb")
        try:
            return server.command("COMMAND", "INFO", command)[0] is not None
        finally:
            server.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keel", required=True)
    parser.add_argument("--loadgen", required=True)
    args = parser.parse_args()
    if not shutil.which("redis-server") or not shutil.which("redis-benchmark"):
        print("redis-server or redis-benchmark missing: skipped")
        return 77
    failures = []

    def check(condition, message):
        if not condition:
            failures.append(message)
            print(f"FAIL: {message}")

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "results")
        result = subprocess.run(
            [sys.executable, "-B", os.path.join(os.path.dirname(HERE), "harness", "run.py"),
             "--quick", "--cells", CELLS, "--requests", "3000", "--out", out,
             "--keel", args.keel, "--loadgen", args.loadgen],
            capture_output=True, text=True, timeout=600)
        print(result.stdout[-4000:], result.stderr[-4000:])
        check(result.returncode == 0, f"run.py exit code {result.returncode}")
        for name in ("manifest.json", "machine.json", "support.json", "commands.txt",
                     "runs.csv", "summary.csv", "lscpu.txt"):
            check(os.path.exists(os.path.join(out, name)), f"{name} missing")
        if failures:
            return 1
        with open(os.path.join(out, "manifest.json")) as source:
            manifest = json.load(source)
        check(manifest["complete"] and manifest["profile"] == "quick", f"manifest {manifest}")
        rows = {(r["cell"], r["engine"]): r for r in summary.read_csv(
            os.path.join(out, "summary.csv"))}
        check(len(rows) == 18, f"{len(rows)} summary rows, not 9 cells x 2 engines")
        lpush_status = rows[("LPUSH-P32-d3", "keel")]["status"]
        expected = "ok" if keel_knows(args.keel, "LPUSH") else "not supported"
        check(lpush_status == expected, f"keel LPUSH is {lpush_status}, COMMAND INFO says "
              f"{expected}")
        check(rows[("LPUSH-P32-d3", "redis")]["status"] == "ok", "redis LPUSH was not measured")
        for (cell, engine), row in rows.items():
            if (cell, engine) == ("LPUSH-P32-d3", "keel") and expected != "ok":
                check(row["runs"] == "0", "an unsupported cell was run")
                continue
            check(row["status"] == "ok", f"{cell} {engine}: {row['status']}")
            if cell.startswith("mem-"):
                check(float(row["rss_bytes_per_key"]) > 64, f"{cell} {engine} RSS per key")
            elif cell.startswith("churn-"):
                # (The instrument, not the result: ASan's quarantine keeps freed memory.)
                check(float(row["full_rss_bytes"]) > 8 << 20 and
                      float(row["rss_after_churn_bytes"]) > 0,
                      f"{cell} {engine}: {row}")
            elif cell.startswith("snap-"):
                # Redis forked for its saves; Keel did not; both wrote a file, served the load
                # meanwhile and loaded the file at restart (checked in the runs).
                forked = float(row["fork_usec"]) > 0
                check(forked == (engine == "redis"), f"{cell} {engine}: fork {row['fork_usec']}")
                check(float(row["rdb_bytes"]) > 200_000 * 16 and
                      float(row["memory_peak_bytes"]) >= float(row["memory_before_bytes"]) > 0 and
                      float(row["p99_during_ms"]) > 0 and float(row["restart_s"]) > 0,
                      f"{cell} {engine}: {row}")
            elif cell.startswith("big-"):
                check(float(row["request_s"]) > 0 and float(row["peak_rss_bytes"]) > 8 << 20,
                      f"{cell} {engine}: {row}")
            else:
                check(float(row["rps"]) > 0 and float(row["p99_ms"]) > 0,
                      f"{cell} {engine}: {row}")
                check(row["client_bound"] in ("yes", "no"), f"{cell} {engine}: no bound label")
        runs = summary.read_csv(os.path.join(out, "runs.csv"))
        # Every cell once per engine, but keel's LPUSH while Keel has no lists.
        runs_expected = 18 if expected == "ok" else 17
        check(len(runs) == runs_expected, f"{len(runs)} runs, not {runs_expected}")
        with open(os.path.join(out, "commands.txt")) as source:
            commands = source.read().splitlines()
        starts = [c for c in commands if "--port" in c and "--maxmemory" in c]
        # The snapshot cell starts a second server per run, on the file the first wrote.
        check(len(starts) == runs_expected + 2 + 2,
              f"{len(starts)} server starts ({runs_expected} runs + 2 restarts + 2 support "
              "probes)")
        check(all("$ taskset -c 0 " in c for c in starts), "a server was not pinned to core 0")
        clients = [c for c in commands
                   if "redis-benchmark" in c or "keel_loadgen" in c or "bigreq.py" in c]
        check(clients and all("$ taskset -c 1 " in c for c in clients),
              "a load generator was not pinned to core 1")
        for run in runs:
            path = os.path.join(out, "raw", run["cell"], f"{run['engine']}-{run['rep']}")
            with open(os.path.join(path, "probe.json")) as source:
                probe = json.load(source)
            check(probe.get("server_exit_code") == 0, f"{path}: server exit code")
            names = {c["name"] for c in probe["checks"]}
            if run["cell"].startswith("GET"):
                check("every GET found its key" in names, f"{path}: no hit check")
            if run["cell"].startswith(("mem-", "churn-")):
                check("memory figures settled" in names, f"{path}: no settle check")
            if run["cell"].startswith("big-"):
                check("PINGs answered meanwhile" in names, f"{path}: no PING check")
            if run["cell"].startswith("snap-"):
                check("the restart loaded every key" in names, f"{path}: no restart check")
                check(probe.get("restart_server_exit_code") == 0, f"{path}: restart exit code")
        # And the derived CSVs are what the raw files give.
        derived = summary.as_text_rows(summary.RUN_COLUMNS, summary.derive_runs(out))
        check(derived == runs, "runs.csv differs from the raw files")
    print("bench/run smoke: " + ("FAILED" if failures else "every check passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
