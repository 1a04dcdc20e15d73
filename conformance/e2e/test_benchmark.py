# redis-benchmark against keel-server: `-t set,get -P 16 -n 100000 -q` must finish, report a
# positive rate for both SET and GET and no error or warning; INFO stats must show at least the
# 200,000 commands it sent and no error replies.
import re
import sys

import keel_harness as h

REQUESTS = 100_000
TESTS = ("SET", "GET")


def reported_rates(output):
    """{"SET": requests per second, ...} from the final lines of -q output. Progress lines end in
    a carriage return; the final result of each test is "SET: 123.45 requests per second, ..."."""
    rates = {}
    for line in re.split(r"[\r\n]+", output):
        match = re.match(r"\s*([A-Z]+): ([0-9.]+) requests per second", line)
        if match:
            rates[match.group(1)] = float(match.group(2))
    return rates


def test_benchmark():
    with h.start_server() as server:
        before = server.info("stats")
        result = h.run_tool([h.tool("redis-benchmark"), "-p", str(server.port), "-t", "set,get",
                             "-P", "16", "-n", str(REQUESTS), "-q"], timeout_s=90.0)
        output = result.stdout.decode(errors="replace")
        errors = result.stderr.decode(errors="replace")
        report = f"stdout: {output!r}\nstderr: {errors!r}"
        h.check_equal(result.returncode, 0, f"redis-benchmark exit code\n{report}")
        for word in ("error", "warning"):
            h.check(word not in (output + errors).lower(), f"redis-benchmark says {word}\n{report}")
        rates = reported_rates(output)
        h.check_equal(sorted(rates), sorted(TESTS), f"tests reported by redis-benchmark\n{report}")
        for test in TESTS:
            h.check(rates[test] > 0, f"{test} rate {rates[test]} is not positive\n{report}")

        after = server.info("stats")
        processed = int(after["total_commands_processed"]) - int(before["total_commands_processed"])
        sent = len(TESTS) * REQUESTS
        h.check(processed >= sent, f"total_commands_processed grew by {processed}, not >= {sent}")
        h.check_equal(after["total_error_replies"], before["total_error_replies"],
                      "total_error_replies during the benchmark")
        # Without -r every SET writes the literal key "key:__rand_int__" with a 3-byte value.
        value = server.command("GET", "key:__rand_int__")
        h.check(isinstance(value, bytes) and len(value) == 3,
                f"GET key:__rand_int__ after the benchmark: {value!r}")


if __name__ == "__main__":
    sys.exit(h.main({"benchmark": test_benchmark}))
