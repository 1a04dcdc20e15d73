"""Planted bugs for measuring the simulator's power (run_mutations.py applies them one at a time).

Each mutation replaces one exact snippet of an engine file in a COPY of the sources. The snippet
must occur exactly once; when the engine changes and a snippet no longer matches, the runner says
so and the mutation must be updated (never silently skipped). No bug code lives in the engine.
"""

MUTATIONS = [
    {
        "name": "expiry-off-by-one",
        "why": "keys vanish during their expiry millisecond (Redis keeps them until now > when)",
        "file": "engine/db/keyspace.h",
        "find": 'return entry.has_expiry() && entry.expire_at_ms() < now_ms;',
        "replace": 'return entry.has_expiry() && entry.expire_at_ms() <= now_ms;',
    },
    {
        "name": "expiry-ignores-wall-clock-jumps",
        "why": "the engine's wall time follows the monotonic clock after the first reading, so "
               "expiry ignores a wall-clock jump",
        "file": "engine/server/engine.cc",
        "find": "  mono_anchor_us_ = clock.MonotonicUs();\n  wall_anchor_us_ = clock.WallUs();\n",
        "replace": "  const int64_t previous_mono_us = mono_anchor_us_;\n"
                   "  mono_anchor_us_ = clock.MonotonicUs();\n"
                   "  wall_anchor_us_ = wall_anchor_us_ == 0\n"
                   "                        ? clock.WallUs()\n"
                   "                        : wall_anchor_us_ + (mono_anchor_us_ - previous_mono_us);\n",
    },
    {
        "name": "reply-dropped-after-partial-read",
        "why": "the replies of commands completed from a partial read are thrown away",
        "file": "engine/server/server.cc",
        "find": "    ProcessPendingInput(client);\n    return;\n  }\n",
        "replace": "    const size_t before = client->output().pending_bytes();\n"
                   "    ProcessPendingInput(client);\n"
                   "    if (before == 0) client->output().Clear();\n"
                   "    return;\n  }\n",
    },
    {
        "name": "resend-from-chunk-start-after-short-write",
        "why": "after a short write the rest of the chunk is sent from its start: bytes out of "
               "order in a pipeline's replies",
        "file": "engine/resp/output_buffer.cc",
        "find": "slices[count++] = ConstSlice{chunk->data() + skip, chunk->used - skip};",
        "replace": "slices[count++] = ConstSlice{chunk->data(), chunk->used - skip};",
    },
    {
        "name": "no-write-interest-after-short-write",
        "why": "after a short write the server does not ask to be told when it can write again: "
               "replies stall until the client sends something",
        "file": "engine/server/server.cc",
        "find": "  UpdateInterest(client, readable, pending);\n}",
        "replace": "  UpdateInterest(client, readable, false);\n}",
    },
    {
        "name": "partial-command-loses-a-byte",
        "why": "a command split across reads loses its first leftover byte",
        "file": "engine/server/server.cc",
        "find": "if (!query.Assign(target + consumed, result.bytes - consumed)) {",
        "replace": "if (!query.Assign(target + consumed + 1, result.bytes - consumed - 1)) {",
    },
    {
        "name": "del-counts-expired-keys",
        "why": "DEL counts a key that expired but was not reclaimed yet",
        "file": "engine/commands/cmd_keys.cc",
        "find": "if (keyspace.LookupWrite(db, key, hash, kLookupNoTouch) == nullptr) continue;",
        "replace": "if (keyspace.Peek(db, key, hash) == nullptr) continue;",
    },
    {
        "name": "select-range-off-by-one",
        "why": "SELECT accepts the index one past the last database",
        "file": "engine/commands/context.cc",
        "find": "if (*index < 0 || *index >= context.database_count()) {",
        "replace": "if (*index < 0 || *index > context.database_count()) {",
    },
    {
        "name": "keepttl-ignored",
        "why": "SET KEEPTTL drops the key's expiry",
        "file": "engine/commands/cmd_string.cc",
        "find": '  if ((flags & kSetKeepTtl) && existing != nullptr) expire_at_ms = existing->expire_at_ms();\n  const std::string_view value = context.arg(2);\n',
        "replace": '  const std::string_view value = context.arg(2);\n',
    },
    {
        "name": "same-size-overwrite-keeps-old-expiry",
        "why": "overwriting a string with one of the same size keeps the old expiry",
        "file": "engine/db/database.cc",
        "find": '    if (has_expiry) old->set_expire_at_ms(expire_at_ms);\n',
        "replace": '',
    },
    {
        "name": "expires-count-not-decremented",
        "why": "deleting a key with an expiry leaves it in the list of keys with an expiry",
        "file": "engine/db/database.cc",
        "find": '  if (removed->has_expiry()) UntrackExpiry(removed);\n',
        "replace": '',
    },
    {
        "name": "reply-memory-accounting-drift",
        "why": "freeing a large block forgets a byte, so what the engine holds drifts from the allocations",
        "file": "engine/env/memory.h",
        "find": '    held_bytes_ -= bytes;\n',
        "replace": '    held_bytes_ -= bytes - (bytes > 4096);\n',
    },
    {
        "name": "output-hard-limit-doubled",
        "why": "a client over its hard output limit is left open",
        "file": "engine/server/server.cc",
        "find": "bool exceeded = limit.hard_bytes > 0 && pending >= limit.hard_bytes;",
        "replace": "bool exceeded = limit.hard_bytes > 0 && pending >= 2 * limit.hard_bytes;",
    },
    {
        "name": "flushdb-flushes-database-zero",
        "why": "FLUSHDB empties database 0 whichever the client selected",
        "file": "engine/commands/cmd_keys.cc",
        "find": "  context.keyspace.Flush(context.db_index());\n",
        "replace": "  context.keyspace.Flush(0);\n",
    },
    {
        "name": "resp3-null-as-resp2",
        "why": "a RESP3 client gets RESP2's null bulk",
        "file": "engine/resp/reply_builder.cc",
        "find": 'Raw(resp_ >= 3 ? std::string_view("_\\r\\n") : "$-1\\r\\n");',
        "replace": 'Raw(resp_ >= 4 ? std::string_view("_\\r\\n") : "$-1\\r\\n");',
    },
    {
        "name": "refused-set-replies-ok",
        "why": "a SET whose memory was refused replies OK although nothing was stored",
        "file": "engine/commands/cmd_string.cc",
        "find": '  if (StoreValueArgument(context, key, hash, value, expire_at_ms) ==\n      Database::SetOutcome::kOutOfMemory) {\n    context.reply.Error(errors::kOom);\n    return;\n  }\n  AnnounceExpiry(',
        "replace": '  if (StoreValueArgument(context, key, hash, value, expire_at_ms) ==\n      Database::SetOutcome::kOutOfMemory) {\n    context.reply.Ok();\n    return;\n  }\n  AnnounceExpiry(',
    },
    {
        "name": "maxmemory-refuses-every-command",
        "why": "over maxmemory, reads are refused too (not only denyoom commands)",
        "file": "engine/server/engine.cc",
        "find": "    if (over && deny) return errors::kOom;",
        "replace": "    if (over) return errors::kOom;",
    },
    {
        "name": "reset-keeps-the-database",
        "why": "RESET leaves the client in the database it had selected",
        "file": "engine/commands/cmd_connection.cc",
        "find": "  client.db_index = 0;\n",
        "replace": "",
    },
    {
        "name": "lazy-expiry-keeps-the-key",
        "why": "an expired key found by a lookup is reported gone but left in the table",
        "file": "engine/db/keyspace.cc",
        "find": "  if (expired != nullptr && !writes_paused_) DeleteExpired(db, key, hash);\n",
        "replace": "",
    },
    {
        "name": "counter-drops-expiry",
        "why": "INCR and friends store the result without the key's expiry",
        "file": "engine/commands/cmd_string_numeric.cc",
        "find": "  const int64_t expire_at_ms = entry != nullptr ? entry->expire_at_ms() : kNoExpiry;\n",
        "replace": "  const int64_t expire_at_ms = kNoExpiry;\n",
    },
    {
        "name": "copy-keeps-shared-integer",
        "why": "COPY of a shared integer stays shared (Redis's copy is a new object: OBJECT REFCOUNT 1)",
        "file": "engine/db/keyspace.cc",
        "find": "  if (copy->encoding() == ObjectEncoding::kIntShared) copy->set_encoding(ObjectEncoding::kInt);\n",
        "replace": "",
    },
    {
        "name": "expire-gt-on-persistent-key",
        "why": "EXPIRE GT sets an expiry on a key without one (Redis counts no expiry as infinite)",
        "file": "engine/commands/cmd_keys_expire.cc",
        "find": "if ((flags & kExpireGt) && (!has_expiry || when_ms <= current_ms)) return false;",
        "replace": "if ((flags & kExpireGt) && has_expiry && when_ms <= current_ms) return false;",
    },
    {
        "name": "scan-lists-expired-keys",
        "why": "a SCAN page lists keys that expired but were not reclaimed yet",
        "file": "engine/commands/cmd_keys_scan.cc",
        "find": "    const bool expired = IsExpired(*entry, now_ms);\n",
        "replace": "    const bool expired = false && IsExpired(*entry, now_ms);\n",
    },
    {
        "name": "lcs-walks-up-on-ties",
        "why": "LCS's walk back goes up on a tie: another subsequence than Redis's",
        "file": "engine/commands/cmd_lcs.cc",
        "find": "      if (table[(i - 1) * width + j] > table[i * width + j - 1]) {",
        "replace": "      if (table[(i - 1) * width + j] >= table[i * width + j - 1]) {",
    },
    {
        "name": "in-place-append-keeps-old-size",
        "why": "an APPEND into a growable string's spare room writes the bytes but not the new size",
        "file": "engine/db/database.cc",
        "find": "    if (new_size != old_size) entry->set_value_size(new_size);\n",
        "replace": "",
    },
    # The write path (engine/db/keyspace.h) and propagation: the simulated replica
    # (sim/simulator/replica.h) must see these.
    {
        "name": "set-ex-propagated-as-sent",
        "why": "SET ... EX is propagated with its relative expiry, so a replica applying it later "
               "gives the key a later expiry",
        "file": "engine/commands/cmd_string.cc",
        "find": '    context.PropagateAs({"SET", context.arg(1), context.arg(2), "PXAT", {text, length}});\n',
        "replace": "    (void)length;\n",
    },
    {
        "name": "lazy-expiry-not-propagated",
        "why": "a key deleted because its time passed is not propagated as DEL",
        "file": "engine/db/keyspace.cc",
        "find": "  PropagateDeletion(db, key, settings_.lazyfree_lazy_expire);\n",
        "replace": "",
    },
    {
        "name": "string-edit-not-counted",
        "why": "APPEND and SETRANGE of an existing string skip the write path's after-write "
               "bookkeeping (an observer skipped on one path): no change is counted, so nothing "
               "is propagated",
        "file": "engine/db/keyspace.cc",
        "find": "  if (written != nullptr) Changed(db, written->key(), event, false);\n",
        "replace": "",
    },
    # Keyspace events: the oracle requires an event for every key a command changed
    # (Oracle::CheckEventsCoverChanges).
    {
        "name": "srem-announces-nothing",
        "why": "SREM that leaves members counts and propagates its change but fires no keyspace "
               "event (an observer skipped on one path): notifications of it are lost",
        "file": "engine/commands/cmd_set.cc",
        "find": "    } else {\n      context.keyspace.KeyChanged(db, key, set_events::kSrem, deleted);\n",
        "replace": "    } else {\n      context.keyspace.KeyChanged(db, key, events::kNone, deleted);\n",
    },
    {
        "name": "mset-announces-its-first-key-only",
        "why": "MSET announces (touch and event) only its first key; the others change silently",
        "file": "engine/commands/cmd_string.cc",
        "find": "  for (size_t p = 0; p < pairs; p++) {\n    const std::string_view key = context.arg(1 + 2 * p);\n    const bool first_creation",
        "replace": "  for (size_t p = 0; p < 1; p++) {\n    const std::string_view key = context.arg(1 + 2 * p);\n    const bool first_creation",
    },
    {
        "name": "past-expire-propagated-as-sent",
        "why": "EXPIRE with a time already past deletes the key but propagates the EXPIRE, which a "
               "replica (where the primary decides expiry) applies as a past expiry",
        "file": "engine/commands/cmd_keys_expire.cc",
        "find": "      PropagateAsDel(context, key, keyspace.settings().lazyfree_lazy_expire);\n",
        "replace": "",
    },
    {
        "name": "getex-expiry-propagated-as-sent",
        "why": "GETEX EX is propagated as sent instead of as PEXPIREAT with the absolute time",
        "file": "engine/commands/cmd_string.cc",
        "find": "    PropagateAsPexpireat(context, key, expire_at_ms, {});\n",
        "replace": "",
    },
    {
        "name": "swapdb-not-counted",
        "why": "SWAPDB does not count as a change, so it is never propagated",
        "file": "engine/db/keyspace.cc",
        "find": "  // Redis counts (and so propagates) SWAPDB of a database with itself too.\n  dirty_++;\n",
        "replace": "",
    },
    {
        "name": "spop-count-keeps-the-last-draw",
        "why": "SPOP with a small count replies with a member it does not remove: the reply and "
               "the set disagree",
        "file": "engine/commands/cmd_set_random.cc",
        "find": "      set.Remove(member, memory);\n",
        "replace": "      if (i + 1 < count) set.Remove(member, memory);\n",
    },
    {
        "name": "srem-leaves-an-empty-set",
        "why": "SREM of a set's last members leaves an empty set behind instead of deleting the key",
        "file": "engine/commands/cmd_set.cc",
        "find": "    if (set.size() == 0) {\n",
        "replace": "    if (false) {\n",
    },
    {
        "name": "sinter-ignores-the-last-set",
        "why": "SINTER (and SINTERSTORE, SINTERCARD) checks a member against every set but the "
               "last",
        "file": "engine/commands/cmd_set_algebra.cc",
        "find": "  for (size_t j = 1; j < sets.size(); j++) {\n    if (sets[j] != sets[0]",
        "replace": "  for (size_t j = 1; j + 1 < sets.size(); j++) {\n    if (sets[j] != sets[0]",
    },
    # The hash family (engine/commands/cmd_hash*.cc, engine/db/types/hash.cc).
    {
        "name": "hdel-leaves-an-empty-hash",
        "why": "HDEL of a hash's last fields leaves an empty hash behind instead of deleting the "
               "key",
        "file": "engine/commands/cmd_hash.cc",
        "find": "    if (hash.size() == 0) context.keyspace.DeleteEmptied(db, key, key_hash);\n",
        "replace": "",
    },
    {
        "name": "hsetnx-overwrites",
        "why": "HSETNX writes a field that exists (and answers 1), as HSET would",
        "file": "engine/commands/cmd_hash.cc",
        "find": "  if (entry != nullptr && HashOf(*entry).Contains(context.arg(2))) {\n",
        "replace": "  if (entry != nullptr && false) {\n",
    },
    {
        "name": "hashtable-update-keeps-the-old-value",
        "why": "a hashtable's field set to a value of another length keeps pointing at its old "
               "record: the new value is written to the arena and lost",
        "file": "engine/db/types/hash.cc",
        "find": "    index_.Repoint(records(), field, hash, at);\n",
        "replace": "",
    },
    {
        "name": "hgetall-resp3-as-array",
        "why": "HGETALL answers a flat array in RESP3 too, where Redis answers a map",
        "file": "engine/commands/cmd_hash.cc",
        "find": "    context.reply.MapHeader(size);\n",
        "replace": "    context.reply.ArrayHeader(size * 2);\n",
    },
    {
        "name": "eviction-volatile-takes-any-key",
        "why": "a volatile-* maxmemory-policy evicts keys without a TTL as well",
        "file": "engine/db/eviction.cc",
        "find": "  return policy == MaxmemoryPolicy::kVolatileLru || policy == MaxmemoryPolicy::kVolatileLfu ||\n"
                "         policy == MaxmemoryPolicy::kVolatileRandom || policy == MaxmemoryPolicy::kVolatileTtl;",
        "replace": "  return policy == MaxmemoryPolicy::kVolatileTtl;",
    },
    {
        "name": "eviction-overshoots-the-limit",
        "why": "eviction goes on until a quarter below maxmemory: keys are evicted while memory is "
               "within the limit",
        "file": "engine/db/eviction.cc",
        "find": "memory.used_bytes_total() > static_cast<size_t>(maxmemory);\n       evicted++) {",
        "replace": "memory.used_bytes_total() > static_cast<size_t>(maxmemory) * 3 / 4;\n"
                   "       evicted++) {",
    },
    {
        "name": "scan-skips-the-rehash-target",
        "why": "during an incremental rehash SCAN walks only the old table: keys already moved to "
               "the new one are never returned, though present for the whole iteration",
        "file": "engine/db/database.h",
        "find": "  if (next_ != nullptr) VisitRange(*next_, cursor, next, to_end, hash_seed_, visit);\n",
        "replace": "",
    },
    # Transactions (engine/commands/cmd_multi.cc, engine/server/watch.h): the oracle checks
    # EXEC's replies and WATCH's outcomes against the model's transactions.
    {
        "name": "watch-missed-on-expiry",
        "why": "EXEC does not check whether a watched key expired since WATCH (Redis 7.0's "
               "isWatchedKeyExpired), so a transaction whose key timed out runs",
        "file": "engine/commands/cmd_multi.cc",
        "find": "  if (engine.watches().AnyExpired(client)) client.flags |= kClientDirtyCas;\n",
        "replace": "",
    },
    {
        "name": "exec-not-atomic",
        "why": "queued commands also run when they are queued, so other clients see (and "
               "interleave with) a transaction's writes before its EXEC",
        "file": "engine/server/engine.cc",
        "find": "    QueueCommand(client, *spec, args);\n    client.commands_processed++;\n",
        "replace": "    client.reply().set_muted(true);\n    Call(client, *spec, args);\n"
                   "    client.reply().set_muted(false);\n    QueueCommand(client, *spec, args);\n"
                   "    client.commands_processed++;\n",
    },
    {
        "name": "queuing-error-does-not-abort",
        "why": "a command refused while queuing (unknown, wrong arity) does not doom the "
               "transaction: EXEC runs the rest instead of answering EXECABORT",
        "file": "engine/server/engine.cc",
        "find": "  if (client.flags & kClientMulti) client.flags |= kClientDirtyExec;\n",
        "replace": "",
    },
    # The list family (engine/commands/cmd_list.cc and list_access.cc).
    {
        "name": "lrem-negative-count-from-head",
        "why": "LREM with a negative count removes from the head (and without its limit) instead "
               "of the given number of matches from the tail",
        "file": "engine/commands/cmd_list.cc",
        "find": "  const bool from_tail = wanted < 0;\n",
        "replace": "  const bool from_tail = false;\n",
    },
    {
        "name": "emptied-list-kept",
        "why": "a pop that takes a list's last element leaves an empty list under the key "
               "instead of deleting it, as Redis does",
        "file": "engine/commands/list_access.cc",
        "find": "  if (list->empty()) context.keyspace.DeleteEmptied(db, key, hash);\n",
        "replace": "  if (list->empty() && hash == 0) context.keyspace.DeleteEmptied(db, key, hash);\n",
    },
    {
        "name": "lpos-rank-off-by-one",
        "why": "LPOS RANK n answers the match after the n-th",
        "file": "engine/commands/cmd_list.cc",
        "find": "++matches >= rank) {",
        "replace": "++matches > rank) {",
    },
    # Blocking commands (engine/server/blocking.cc, engine.cc, engine/commands/cmd_list_block.cc).
    {
        "name": "blocked-served-last-come-first",
        "why": "clients waiting for a key are served newest first instead of first come first "
               "served",
        "file": "engine/server/blocking.cc",
        "find": "  return std::vector<Client*>(it->second.begin(), it->second.end());\n",
        "replace": "  return std::vector<Client*>(it->second.rbegin(), it->second.rend());\n",
    },
    {
        "name": "blocked-push-wakes-nobody",
        "why": "a write to a key that clients wait for does not make it ready: they time out "
               "while the list holds elements (a lost wakeup)",
        "file": "engine/server/blocking.cc",
        "find": "  if (db_it->second.find(key) == db_it->second.end()) return;\n  MarkReady(db_index, key);\n",
        "replace": "  if (db_it->second.find(key) == db_it->second.end()) return;\n",
    },
    {
        "name": "blocked-timeout-tenfold-early",
        "why": "a blocking command's timeout is read as tenths of its milliseconds: the wait "
               "ends ten times too early",
        "file": "engine/server/engine.cc",
        "find": "start_us + timeout_ms * 1000;",
        "replace": "start_us + timeout_ms * 100;",
    },
    {
        "name": "blpop-served-from-tail",
        "why": "a BLPOP served after blocking takes the list's last element instead of its "
               "first",
        "file": "engine/commands/cmd_list_block.cc",
        "find": "    const size_t index = head ? 0 : list->size() - 1;\n",
        "replace": "    const size_t index =\n"
                   "        (head && context.serving_key().empty()) ? 0 : list->size() - 1;\n",
    },
    # Sorted sets (engine/commands/cmd_zset*.cc): the oracle checks replies and values against
    # the model's std::map.
    {
        "name": "zadd-gt-acts-as-lt",
        "why": "ZADD GT updates a member only when the new score is lower, as LT does",
        "file": "engine/commands/cmd_zset.cc",
        "find": "(flags.gt && score <= current)) continue;",
        "replace": "(flags.gt && score >= current)) continue;",
    },
    {
        "name": "zrange-byscore-exclusive-min-ignored",
        "why": "a score range's exclusive minimum \"(x\" is taken as inclusive (ZRANGE BYSCORE, "
               "ZRANGEBYSCORE, ZCOUNT, ZREMRANGEBYSCORE)",
        "file": "engine/commands/cmd_zset_range.cc",
        "find": "  span.first = zset.CountScoreBelow(range.min, range.min_exclusive);\n",
        "replace": "  span.first = zset.CountScoreBelow(range.min, false);\n",
    },
    {
        "name": "zrem-leaves-an-empty-zset",
        "why": "ZREM of a sorted set's last members leaves an empty sorted set instead of deleting "
               "the key",
        "file": "engine/commands/cmd_zset.cc",
        "find": "kZrem, deleted);\n    if (zset.size() == 0) context.keyspace.DeleteEmptied(db, key, hash);\n",
        "replace": "kZrem, deleted);\n",
    },
    {
        "name": "zunion-ignores-weights",
        "why": "ZUNION and ZUNIONSTORE add the members' scores without their WEIGHTS",
        "file": "engine/commands/cmd_zset_algebra.cc",
        "find": "      const double value = Weighted(source.weight, score);\n",
        "replace": "      const double value = score;\n",
    },
    # Geo (engine/base/geohash.cc, engine/commands/cmd_geo.cc): the model computes positions,
    # cells and distances on its own.
    {
        "name": "geo-search-looks-east-twice",
        "why": "a search visits the eastern neighbour cell where it should visit the western one, "
               "so members west of the centre's cell are missed",
        "file": "engine/base/geohash.cc",
        "find": "          Move(center, -1, 0),    // west\n",
        "replace": "          Move(center, 1, 0),     // west\n",
    },
    {
        "name": "geo-withdist-in-meters",
        "why": "WITHDIST replies the distance in meters whatever the unit asked for",
        "file": "engine/commands/cmd_geo.cc",
        "find": "    if (request.with_distance) ReplyDistance(context, match.distance / "
                "request.shape.conversion);\n",
        "replace": "    if (request.with_distance) ReplyDistance(context, match.distance);\n",
    },
    {
        "name": "geo-count-leaves-matches-unsorted",
        "why": "COUNT without ASC or DESC keeps the first matches found instead of the nearest",
        "file": "engine/commands/cmd_geo.cc",
        "find": "  if (request.count != 0 && request.order == Order::kNone && !request.any) {\n",
        "replace": "  if (request.count != 0 && request.order == Order::kNone && request.any) {\n",
    },
    {
        "name": "geo-box-uses-full-height",
        "why": "BYBOX keeps points up to the box's full height from the centre, not half of it",
        "file": "engine/base/geohash.cc",
        "find": "  if (LatitudeDistance(y2, y1) > shape.height * shape.conversion / 2) return false;\n",
        "replace": "  if (LatitudeDistance(y2, y1) > shape.height * shape.conversion) return false;\n",
    },
    {
        "name": "geo-position-not-clamped",
        "why": "a position decoded past the indexable limits is not clamped (GEOPOS of a point "
               "added at longitude 180 prints more than 180)",
        "file": "engine/base/geohash.cc",
        "find": "  if (point.longitude > kLongitudeMax) point.longitude = kLongitudeMax;\n",
        "replace": "",
    },
    {
        "name": "geosearchstore-storedist-in-meters",
        "why": "STOREDIST stores the distances in meters whatever the unit",
        "file": "engine/commands/cmd_geo.cc",
        "find": "        request.store_distance ? match.distance / request.shape.conversion : "
                "match.score;\n",
        "replace": "        request.store_distance ? match.distance : match.score;\n",
    },
    # The bit and HyperLogLog families (engine/db/types/bitmap.cc, hyperloglog.cc).
    {
        "name": "bitcount-range-counts-the-last-byte-whole",
        "why": "BITCOUNT with a BIT range counts every bit of its last byte, past the range's end",
        "file": "engine/db/types/bitmap.cc",
        "find": "  const unsigned after_mask = (1u << (7 - (last_bit & 7))) - 1;\n",
        "replace": "  const unsigned after_mask = 0;\n",
    },
    {
        "name": "bitfield-sat-saturates-signed-overflow-to-min",
        "why": "BITFIELD OVERFLOW SAT stores the field's minimum when a signed value overflows "
               "upwards (it should be the maximum)",
        "file": "engine/db/types/bitmap.cc",
        "find": "  if (sum > max) {\n    return {overflow == Overflow::kSat ? "
                "static_cast<uint64_t>(static_cast<int64_t>(max)) : wrapped,",
        "replace": "  if (sum > max) {\n    return {overflow == Overflow::kSat ? "
                   "static_cast<uint64_t>(static_cast<int64_t>(min)) : wrapped,",
    },
    {
        "name": "hll-dense-register-takes-any-value",
        "why": "a dense HyperLogLog register is overwritten by a smaller value (the register "
               "must keep its maximum): counts drop and PFADD reports changes that are not",
        "file": "engine/db/types/hyperloglog.cc",
        "find": "  if (GetDense(registers, index) >= count) return SetResult::kUnchanged;\n",
        "replace": "  if (GetDense(registers, index) == count) return SetResult::kUnchanged;\n",
    },
    {
        "name": "hll-sparse-register-takes-any-value",
        "why": "a sparse HyperLogLog's value run is split for a smaller value than it holds",
        "file": "engine/db/types/hyperloglog.cc",
        "find": "  if (is_value && ValueOf(p) >= count) return SetResult::kUnchanged;\n",
        "replace": "  if (is_value && ValueOf(p) == count) return SetResult::kUnchanged;\n",
    },
    {
        "name": "bzpopmin-pops-the-highest",
        "why": "BZPOPMIN and BZPOPMAX pop from the wrong end of the sorted set",
        "file": "engine/commands/cmd_zset_block.cc",
        "find": "      PopAndReply(context, key, 1, max, PopReply::kFlatWithKey);\n",
        "replace": "      PopAndReply(context, key, 1, !max, PopReply::kFlatWithKey);\n",
    },
    {
        "name": "bzpop-waits-for-a-list",
        "why": "a blocked sorted-set pop waits for a list: ZADD never serves it, and it times out "
               "while the sorted set holds members (a lost wakeup)",
        "file": "engine/commands/cmd_zset_block.cc",
        "find": "  context.BlockOn(keys, ValueType::kZSet, timeout_ms);\n",
        "replace": "  context.BlockOn(keys, ValueType::kList, timeout_ms);\n",
    },
    {
        "name": "bzmpop-count-ignored",
        "why": "BZMPOP pops one member whatever its COUNT",
        "file": "engine/commands/cmd_zset_block.cc",
        "find": "    const size_t popped = PopAndReply(context, key, count, max, PopReply::kNestedWithKey);\n",
        "replace": "    const size_t popped = PopAndReply(context, key, 1, max, PopReply::kNestedWithKey);\n",
    },
    {
        "name": "sort-limit-offset-ignored",
        "why": "SORT ... LIMIT offset count always starts at the first element",
        "file": "engine/commands/cmd_sort.cc",
        "find": "  int64_t start = std::min(std::max<int64_t>(options.limit_start, 0), length);\n",
        "replace": "  int64_t start = std::min(std::max<int64_t>(0, 0), length);\n",
    },
    {
        "name": "sort-equal-numbers-reversed",
        "why": "SORT orders equal numbers by their elements' bytes in reverse",
        "file": "engine/commands/cmd_sort.cc",
        "find": "      cmp = CompareBinary(a.element, b.element);\n",
        "replace": "      cmp = CompareBinary(b.element, a.element);\n",
    },
    {
        "name": "sort-by-constant-ignores-desc",
        "why": "SORT of a list BY a constant ignores DESC (the list should come from its tail)",
        "file": "engine/commands/cmd_sort.cc",
        "find": "      List::Position at = list.Seek(options.desc ? list.size() - first - 1 : first);\n",
        "replace": "      List::Position at = list.Seek(first);\n",
    },
    # Streams (engine/commands/cmd_stream*.cc, engine/db/types/stream.cc): the oracle checks
    # replies, and each stream's entries, IDs, groups and node boundaries, against the model.
    {
        "name": "xadd-auto-id-sequence-starts-at-one",
        "why": "XADD * in a new millisecond makes <ms>-1 instead of <ms>-0",
        "file": "engine/commands/cmd_stream.cc",
        "find": "      id = {now, 0};",
        "replace": "      id = {now, 1};",
    },
    {
        "name": "xreadgroup-delivery-count-zero",
        "why": "an entry XREADGROUP delivers enters the PEL with 0 deliveries instead of 1",
        "file": "engine/commands/cmd_stream_group.cc",
        "find": "group.pel.Insert(at, StreamNack{id, context.now_ms(), 1, consumer});",
        "replace": "group.pel.Insert(at, StreamNack{id, context.now_ms(), 0, consumer});",
    },
    {
        "name": "xreadgroup-group-last-id-stays",
        "why": "XREADGROUP > does not move the group's last delivered ID: the next read delivers "
               "the same entries again",
        "file": "engine/commands/cmd_stream_group.cc",
        "find": "      group.last_id = id;",
        "replace": "",
    },
    {
        "name": "aof-new-incr-without-select",
        "why": "a new incremental AOF file does not start with SELECT: after a rewrite, writes "
               "to a database other than 0 load into database 0",
        "file": "engine/server/aof.cc",
        "find": "  incr_requested_ = 0;\n  selected_db_ = -1;\n  // Bytes of the new file",
        "replace": "  incr_requested_ = 0;\n  // Bytes of the new file",
    },
    {
        "name": "aof-rewrite-drops-expiry",
        "why": "a command-form AOF base leaves out PEXPIREAT: keys with a TTL load without one",
        "file": "engine/db/aof_rewrite.cc",
        "find": "  if (entry.has_expiry()) {\n    AppendCount(&out_, '*', 3);",
        "replace": "  if (false && entry.has_expiry()) {\n    AppendCount(&out_, '*', 3);",
    },
    {
        "name": "aof-transaction-not-replayed",
        "why": "loading the AOF drops the commands of every MULTI/EXEC block",
        "file": "engine/server/aof.cc",
        "find": "        for (const auto& command : queued) run(command);\n",
        "replace": "",
    },
    {
        "name": "aof-always-replies-before-sync",
        "why": "with appendfsync always a reply leaves once its command is written, before the "
               "sync completes: a power loss then loses a write a client was told about",
        "file": "engine/server/server.cc",
        "find": "  const uint64_t durable = aof.durable_offset();\n  size_t released = 0;\n",
        "replace": "  const uint64_t durable = aof.written_offset();\n  size_t released = 0;\n",
    },
    {
        "name": "aof-manifest-rename-without-directory-sync",
        "why": "the new manifest is renamed into place and the parent directory synced instead of "
               "the AOF's own: a power loss brings the old manifest back, without the incremental "
               "file the writes since the rewrite went to (Redis's bug before 7.0.3)",
        "file": "engine/server/aof.cc",
        "find": "        job.phase = ManifestJob::Phase::kSyncDirAfter;\n"
                "        job.token = kTokenBit | next_token_++;\n"
                "        status = files.SyncDirectoryAsync(DirPath(), job.token);\n",
        "replace": "        job.phase = ManifestJob::Phase::kSyncDirAfter;\n"
                   "        job.token = kTokenBit | next_token_++;\n"
                   "        status = files.SyncDirectoryAsync(engine_.persistence().Directory(), "
                   "job.token);\n",
    },
    {
        "name": "aof-load-applies-half-a-transaction",
        "why": "loading an AOF whose tail was cut inside a MULTI block applies the commands read "
               "so far instead of reverting them: a power loss leaves half a transaction",
        "file": "engine/server/aof.cc",
        "find": "      if (in_multi) *valid_up_to = before_multi;\n      *truncated = true;\n",
        "replace": "      if (in_multi) {\n        for (const auto& command : queued) run(command);\n"
                   "      }\n      *truncated = true;\n",
    },
    {
        "name": "aof-fsync-error-ignored",
        "why": "a failed fsync of the AOF counts as done: its bytes are taken for durable, replies "
               "waiting for them leave (and no MISCONF), and a power loss then loses them "
               "(Redis before 6.2 ignored such errors)",
        "file": "engine/server/aof.cc",
        "find": "    if (code != StatusCode::kOk) {\n      sync.failed = true;\n      sync_failed_ = true;\n",
        "replace": "    if (false) {\n      sync.failed = true;\n      sync_failed_ = true;\n",
    },
    {
        "name": "tracking-skips-expiry",
        "why": "client tracking sends no invalidation when a key expires or is evicted (the "
               "server's own deletions): a client-side cache keeps a value that is gone",
        "file": "engine/server/tracking.cc",
        "find": "  uint64_t modifier = 0;\n  if (!engine_.keyspace().server_deletion() && "
                "engine_.call_depth() > 0) {\n",
        "replace": "  uint64_t modifier = 0;\n  if (engine_.keyspace().server_deletion()) return;\n"
                   "  if (!engine_.keyspace().server_deletion() && engine_.call_depth() > 0) {\n",
    },
    {
        "name": "tracking-flush-sends-nothing",
        "why": "FLUSHDB and FLUSHALL empty the tracking table without the null invalidation: "
               "client-side caches keep every value they had",
        "file": "engine/server/tracking.cc",
        "find": "      } else {\n        Send(*client, Payload::kNull, {});\n      }\n",
        "replace": "      }\n",
    },
    # Pub/sub (engine/server/pubsub.cc): the simulation's subscribers (sim/simulator/
    # pubsub_check.h) must receive every message once per matching subscription.
    {
        "name": "subscribe-twice-delivers-twice",
        "why": "a second SUBSCRIBE to a channel a client holds adds it to the channel's "
               "subscribers again: each message arrives twice (and one UNSUBSCRIBE leaves one)",
        "file": "engine/server/pubsub.cc",
        "find": "  auto [it, added] = names(subs, kind).emplace(name);\n  if (added) {\n",
        "replace": "  auto [it, added] = names(subs, kind).emplace(name);\n"
                   "  if (added || kind == Kind::kChannel) {\n",
    },
    {
        "name": "punsubscribe-keeps-delivering",
        "why": "PUNSUBSCRIBE forgets the pattern in the client's own list but leaves the client "
               "among the pattern's subscribers: messages keep arriving after the confirmation",
        "file": "engine/server/pubsub.cc",
        "find": "    const bool removed = Remove(kind, name, client);\n",
        "replace": "    const bool removed = kind == Kind::kPattern || Remove(kind, name, client);\n",
    },
    {
        "name": "pattern-skipped-after-channel",
        "why": "PUBLISH stops at the channel's subscribers when there are any: pattern "
               "subscribers miss the message, and the receiver count is short",
        "file": "engine/server/pubsub.cc",
        "find": "    if (!GlobMatch(pattern, channel)) continue;\n",
        "replace": "    if (!GlobMatch(pattern, channel) || receivers > 0) continue;\n",
    },
]
