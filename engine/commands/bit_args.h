// Arguments shared by the bit commands (cmd_bitmap.cc, cmd_bitfield.cc).
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/commands/context.h"

namespace keel {

inline constexpr std::string_view kBadBitOffset =
    "ERR bit offset is not an integer or out of range";

// Keel's entries hold at most UINT32_MAX value bytes; a bit command may address up to 8 bytes
// past its offset (a 64-bit BITFIELD field), so offsets stop that far short of it, whatever
// proto-max-bulk-len allows.
inline constexpr uint64_t kBitOffsetBytesMax = UINT32_MAX - 8;

// Redis's getBitOffsetFromArgument: a strict decimal int64, with BITFIELD's "#N" form meaning N
// fields of `field_bits` bits (`field_bits` 0: no '#' form); negative offsets, and offsets whose
// byte is at or past proto-max-bulk-len, are refused with kBadBitOffset. Replies and returns
// false on error.
bool ParseBitOffset(CommandContext& context, std::string_view text, int field_bits,
                    uint64_t* bit_offset);

}  // namespace keel
