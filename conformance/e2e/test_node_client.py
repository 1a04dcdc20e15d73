# Node.js's official Redis client (Debian's node-redis 4.5) against keel-server: runs
# node_client_session.js, a realistic session with its own assertions, against redis-server and
# then keel-server, and checks that both pass and print the same results. MULTI/EXEC and WATCH
# are left out of both sessions (and the output says so) when keel-server has no MULTI.
import json
import os
import sys

import keel_harness as h

SESSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node_client_session.js")
# Debian installs node modules there; the machine's node may not search it by default.
NODE_PATH = "/usr/share/nodejs"


def run_session(server, with_multi):
    environment = dict(os.environ, NODE_PATH=NODE_PATH)
    argv = [h.tool("node"), SESSION, str(server.port)] + ([] if with_multi else ["no-multi"])
    h.check(os.path.isdir(os.path.join(NODE_PATH, "redis")),
            "node-redis is not installed (bash .ci/deps installs Debian's node-redis)")
    result = h.run_tool(argv, timeout_s=60.0, environment=environment)
    output = result.stdout.decode(errors="replace")
    errors = result.stderr.decode(errors="replace")
    h.check_equal(result.returncode, 0, f"node session exit code; stdout:\n{output}\n"
                                        f"stderr:\n{errors}")
    lines = output.strip().splitlines()
    for line in lines[:-1]:
        print(f"{server.name}: {line}")
    return json.loads(lines[-1])


def test_session():
    with h.start_server() as server:
        with_multi = h.has_command(server, "multi")
    redis_result, keel_result = h.on_redis_then_keel(lambda s: run_session(s, with_multi))
    h.check_equal(keel_result, redis_result, "the node session's results, keel vs redis")
    h.check_equal(sorted(keel_result), sorted(["reads", "errors", "info", "pubsub"] +
                                              (["transaction"] if with_multi else [])),
                  "the parts of the session that ran")


if __name__ == "__main__":
    sys.exit(h.main({"session": test_session}))
