"""Replication's commands on a primary without replicas (issue 19): WAIT with nothing to wait for
(or a timeout of a few milliseconds), ROLE, and REPLCONF's options that reply. The stream itself is
tested end to end with redis-server (conformance/e2e/test_replication.py)."""


def wait(gen):
    # A positive count waits for the timeout: a few milliseconds at most (a timeout past the end
    # of time blocks Redis 7.0 forever, as its timeout table reads the wrapped deadline unsigned).
    replicas = gen.rng.choice([0, 0, 1, 2])
    timeout = gen.rng.choice([1, 2, 5]) if replicas else gen.rng.choice([0, 1])
    if gen.chance(0.1):
        return [gen.token("wait"), gen.integer_arg(lambda: 0), str(timeout).encode()]
    if gen.chance(0.1):
        return [gen.token("wait"), b"0", gen.rng.choice([b"-1", b"x", b"1.5"])]
    return [gen.token("wait"), str(replicas).encode(), str(timeout).encode()]


def replconf(gen):
    # ACK and GETACK never reply (the runner compares one reply per command): left out.
    args = [gen.token("replconf")]
    for _ in range(gen.rng.randint(0, 2)):
        option = gen.pick([b"listening-port", b"ip-address", b"capa", b"rdb-only",
                           b"rdb-filter-only", b"nosuch"])
        if option == b"listening-port":
            value = gen.integer_arg(lambda: gen.rng.randint(0, 65535))
        elif option == b"capa":
            value = gen.pick([b"eof", b"psync2", b"other"])
        elif option == b"rdb-only":
            value = gen.pick([b"0", b"1", b"2", b"x"])
        elif option == b"rdb-filter-only":
            value = gen.pick([b"", b"functions", b"x"])
        else:
            value = gen.value()
        args += [option, value]
    if gen.chance(0.1):
        args.append(gen.junk_word())
    return args


def role(gen):
    return [gen.token("role")] + ([gen.junk_word()] if gen.chance(0.1) else [])


def sync(gen):
    return [gen.token("sync")]


def psync(gen):
    return [gen.token("psync"), b"?", b"-1"]


def replicaof(name):
    return lambda gen: [gen.token(name), b"no", b"one"]


GENERATORS = {
    "wait": (0.3, wait),
    "replconf": (0.3, replconf),
    "role": (0.2, role),
}

STREAM_REASON = ("turns the connection into a replica that reads the replication stream "
                 "(conformance/e2e/test_replication.py and the ReplicationTest unit tests)")
REPLICAOF_REASON = ("would make the server a replica of another (the argument errors and NO ONE "
                    "are in conformance/cases/replication.txt; e2e/test_replication.py follows a "
                    "real primary)")

NOT_GENERATED = {
    "sync": (STREAM_REASON, sync),
    "psync": (STREAM_REASON, psync),
    "replicaof": (REPLICAOF_REASON, replicaof("replicaof")),
    "slaveof": (REPLICAOF_REASON, replicaof("slaveof")),
}
