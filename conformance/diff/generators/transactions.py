"""Random arguments for the transaction commands (Redis group "transactions"): MULTI, EXEC,
DISCARD, WATCH, UNWATCH.

They are left out of the random run: inside MULTI every command replies +QUEUED and EXEC's reply
holds the replies of the commands it ran, which the per-command normalisers (normalise.py) cannot
reach, so a transaction of a normalised command (CLIENT LIST, INFO, TIME, RANDOMKEY) would differ
between two correct servers. conformance/cases/multi.txt compares them byte for byte instead, with
two connections, and the simulator's oracle checks EXEC's atomicity and WATCH's outcomes against
its model (sim/model/model_multi.cc). `conformance/run --only watch` exercises one of them alone.
"""


def _bare(name):
    def generate(gen):
        return [gen.token(name)] + ([gen.value()] if gen.chance(0.05) else [])
    return generate


def watch(gen):
    return [gen.token("watch")] + gen.keys(0 if gen.chance(0.03) else 1, 4)


_REASON = ("inside MULTI and in EXEC's reply the normalisers cannot reach the commands' replies; "
           "compared in conformance/cases/multi.txt")

NOT_GENERATED = {
    "multi": (_REASON, _bare("multi")),
    "exec": (_REASON, _bare("exec")),
    "discard": (_REASON, _bare("discard")),
    "watch": (_REASON, watch),
    "unwatch": (_REASON, _bare("unwatch")),
}
