#!/usr/bin/env bash
# Fails when a C++ file of the project is not formatted as .clang-format says. Run by ctest.
# Fix with: clang-format-14 -i $(git ls-files '*.cc' '*.h')
set -u
cd "$(dirname "$0")/.."
formatter=$(command -v clang-format-14 || command -v clang-format) || {
  echo "clang-format not installed (bash .ci/deps installs it)"; exit 77; }
files=$(git ls-files '*.cc' '*.h' 2>/dev/null || find engine io sim fuzz bench -name '*.cc' -o -name '*.h')
if ! "$formatter" --dry-run --Werror $files; then
  echo "files above are not clang-formatted: run $formatter -i on them"
  exit 1
fi
echo "format check: $(echo "$files" | wc -w) files formatted as .clang-format says"
