# Readings from /proc for the benchmark harness: a process's CPU time and resident size, and each
# core's busy and idle time (to tell a saturated client core and load from other processes).
import os

CLOCK_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def process_cpu_ticks(pid):
    """(utime, stime) of the whole process (all threads) in clock ticks, from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat") as stat:
        text = stat.read()
    # The command name is in parentheses and may hold spaces: split after the last ')'.
    fields = text[text.rindex(")") + 2:].split()
    # Fields 14 and 15 of proc(5), counted from 1 with pid and comm as 1 and 2.
    return int(fields[11]), int(fields[12])


def _status_bytes(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} for pid {pid}")


def process_rss_bytes(pid):
    return _status_bytes(pid, "VmRSS")


def process_peak_rss_bytes(pid):
    """The largest RSS since the process started or since reset_peak_rss (VmHWM)."""
    return _status_bytes(pid, "VmHWM")


def reset_peak_rss(pid):
    """Makes VmHWM start again from the current RSS (proc(5), clear_refs "5"; Linux 4.0+, and the
    process must be ours)."""
    with open(f"/proc/{pid}/clear_refs", "w") as clear:
        clear.write("5")


def cores_ticks():
    """{core number: [user, nice, system, idle, iowait, irq, softirq, steal]} from /proc/stat."""
    cores = {}
    with open("/proc/stat") as stat:
        for line in stat:
            if line.startswith("cpu") and line[3].isdigit():
                parts = line.split()
                cores[int(parts[0][3:])] = [int(x) for x in parts[1:9]]
    return cores


def busy_ticks(core_ticks):
    """Ticks a core spent running anything (all but idle and iowait)."""
    user, nice, system, idle, iowait, irq, softirq, steal = core_ticks
    return user + nice + system + irq + softirq + steal
