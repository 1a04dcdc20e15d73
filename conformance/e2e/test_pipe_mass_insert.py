# Mass insertion with `redis-cli --pipe`: a generated RESP stream of 100,000 SET commands is piped
# into keel-server; redis-cli must report "errors: 0, replies: 100000", after which DBSIZE is
# 100000 and spot-checked keys hold their values.
import sys

import keel_harness as h

KEY_COUNT = 100_000
SPOT_CHECKS = (0, 1, 4_242, 65_535, 99_999)


def key(index):
    return b"key:%d" % index


def value(index):
    return b"value:%d:" % index + b"v" * (index % 17)  # lengths vary, to vary the bulk headers


def mass_insert_stream():
    return b"".join(h.encode_command(b"SET", key(i), value(i)) for i in range(KEY_COUNT))


def test_pipe():
    stream = mass_insert_stream()
    with h.start_server() as server:
        result = h.redis_cli(server.port, ["--pipe"], input_bytes=stream, timeout_s=60.0)
        output = result.stdout.decode(errors="replace")
        h.check_equal(result.returncode, 0, f"redis-cli --pipe exit code (output: {output!r})")
        h.check_contains(output, "All data transferred.", "redis-cli --pipe output")
        h.check_contains(output, f"errors: 0, replies: {KEY_COUNT}", "redis-cli --pipe summary")
        with server.connect() as conn:
            h.check_equal(conn.command("DBSIZE"), KEY_COUNT, "DBSIZE after --pipe")
            for index in SPOT_CHECKS:
                h.check_equal(conn.command("GET", key(index)), value(index), f"GET {key(index)}")
            h.check_equal(conn.command("GET", key(KEY_COUNT)), None, "GET of a key never set")
            keyspace = h.parse_info(conn.command("INFO", "keyspace")).get("db0")
            h.check_equal(keyspace, f"keys={KEY_COUNT},expires=0,avg_ttl=0", "INFO keyspace db0")


if __name__ == "__main__":
    sys.exit(h.main({"pipe": test_pipe}))
