// Glob matching exactly as Redis's stringmatchlen (util.c): '*', '?', '[...]' with '^' negation,
// ranges (reversed ranges allowed) and '\' escapes, optionally case-insensitive. Used by KEYS,
// SCAN MATCH, CONFIG GET, COMMAND LIST FILTERBY PATTERN, PSUBSCRIBE and ACL patterns.
//
// Like Redis since CVE-2022-36021 it gives up on longer '*' matches once the rest of the pattern
// cannot match anywhere (so matching is polynomial), and like later Redis versions it refuses to
// nest deeper than 1000 '*' (returning "no match") so a hostile pattern cannot exhaust the stack.
#pragma once

#include <string_view>

namespace keel {

bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase = false);

}  // namespace keel
