"""The readings of the snapshot cells (issue 16 item 2, docs/BENCHMARKING.md): what a background
save costs. Redis forks and its child writes the file while the kernel copies every page the
parent writes to; Keel serialises each key before a write changes it, in its own loop. So the
memory of a save is that of every process of the server together, each page counted once: the
server's resident set plus what only its children hold (their private pages: for Redis's save
child, the pages its parent has written since the fork, which the parent now holds a copy of).
The server's own pages are read from /proc/<pid>/status, which costs nothing; a child's private
pages from its smaps_rollup, which walks the child's page tables, not the server's (walking the
server's stalls its page faults behind the walk: it made Keel's p99 during a save three to ten
times higher in this cell). Standard library only.

  memory_bytes(pid)                 the server's RSS plus its children's private pages
  MemorySampler(pid)                samples memory_bytes in a thread; .peak_bytes
  children_cpu_s(pid)               CPU time of the server's reaped children (Redis's save child)
  child_pids(pid)                   the server's live children
  read_timeline(path)               keel_loadgen --timeline: [(time_ns, latency_ns, replies)]
  window_latencies(timeline, a, b)  the latency percentiles of the replies read in [a, b)
"""
import array
import math
import os
import threading

import procfs


def child_pids(pid):
    """The live children of every thread of `pid` (proc(5), /proc/pid/task/tid/children)."""
    children = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return children
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as listing:
                children += [int(word) for word in listing.read().split()]
        except (FileNotFoundError, ProcessLookupError):
            pass
    return children


def _private_bytes(pid):
    """Private_Clean + Private_Dirty of one process from smaps_rollup; 0 if it has exited."""
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError):
        return 0
    return total


def memory_bytes(pid):
    """The physical memory of the server and its children, each page counted once."""
    return (procfs.process_rss_bytes(pid) +
            sum(_private_bytes(child) for child in child_pids(pid)))


class MemorySampler:
    """Reads memory_bytes(pid) every `interval_s` until stopped; keeps the peak and how many
    children were seen. The server's own peak is its VmHWM (reset when the sampler starts), so a
    peak between two samples is not missed; a child's private pages only grow until it exits."""

    def __init__(self, pid, interval_s=0.1):
        self.pid = pid
        self.interval_s = interval_s
        self.peak_bytes = 0
        self.samples = 0
        self.children_seen = 0
        procfs.reset_peak_rss(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while True:
            self._sample()
            if self._stop.wait(self.interval_s):
                break

    def _sample(self):
        children = child_pids(self.pid)
        self.children_seen = max(self.children_seen, len(children))
        total = (procfs.process_rss_bytes(self.pid) +
                 sum(_private_bytes(child) for child in children))
        self.peak_bytes = max(self.peak_bytes, total, procfs.process_peak_rss_bytes(self.pid))
        self.samples += 1

    def stop(self):
        self._stop.set()
        self._thread.join()
        self._sample()  # the end counts too
        return self.peak_bytes


def children_cpu_s(pid):
    """utime + stime of the process's waited-for children (cutime, cstime: fields 16 and 17 of
    /proc/pid/stat), in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        text = stat.read()
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[13]) + int(fields[14])) / procfs.CLOCK_TICKS_PER_S


def read_timeline(path):
    """keel_loadgen's --timeline file: a flat array of (time_ns, latency_ns, replies) triples."""
    words = array.array("Q")
    with open(path, "rb") as timeline:
        words.frombytes(timeline.read())
    if len(words) % 3:
        raise RuntimeError(f"{path}: not a whole number of records")
    return words


def window_latencies(words, start_ns, end_ns, percentiles=(0.5, 0.99, 0.999)):
    """{"replies", "p50_ms", "p99_ms", "p99.9_ms", "max_ms"} of the replies read in
    [start_ns, end_ns), each read's latency counted once per reply it completed (nearest rank,
    as keel_loadgen's own percentiles)."""
    pairs = []
    for i in range(0, len(words), 3):
        if start_ns <= words[i] < end_ns:
            pairs.append((words[i + 1], words[i + 2]))
    total = sum(count for _, count in pairs)
    result = {"replies": total}
    if total == 0:
        return result
    pairs.sort()
    names = {0.5: "p50_ms", 0.99: "p99_ms", 0.999: "p99.9_ms"}
    for p in percentiles:
        rank = max(1, math.ceil(p * total - 1e-9))
        seen = 0
        for latency, count in pairs:
            seen += count
            if seen >= rank:
                result[names[p]] = latency / 1e6
                break
    result["max_ms"] = pairs[-1][0] / 1e6
    return result
