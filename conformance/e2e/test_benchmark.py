# redis-benchmark against keel-server: `-t set,get -P 16 -n 100000 -q` must finish, report a
# positive rate for both SET and GET and no error or warning; INFO stats must show at least the
# 200,000 commands it sent and no error replies. Then the list and set tests (LPUSH, LPOP, SADD,
# LRANGE_100 and LRANGE_600, fewer requests: an LRANGE_600 reply is 600 elements) the same way.
import re
import sys

import keel_harness as h

REQUESTS = 100_000
TESTS = ("SET", "GET")
LIST_TESTS = ("LPUSH", "LPOP", "SADD", "LRANGE_100", "LRANGE_600")
LIST_REQUESTS = 20_000


def reported_rates(output):
    """{"SET": requests per second, ...} from the final lines of -q output. Progress lines end in
    a carriage return; the final result of each test is "SET: 123.45 requests per second, ..."."""
    rates = {}
    for line in re.split(r"[\r\n]+", output):
        # "LRANGE_100 (first 100 elements): ..." and "LPUSH (needed to benchmark LRANGE): ...".
        match = re.match(r"\s*([A-Z_0-9]+)(?: \([^)]*\))?: ([0-9.]+) requests per second", line)
        if match:
            rates[match.group(1)] = float(match.group(2))
    return rates


def run_benchmark(server, tests, requests):
    """Runs redis-benchmark's `tests`; checks its output, its rates and the server's counters."""
    before = server.info("stats")
    result = h.run_tool([h.tool("redis-benchmark"), "-p", str(server.port), "-t",
                         ",".join(t.lower() for t in tests), "-P", "16", "-n", str(requests),
                         "-q"], timeout_s=90.0)
    output = result.stdout.decode(errors="replace")
    errors = result.stderr.decode(errors="replace")
    report = f"stdout: {output!r}\nstderr: {errors!r}"
    h.check_equal(result.returncode, 0, f"redis-benchmark exit code\n{report}")
    for word in ("error", "warning"):
        h.check(word not in (output + errors).lower(), f"redis-benchmark says {word}\n{report}")
    rates = reported_rates(output)
    h.check_equal(sorted(rates), sorted(tests), f"tests reported by redis-benchmark\n{report}")
    for test in tests:
        h.check(rates[test] > 0, f"{test} rate {rates[test]} is not positive\n{report}")
    after = server.info("stats")
    processed = int(after["total_commands_processed"]) - int(before["total_commands_processed"])
    sent = len(tests) * requests
    h.check(processed >= sent, f"total_commands_processed grew by {processed}, not >= {sent}")
    h.check_equal(after["total_error_replies"], before["total_error_replies"],
                  "total_error_replies during the benchmark")


def test_benchmark():
    with h.start_server() as server:
        run_benchmark(server, TESTS, REQUESTS)
        # Without -r every SET writes the literal key "key:__rand_int__" with a 3-byte value.
        value = server.command("GET", "key:__rand_int__")
        h.check(isinstance(value, bytes) and len(value) == 3,
                f"GET key:__rand_int__ after the benchmark: {value!r}")
        # The LRANGE tests fill "mylist" with LPUSH first (reported as LPUSH as well).
        run_benchmark(server, LIST_TESTS, LIST_REQUESTS)
        h.check(server.command("LLEN", "mylist") > 0, "mylist after the list tests")


if __name__ == "__main__":
    sys.exit(h.main({"benchmark": test_benchmark}))
