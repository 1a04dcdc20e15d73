# keel_loadgen against real servers: a mass insertion stores every record, a YCSB-like mix sends
# exactly the operations asked for with the asked read share, counts reads of missing records as
# nulls, and the same seed gives the same operations on keel-server and on redis-server.
#   python3 test_loadgen.py --keel build/asan/io/keel-server --loadgen build/asan/bench/keel_loadgen
# (ctest's bench_loadgen_e2e). redis-server is used when installed.
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

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}")


def loadgen(binary, *args):
    result = subprocess.run([binary] + [str(a) for a in args], capture_output=True, text=True,
                            timeout=120)
    if result.returncode != 0:
        raise AssertionError(f"keel_loadgen {' '.join(map(str, args))} exited "
                             f"{result.returncode}: {result.stderr}")
    return json.loads(result.stdout)


def exercise(engine, binary, workdir):
    server = servers.Server(engine, 0, workdir, "1gb")
    try:
        port = server.port
        inserted = loadgen(binary, "insert", "--port", port, "--records", 3000, "--value-bytes",
                           100, "--connections", 3, "--pipeline", 64)
        check(inserted["requests"] == 3000 and inserted["errors"] == 0,
              f"{engine.name}: insert reply counts {inserted}")
        check(server.command("DBSIZE") == 3000, f"{engine.name}: DBSIZE after inserting 3000")
        value = server.command("GET", "key:000000002999")
        check(value == b"x" * 100, f"{engine.name}: GET of the last record gives {value!r}")

        before = int(server.info("stats")["total_commands_processed"])
        mix = loadgen(binary, "mix", "--port", port, "--records", 3000, "--operations", 5000,
                      "--read-proportion", 0.95, "--value-bytes", 100, "--connections", 7,
                      "--pipeline", 8, "--seed", 11)
        after = int(server.info("stats")["total_commands_processed"])
        check(mix["requests"] == 5000, f"{engine.name}: mix sent {mix['requests']} requests")
        check(mix["reads"] + mix["updates"] == 5000, f"{engine.name}: reads + updates {mix}")
        check(0.92 < mix["reads"] / 5000 < 0.98, f"{engine.name}: read share {mix['reads']}")
        check(mix["errors"] == 0 and mix["read_nulls"] == 0, f"{engine.name}: {mix}")
        check(after - before >= 5000, f"{engine.name}: the server counted {after - before}")
        check(0 < mix["p50_ms"] <= mix["p99_ms"] <= mix["max_ms"],
              f"{engine.name}: latency order {mix}")

        # Records beyond the inserted ones are missing: their reads must be counted as nulls.
        sparse = loadgen(binary, "mix", "--port", port, "--records", 6000, "--operations", 2000,
                         "--read-proportion", 1, "--distribution", "uniform", "--seed", 3)
        check(sparse["read_nulls"] > 0 and sparse["reads"] == 2000,
              f"{engine.name}: reads of missing records {sparse}")
        return mix["reads"]
    finally:
        server.stop()
        check(server.exit_code == 0, f"{engine.name} exit code {server.exit_code}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keel", required=True)
    parser.add_argument("--loadgen", required=True)
    args = parser.parse_args()
    engines = [servers.Engine("keel", args.keel)]
    if shutil.which("redis-server"):
        engines.append(servers.Engine("redis", shutil.which("redis-server")))
    reads = {}
    with tempfile.TemporaryDirectory() as tmp:
        for engine in engines:
            reads[engine.name] = exercise(engine, args.loadgen, os.path.join(tmp, engine.name))
    if len(reads) == 2:
        check(reads["keel"] == reads["redis"], f"same seed, different operations: {reads}")
    names = ", ".join(e.name for e in engines)
    print(f"keel_loadgen against {names}: " + ("FAILED" if failures else "every check passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
