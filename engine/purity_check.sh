#!/usr/bin/env bash
# Fails when engine/ reaches the operating system directly: an OS header, or a clock, socket,
# file, thread, sleep or randomness call. The engine must go through engine/env/env.h so that the
# simulator and the fuzz harnesses can run it (see docs/STYLE.md). Tests (*_test.cc) are exempt.
# The one allowed exception is base/assert.cc, which prints to stderr and aborts.
set -u
dir=${1:-$(dirname "$0")}
banned_headers='sys/[a-z_]+\.h|unistd\.h|fcntl\.h|netinet/[a-z_]+\.h|arpa/inet\.h|netdb\.h|poll\.h|signal\.h|csignal|pthread\.h|thread|mutex|condition_variable|future|chrono|random|fstream|iostream|dirent\.h|time\.h|ctime|filesystem'
banned_calls='\b(gettimeofday|clock_gettime|time|srand|rand|random_device|fopen|fread|fwrite|fsync|fdatasync|usleep|nanosleep|sleep_for|sleep_until|getpid|getrandom|socket|accept4?|recv|send|sendmsg|epoll_wait|epoll_ctl|mmap|malloc|calloc|realloc|free|system|popen|exit)\s*\('
status=0
files=$(find "$dir" \( -name '*.h' -o -name '*.cc' \) ! -name '*_test.cc' | sort)
for file in $files; do
  hits=$(grep -nE "^\s*#\s*include\s*<($banned_headers)>" "$file")
  if [ -n "$hits" ]; then
    echo "$file: OS header in the engine:"; echo "$hits"; status=1
  fi
  # Strip comments and string literals before looking for calls.
  code=$(sed -e 's://.*$::' -e 's/"[^"]*"//g' "$file")
  hits=$(echo "$code" | grep -nE "(^|[^.>:A-Za-z0-9_])$banned_calls|::now\(\)|std::rand\b")
  if [ -n "$hits" ] && [ "$(basename "$file")" != "assert.cc" ]; then
    echo "$file: direct OS call in the engine:"; echo "$hits"; status=1
  fi
done
[ $status -eq 0 ] && echo "engine purity: $(echo "$files" | wc -l) files checked, none reaches the OS directly"
exit $status
