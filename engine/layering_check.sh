#!/usr/bin/env bash
# Fails when a folder of engine/ includes a folder above it, or when a data family's handlers
# reach the whole Engine (docs/DESIGN.md section 6, "Narrow rooms").
#
# The layers, lowest first: each may include its own folder and the ones before it, never one
# after it. Tests (*_test.cc) are exempt: they build whole engines to exercise one layer.
#   base      numbers, hashing, status, assertions
#   env       the seam to the operating system, and the memory accounting over it
#   resp      the protocol: request parser, reply writer and the reply buffer it fills
#   db        the keyspace: entries, typed values, expiry, eviction, the write path
#   registry  command definitions and the table that resolves them
#   server    processing and calling commands, clients, configuration, statistics
#   script    the Lua interpreter and the scripts it runs (EVAL, functions)
#   commands  the handlers, one family per file group
#
# Handlers get a CommandContext (keyspace, reply writer, client, clock, configuration, memory).
# Only the server families (those that administer the server itself) may ask it for the Engine;
# a data family (strings, keys, lists, sets, ...) that does is reported.
set -u
dir=${1:-$(dirname "$0")}
layers=(base env resp db registry server script commands)
# Families that administer the server: CLIENT, COMMAND, CONFIG, connection commands (HELLO,
# AUTH, RESET, SELECT...), DEBUG, diagnostics (MONITOR, SLOWLOG, LATENCY), MEMORY (the process's
# memory: STATS, PURGE), INFO and the server commands (SHUTDOWN, FLUSHALL...), transactions and
# pub/sub (they drive the call itself).
server_families='^cmd_(client|command|config|connection|debug|diagnostics|info|memory|server|multi|pubsub|scripting)(_.*)?\.cc$'

rank() {
  local i
  for i in "${!layers[@]}"; do
    if [ "${layers[$i]}" = "$1" ]; then echo "$i"; return; fi
  done
  echo -1
}

status=0
checked=0
while IFS= read -r file; do
  relative=${file#"$dir"/}
  folder=${relative%%/*}
  own=$(rank "$folder")
  [ "$own" -lt 0 ] && continue
  checked=$((checked + 1))
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    number=${line%%:*}
    included=$(echo "$line" | sed -E 's/.*#\s*include\s*"engine\/([a-z_]+)\/.*/\1/')
    theirs=$(rank "$included")
    if [ "$theirs" -lt 0 ] || [ "$theirs" -gt "$own" ]; then
      echo "$relative:$number: $folder/ includes $included/, a layer above it"
      status=1
    fi
  done < <(grep -nE '^\s*#\s*include\s*"engine/' "$file")
  base=$(basename "$file")
  if [ "$folder" = commands ] && [[ ! $base =~ $server_families ]]; then
    hits=$(sed -e 's://.*$::' "$file" | grep -nE '\bserver\(\)')
    if [ -n "$hits" ]; then
      echo "$relative: a data family reaches the whole Engine (context.server()):"
      echo "$hits"
      status=1
    fi
  fi
done < <(find "$dir" \( -name '*.h' -o -name '*.cc' \) ! -name '*_test.cc' | sort)
[ $status -eq 0 ] && echo "engine layering: $checked files checked, none includes a layer above its own"
exit $status
