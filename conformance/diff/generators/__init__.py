"""The random differential run's command table: one argument generator per command.

Every module in this folder (other than common.py) is one command family, named after Redis's
COMMAND DOCS group ("string", "generic", "connection", "server", ...), and defines

    GENERATORS = {"name": (weight, function), ...}

where name is the command as COMMAND LIST spells it ("get", "client|setname"), weight its share of
the random run, and function(gen) returns one invocation's arguments (a list of bytes, the command
name first) drawn from gen, a common.Gen. A family adds its commands by adding entries (or a module)
here; `conformance/run` refuses to start while a command Keel implements has neither an entry nor
a reason in NOT_GENERATED, so a new command cannot be forgotten.

A module may also define NOT_GENERATED = {"name": (reason, function)}: commands that the random run
leaves out, each with the reason (they still have a function, so `conformance/run --only name`
can exercise them); and KNOWN_DIVERGENCES = [(name, description, function)]: differences the
random run found that are reported but not fixed yet, generated only with
`conformance/run --known-divergences` (docs/COMPATIBILITY.md marks those commands partial).
GENERATORS names starting with "(" are pseudo-entries (unknown commands, wrong arity): they are
not commands, and apply to the whole table.
"""

import importlib
import os
import pkgutil

from .common import Gen

__all__ = ["Gen", "load"]  # Gen is re-exported for the runner


def _family_modules():
    here = os.path.dirname(os.path.abspath(__file__))
    for info in sorted(pkgutil.iter_modules([here]), key=lambda m: m.name):
        if info.name != "common":
            yield info.name, importlib.import_module("%s.%s" % (__name__, info.name))


def load():
    """Returns (generators, not_generated, known_divergences): {name: (family, weight, function)},
    {name: (family, reason, function)} and [(name, description, function)]. A name defined twice
    is an error (ValueError)."""
    generators = {}
    not_generated = {}
    known_divergences = []
    for family, module in _family_modules():
        for name, (weight, function) in getattr(module, "GENERATORS", {}).items():
            if name in generators or name in not_generated:
                raise ValueError("%s is generated twice (family %s)" % (name, family))
            generators[name] = (family, weight, function)
        for name, (reason, function) in getattr(module, "NOT_GENERATED", {}).items():
            if name in generators or name in not_generated:
                raise ValueError("%s is generated twice (family %s)" % (name, family))
            not_generated[name] = (family, reason, function)
        known_divergences += getattr(module, "KNOWN_DIVERGENCES", [])
    return generators, not_generated, known_divergences
