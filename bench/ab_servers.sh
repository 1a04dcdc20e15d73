#!/usr/bin/env bash
# A/B two keel-server binaries (or a keel-server and redis-server) on one redis-benchmark load,
# alternating, each server pinned to core 0 and the client to core 1, printing redis-benchmark's
# CSV line (req/s, avg, min, p50, p95, p99, max ms) per run. For quick before/after checks of a
# request-path change; the published comparison is bench/run.
#
#   bench/ab_servers.sh OLD_BINARY NEW_BINARY [REPS] -- REDIS_BENCHMARK_ARGS...
#   bench/ab_servers.sh /tmp/keel-old build/release/io/keel-server 3 -- -P 32 -c 50 -n 1000000 \
#       -r 1000000 -t set -d 3
set -euo pipefail
[ $# -ge 4 ] || { sed -n 2,10p "$0"; exit 2; }
binaries=("$1" "$2")
reps=3
shift 2
if [ "$1" != "--" ]; then reps=$1; shift; fi
[ "$1" = "--" ] && shift
port=7490
for rep in $(seq "$reps"); do
  for binary in "${binaries[@]}"; do
    taskset -c 0 "$binary" --port "$port" --save "" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
    line=$(taskset -c 1 redis-benchmark -p "$port" --csv "$@" 2>/dev/null | tail -1)
    echo "rep $rep $binary $line"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
  done
done
