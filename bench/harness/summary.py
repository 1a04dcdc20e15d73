# From a results folder's raw files to its figures: one row per run (runs.csv) and one row per
# cell and engine (summary.csv). bench/harness/run.py writes both after a run; bench/report.py
# --check derives them again from the raw files and fails if the committed CSVs differ.
import csv
import json
import os
import statistics

CLIENT_BOUND_UTIL = 0.90  # the load generator's core this busy: the cell is client-bound
NOISE_LIMIT = 0.10  # other work above this share of a core during a run: the run is noisy
SETTLE_TOLERANCE = 0.001  # memory figures moving less than 0.1% over the window have settled

# The snapshot cells' figures (bench/harness/snapshot.py), in runs.csv and summary.csv: the idle
# save's time, CPU (the server's and its save child's) and file; the save under load's time, the
# memory of all the server's processes before it and at its peak, the load's p99 in the seconds
# before and during it; the restart's time until it answered PING, and its CPU.
SNAPSHOT_COLUMNS = [
    "save_s", "save_cpu_s", "rdb_bytes", "save_mb_per_cpu_s", "fork_usec", "loaded_save_s",
    "memory_before_bytes", "memory_peak_bytes", "p99_before_ms", "p99_during_ms",
    "max_during_ms", "restart_s", "restart_cpu_s"]

RUN_COLUMNS = [
    "cell", "group", "engine", "rep", "status", "detail", "requests", "wall_s", "rps", "p50_ms",
    "p99_ms", "max_ms", "server_cpu_s", "cpu_s_per_M", "server_util", "client_util",
    "other_core0", "other_core1", "keys", "rss_bytes", "used_memory_bytes", "rss_bytes_per_key",
    "used_memory_bytes_per_key", "empty_rss_bytes", "empty_used_memory_bytes", "settle_s",
    "instructions_load", "instructions_idle", "instructions_per_request",
    # Big requests (appended, so that runs.csv of older results folders still check: their rows
    # leave these empty).
    "request_bytes", "request_s", "request_cpu_s", "peak_rss_bytes",
    # Churn (appended likewise).
    "full_rss_bytes", "rss_after_churn_bytes", "used_memory_after_churn_bytes",
    # Background saves (appended likewise).
    ] + SNAPSHOT_COLUMNS

SUMMARY_COLUMNS = [
    "cell", "group", "engine", "status", "runs_ok", "runs", "rps", "rps_min", "rps_max", "p50_ms",
    "p99_ms", "max_ms", "cpu_s_per_M", "server_util", "client_util", "client_bound", "noise",
    "rss_bytes_per_key", "used_memory_bytes_per_key", "instructions_per_request",
    "request_s", "request_cpu_s", "peak_rss_bytes", "full_rss_bytes", "rss_after_churn_bytes",
    ] + SNAPSHOT_COLUMNS

MICRO_COLUMNS = ["benchmark", "statistic", "real_time_ns", "cpu_time_ns", "items_per_second",
                 "iterations"]


def fmt(value):
    """One spelling per value, so that derived CSVs compare as text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def write_csv(path, columns, rows):
    with open(path, "w", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([fmt(row.get(column)) for column in columns])


def read_csv(path):
    with open(path, newline="") as source:
        return list(csv.DictReader(source))


def as_text_rows(columns, rows):
    return [{column: fmt(row.get(column)) for column in columns} for row in rows]


# ------------------------------------------------------------------------------------------------
# Client outputs


def parse_redis_benchmark_csv(text):
    """redis-benchmark --csv: a header line, then "TEST","rps","avg","min","p50","p95","p99","max"
    (latencies in milliseconds)."""
    for line in text.splitlines():
        fields = [f.strip('"') for f in line.strip().split(",")]
        if len(fields) == 8 and fields[0] != "test":
            return {"rps": float(fields[1]), "p50_ms": float(fields[4]),
                    "p99_ms": float(fields[6]), "max_ms": float(fields[7])}
    raise ValueError("no result line in redis-benchmark output")


def parse_loadgen_json(text):
    result = json.loads(text.strip().splitlines()[-1])
    return {"rps": float(result["rps"]), "p50_ms": float(result["p50_ms"]),
            "p99_ms": float(result["p99_ms"]), "max_ms": float(result["max_ms"]),
            "requests": int(result["requests"])}


def parse_callgrind_total(text):
    """The instruction count of a callgrind profile ("totals:" or "summary:" line)."""
    for line in text.splitlines():
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError("no totals line in callgrind output")


# ------------------------------------------------------------------------------------------------
# One run


def _read(path):
    with open(path, errors="replace") as source:
        return source.read()


def _cpu_figures(measure, requests):
    """Server CPU, its share of the run, the client's share, and other work on each core."""
    ticks = measure["clk_tck"]
    wall = measure["wall_s"]
    server_ticks = sum(measure["server_ticks_after"]) - sum(measure["server_ticks_before"])
    server_cpu_s = server_ticks / ticks
    client_cpu_s = measure["client_rusage"]["utime_s"] + measure["client_rusage"]["stime_s"]
    # Helpers of the load on the client core (the pub/sub cells' subscribers) count as client.
    client_cpu_s += (sum(measure.get("helper_ticks_after", ())) -
                     sum(measure.get("helper_ticks_before", ()))) / ticks
    cores_before = {int(k): v for k, v in measure["cores_before"].items()}
    cores_after = {int(k): v for k, v in measure["cores_after"].items()}

    def busy(core):
        user, nice, system, idle, iowait, irq, softirq, steal = (
            a - b for a, b in zip(cores_after[core], cores_before[core]))
        return (user + nice + system + irq + softirq + steal) / ticks

    server_core, client_core = measure["server_core"], measure["client_core"]
    return {
        "wall_s": wall,
        "server_cpu_s": server_cpu_s,
        "cpu_s_per_M": server_cpu_s / requests * 1e6 if requests else None,
        "server_util": server_cpu_s / wall,
        "client_util": client_cpu_s / wall,
        "other_core0": max(0.0, busy(server_core) - server_cpu_s) / wall,
        "other_core1": max(0.0, busy(client_core) - client_cpu_s) / wall,
    }


def derive_run(run_dir):
    """The runs.csv row of one run, from its raw files only."""
    probe = json.loads(_read(os.path.join(run_dir, "probe.json")))
    row = {"cell": probe["cell"], "group": probe["group"], "engine": probe["engine"],
           "rep": probe["rep"]}
    problems = [f"{c['name']}: {c['detail']}" for c in probe.get("checks", []) if not c["ok"]]
    if probe.get("error"):
        row["status"] = "failed"
        row["detail"] = probe["error"]
        return row
    row["status"] = "invalid" if problems else "ok"
    row["detail"] = "; ".join(problems)
    group = probe["group"]
    if group in ("profile", "ycsb"):
        client = _read(os.path.join(run_dir, "client.txt"))
        if group == "profile":
            figures = parse_redis_benchmark_csv(client)
            requests = probe["params"]["requests"]
        else:
            figures = parse_loadgen_json(client)
            requests = figures.pop("requests")
        row.update(figures)
        row["requests"] = requests
        row.update(_cpu_figures(probe["measure"], requests))
    elif group == "memory":
        memory = probe["memory"]
        keys = memory["keys"]
        used, rss = memory["samples"][-1][1], memory["samples"][-1][2]
        row.update({"keys": keys, "rss_bytes": rss, "used_memory_bytes": used,
                    "rss_bytes_per_key": rss / keys, "used_memory_bytes_per_key": used / keys,
                    "empty_rss_bytes": memory["empty_rss_bytes"],
                    "empty_used_memory_bytes": memory["empty_used_memory_bytes"],
                    "settle_s": memory["samples"][-1][0]})
    elif group == "bigreq":
        # The command's own time and the PING latencies of another client meanwhile come from
        # the client; the server's CPU over the command and its peak RSS from /proc.
        result = json.loads(_read(os.path.join(run_dir, "client.txt")).strip().splitlines()[-1])
        cpu = _cpu_figures(probe["measure"], None)
        row.update({"request_bytes": result["request_bytes"], "request_s": result["request_s"],
                    "request_cpu_s": cpu["server_cpu_s"],
                    "peak_rss_bytes": probe["bigreq"]["peak_rss_bytes"],
                    "p50_ms": result["p50_ms"], "p99_ms": result["p99_ms"],
                    "max_ms": result["max_ms"], "other_core0": cpu["other_core0"],
                    "other_core1": cpu["other_core1"]})
    elif group == "churn":
        churn = probe["churn"]
        row.update({"full_rss_bytes": churn["full_rss_bytes"],
                    "rss_after_churn_bytes": churn["samples"][-1][2],
                    "used_memory_after_churn_bytes": churn["samples"][-1][1],
                    "empty_rss_bytes": churn["empty_rss_bytes"],
                    "peak_rss_bytes": churn["peak_rss_bytes"],
                    "settle_s": churn["samples"][-1][0]})
    elif group == "snapshot":
        result = probe["snapshot"]
        idle, loaded = result["idle"], result["under_load"]
        cpu_s = idle["server_cpu_s"] + idle["child_cpu_s"]
        row.update({"keys": probe["params"]["keys"], "save_s": idle["wall_s"],
                    "save_cpu_s": cpu_s, "rdb_bytes": result["rdb_bytes"],
                    "save_mb_per_cpu_s": result["rdb_bytes"] / 1e6 / cpu_s if cpu_s else None,
                    "fork_usec": idle["fork_usec"], "loaded_save_s": loaded["wall_s"],
                    "memory_before_bytes": loaded["memory_before_bytes"],
                    "memory_peak_bytes": loaded["memory_peak_bytes"],
                    "p99_before_ms": loaded["latency_before"].get("p99_ms"),
                    "p99_during_ms": loaded["latency_during"].get("p99_ms"),
                    "max_during_ms": loaded["latency_during"].get("max_ms"),
                    "restart_s": result["restart_s"], "restart_cpu_s": result["restart_cpu_s"]})
    elif group == "callgrind":
        load = parse_callgrind_total(_read(os.path.join(run_dir, "callgrind.load.totals")))
        idle = parse_callgrind_total(_read(os.path.join(run_dir, "callgrind.idle.totals")))
        requests = probe["params"]["requests"]
        row.update({"requests": requests, "instructions_load": load, "instructions_idle": idle,
                    "instructions_per_request": (load - idle) / requests,
                    "wall_s": probe["callgrind"]["load_wall_s"]})
    return row


def run_dirs(results_dir):
    """Every run folder (raw/<cell>/<engine>-<rep>) in the order the run made them."""
    order_path = os.path.join(results_dir, "raw", "order.txt")
    with open(order_path) as order:
        return [os.path.join(results_dir, "raw", line.strip()) for line in order if line.strip()]


def derive_runs(results_dir):
    return [derive_run(path) for path in run_dirs(results_dir)]


# ------------------------------------------------------------------------------------------------
# Cells


def _median(rows, column):
    values = [float(r[column]) for r in rows if r.get(column) not in (None, "")]
    return statistics.median(values) if values else None


def aggregate(manifest, support, runs):
    """summary.csv rows: for each cell of the plan and each engine, medians of its good runs."""
    rows = []
    for cell in manifest["cells"]:
        if cell["group"] == "micro":
            continue
        for engine in manifest["engines"]:
            mine = [r for r in runs if r["cell"] == cell["id"] and r["engine"] == engine]
            row = {"cell": cell["id"], "group": cell["group"], "engine": engine,
                   "runs": len(mine)}
            missing = [c for c in cell["requires"] if not support[engine].get(c, False)]
            good = [r for r in mine if r["status"] == "ok"]
            row["runs_ok"] = len(good)
            if missing:
                row["status"] = "not supported"
                rows.append(row)
                continue
            if not good:
                row["status"] = "failed" if mine else "not run"
                rows.append(row)
                continue
            row["status"] = "ok" if len(good) == len(mine) else "partly invalid"
            for column in ("rps", "p50_ms", "p99_ms", "max_ms", "cpu_s_per_M", "server_util",
                           "client_util", "rss_bytes_per_key", "used_memory_bytes_per_key",
                           "instructions_per_request", "request_s", "request_cpu_s",
                           "peak_rss_bytes", "full_rss_bytes", "rss_after_churn_bytes",
                           *SNAPSHOT_COLUMNS):
                row[column] = _median(good, column)
            if row["rps"] is not None:
                rates = [float(r["rps"]) for r in good]
                row["rps_min"], row["rps_max"] = min(rates), max(rates)
            if cell["group"] == "bigreq":
                row["noise"] = max(max(float(r["other_core0"]), float(r["other_core1"]))
                                   for r in good)
            if row["client_util"] is not None:
                row["client_bound"] = row["client_util"] >= CLIENT_BOUND_UTIL
                row["noise"] = max(max(float(r["other_core0"]), float(r["other_core1"]))
                                   for r in good)
            rows.append(row)
    return rows


def derive_micro(results_dir):
    """micro.csv rows from Google Benchmark's JSON: the median of the repetitions (or the single
    run) of each benchmark."""
    path = os.path.join(results_dir, "raw", "micro", "keel-1", "micro.json")
    if not os.path.exists(path):
        return []
    report = json.loads(_read(path))
    entries = report["benchmarks"]
    medians = [b for b in entries if b.get("aggregate_name") == "median"]
    chosen = medians if medians else [b for b in entries if b.get("run_type") == "iteration"]
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    rows = []
    for b in chosen:
        unit = scale[b.get("time_unit", "ns")]
        rows.append({"benchmark": b["run_name"], "statistic": b.get("aggregate_name", "single"),
                     "real_time_ns": float(b["real_time"]) * unit,
                     "cpu_time_ns": float(b["cpu_time"]) * unit,
                     "items_per_second": (float(b["items_per_second"])
                                          if "items_per_second" in b else None),
                     "iterations": int(b["iterations"])})
    return rows


def write_derived(results_dir):
    """Writes runs.csv, summary.csv and micro.csv of a results folder from its raw files."""
    manifest = json.loads(_read(os.path.join(results_dir, "manifest.json")))
    support = json.loads(_read(os.path.join(results_dir, "support.json")))["supported"]
    runs = as_text_rows(RUN_COLUMNS, derive_runs(results_dir))
    write_csv(os.path.join(results_dir, "runs.csv"), RUN_COLUMNS, runs)
    summary = aggregate(manifest, support, runs)
    write_csv(os.path.join(results_dir, "summary.csv"), SUMMARY_COLUMNS, summary)
    micro = derive_micro(results_dir)
    if micro:
        write_csv(os.path.join(results_dir, "micro.csv"), MICRO_COLUMNS, micro)
    return runs, summary
