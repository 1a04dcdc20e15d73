#!/usr/bin/env bash
# Fuzzes every harness for a bounded time under ASan+UBSan (the `fuzz` preset, clang 14), as CI
# does, then prints executions per second and coverage per harness. A crash fails the run and is
# saved and printed with the one command that replays it.
#
#   bash fuzz/ci_fuzz.sh [seconds per harness, default 60] [harness ...]
#
# The corpus in corpus/fuzz/ is read, never written: each run works on a copy.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(resp_parser reply_codec commands config set_load hash_load
  zset_load hll_read rdb_load aof_load)

cmake --preset fuzz >/dev/null && cmake --build --preset fuzz || { echo "fuzz build failed"; exit 1; }

work=$(mktemp -d /tmp/keel-fuzz-XXXXXX)
artifacts=${KEEL_FUZZ_ARTIFACTS:-$PWD/build/fuzz/artifacts}
mkdir -p "$artifacts"
failed=()
report=()
for harness in "${harnesses[@]}"; do
  binary=build/fuzz/fuzz/fuzz_$harness
  mkdir -p "$work/$harness"
  cp -r "corpus/fuzz/$harness/." "$work/$harness/"
  log="$work/$harness.log"
  echo "fuzzing $harness for ${seconds}s ..."
  "$binary" -max_total_time="$seconds" -dict=corpus/fuzz/resp.dict -print_final_stats=1 \
    -artifact_prefix="$artifacts/$harness-" "$work/$harness" >"$log" 2>&1
  status=$?
  stats=$(grep -E "^#[0-9]+.*(DONE|pulse|NEW|REDUCE)" "$log" | tail -1)
  runs=$(grep -m1 "stat::number_of_executed_units" "$log" | awk '{print $2}')
  speed=$(grep -m1 "stat::average_exec_per_sec" "$log" | awk '{print $2}')
  cov=$(echo "$stats" | grep -oE "cov: [0-9]+" | awk '{print $2}')
  features=$(echo "$stats" | grep -oE "ft: [0-9]+" | awk '{print $2}')
  report+=("$(printf '%-12s %10s %9s %7s %9s' "$harness" "${runs:-?}" "${speed:-?}" "${cov:-?}" "${features:-?}")")
  if [ $status -ne 0 ]; then
    failed+=("$harness")
    crash=$(ls -t "$artifacts/$harness-"* 2>/dev/null | head -1)
    echo "FAILED: $harness (exit $status)"
    grep -E "ERROR|property failed|SUMMARY|runtime error" "$log" | head -10
    if [ -n "$crash" ]; then
      echo "crashing input saved as $crash:"
      od -A d -c "$crash" | head -8
      # The whole input, so that a find made only on the CI machine can be rebuilt from its log.
      echo "base64 (rebuild with: echo ... | base64 -d > input):"
      base64 -w 0 "$crash" | head -c 65536
      echo
      grep -m1 "INFO: Seed:" "$log"
      echo "replay: $binary $crash"
      echo "then add it to corpus/fuzz/$harness/ with a unit test for the bug"
    fi
  fi
done
echo
echo "harness          executions  exec/s  edges  features"
for line in "${report[@]}"; do echo "$line"; done
rm -rf "$work"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found problems in: ${failed[*]}"
  exit 1
fi
echo "fuzzing: no crash in ${#harnesses[@]} harnesses (${seconds}s each)"
