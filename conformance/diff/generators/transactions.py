"""Random arguments for the transaction commands (Redis group "transactions"): MULTI, EXEC,
DISCARD, WATCH, UNWATCH.

Inside MULTI every command replies +QUEUED, and EXEC's reply holds the replies of the commands it
ran: the runner keeps each connection's queued commands and normalises each element of EXEC's
reply as that command's own reply would be (run_diff.compare_exec_form), so a transaction of a
normalised command (CLIENT LIST, INFO, TIME, RANDOMKEY) compares as it does alone. EXEC weighs
much more than MULTI so that transactions stay short (about a dozen commands) and most are not
doomed by a queuing error; WATCH is broken by the other connections' writes. conformance/cases/multi.txt pins the rules byte for byte, and the
simulator's oracle checks EXEC's atomicity and WATCH's outcomes against its model.
"""


def _bare(name):
    def generate(gen):
        return [gen.token(name)] + ([gen.value()] if gen.chance(0.05) else [])
    return generate


def watch(gen):
    return [gen.token("watch")] + gen.keys(0 if gen.chance(0.03) else 1, 4)


GENERATORS = {
    "multi": (4, _bare("multi")),
    "exec": (24, _bare("exec")),
    "discard": (2, _bare("discard")),
    "watch": (3, watch),
    "unwatch": (1, _bare("unwatch")),
}
