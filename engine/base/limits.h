// Every fixed limit of the engine, in one place, with the reason for its value.
// Limits that Redis makes configurable (proto-max-bulk-len, client-query-buffer-limit, maxclients,
// client-output-buffer-limit) are config parameters; their defaults are here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace keel::limits {

// Redis's PROTO_INLINE_MAX_SIZE: an inline command line, or a multibulk/bulk header line, longer
// than this is a protocol error. It also bounds how far the parser scans for a line end.
inline constexpr size_t kInlineBytesMax = 64 * 1024;

// Redis 7.0 accepts multibulk counts up to INT_MAX (earlier versions capped them at 1024*1024);
// memory is bounded by the query buffer limit, because argument slots grow only as bulk headers
// arrive.
inline constexpr int64_t kMultibulkCountMax = INT32_MAX;

// Before authentication Redis refuses multibulk counts above 10 and bulks above 16384 bytes, so
// that an unauthenticated peer cannot make the server buffer much.
inline constexpr int64_t kUnauthMultibulkCountMax = 10;
inline constexpr int64_t kUnauthBulkBytesMax = 16384;

// Defaults of the configurable limits (Redis 7.0's).
inline constexpr int64_t kProtoMaxBulkLenDefault = 512LL * 1024 * 1024;
inline constexpr int64_t kQueryBufferBytesMaxDefault = 1024LL * 1024 * 1024;
inline constexpr int64_t kMaxClientsDefault = 10000;

// Bytes asked of the network per read. Redis reads 16 KiB (PROTO_IOBUF_LEN); reading more per call
// lets a deep pipeline arrive in one read, which is where Keel's per-call savings come from.
inline constexpr size_t kReadChunkBytes = 64 * 1024;

// Redis's PROTO_MBULK_BIG_ARG: a bulk at least this large that is still arriving is read straight
// into a query buffer of the command's final size instead of a doubling one.
inline constexpr size_t kBigBulkBytes = 32 * 1024;

// Room left after a large bulk in its block, for the few short arguments that may follow it
// (SET key value EX 100) without growing the block: a block that holds its command and little
// else can become the value (engine/db/entry.h's external strings).
inline constexpr size_t kBigBulkTailBytes = 1024;

// A client's query buffer larger than this is freed as soon as it empties (smaller ones wait for
// the client cron), so that a large command's block does not outlive it.
inline constexpr size_t kQueryBufferKeepBytes = 4 * kReadChunkBytes;

// Reply chunks: small replies share 16 KiB chunks (Redis's PROTO_REPLY_CHUNK_BYTES); a large bulk
// gets chunks of up to 1 MiB so that a huge GET is not split into thousands of pieces.
inline constexpr size_t kReplyChunkBytes = 16 * 1024;
inline constexpr size_t kReplyChunkBytesMax = 1024 * 1024;

// Free reply chunks kept for reuse across clients; beyond this they go back to the environment.
inline constexpr size_t kReplyChunkPoolCountMax = 1024;

// Slices handed to one gathering write (Linux's IOV_MAX is 1024).
inline constexpr size_t kWriteSlicesMax = 256;

// appendfsync always: a client's replies wait in groups, each for the AOF bytes written before
// it was made (Client::aof_stamps). One group per loop iteration that gave the client replies;
// a sync completes within an iteration or two, so a few groups are in flight. When syncs fail
// and the client keeps sending, the newest group absorbs the next (its replies then wait for
// the later offset too), which only delays them.
inline constexpr size_t kAofStampsMax = 4;

// When a client's pending replies exceed this, Keel stops executing its further pipelined
// commands (and stops reading from it) until the replies drain. This changes no reply; it bounds
// the memory a client that never reads can make the server hold while
// client-output-buffer-limit for normal clients is 0 (unlimited), Redis's default.
inline constexpr size_t kReplyBackpressureBytes = 64 * 1024 * 1024;

// Events taken from one Env::Wait, and connections accepted per listener readiness (Redis's
// MAX_ACCEPTS_PER_CALL).
inline constexpr size_t kEventsPerWaitMax = 1024;
inline constexpr size_t kAcceptsPerEventMax = 1000;

// Commands run for one client per loop iteration before the loop serves others, so that one deep
// pipeline cannot starve everyone else.
inline constexpr size_t kCommandsPerTurnMax = 4096;

// The number of databases is configurable ("databases", 16 by default); this bounds it.
inline constexpr int kDatabasesMax = 1 << 16;

// Longest client name (CLIENT SETNAME) and longest line the log takes.
inline constexpr size_t kLogLineBytesMax = 1024;

// Commands running inside one another: a client's command (1), a command of its EXEC (2), a
// script's redis.call inside that EXEC (3), and one more for the AOF loader or a replica applying
// a MULTI. Nothing nests deeper in Redis (EXEC and scripts refuse to run EXEC or scripts).
inline constexpr int kCallDepthMax = 4;

// Rounds of events a script past busy-reply-threshold serves each time its hook runs (Redis's
// processEventsWhileBlocked does four): enough to answer what arrived, bounded so that the
// script itself goes on.
inline constexpr int kBusyEventRoundsMax = 4;

}  // namespace keel::limits
