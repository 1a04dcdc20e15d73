#include "engine/db/digest.h"

#include "engine/db/database.h"
#include "engine/db/keyspace.h"
#include "engine/db/value_ops.h"

namespace keel {
namespace {

void XorInto(Sha1::Digest& digest, const Sha1::Digest& hash) {
  for (size_t i = 0; i < digest.size(); i++) digest[i] ^= hash[i];
}

}  // namespace

void DigestBuilder::Xor(std::string_view bytes) { XorInto(bytes_, Sha1::Of(bytes)); }

void DigestBuilder::XorDigest(const DigestBuilder& element) {
  Xor(std::string_view(reinterpret_cast<const char*>(element.bytes_.data()),
                       element.bytes_.size()));
}

void DigestBuilder::Mix(std::string_view bytes) {
  Xor(bytes);
  bytes_ = Sha1::Of(std::string_view(reinterpret_cast<const char*>(bytes_.data()), bytes_.size()));
}

std::string DatasetDigestHex(const Keyspace& keyspace, const DigestOptions& options) {
  DigestBuilder final_digest;
  for (int db = 0; db < keyspace.database_count(); db++) {
    const Database& database = keyspace.database(db);
    if (database.size() == 0) continue;
    // The database number, so that the same data in another database digests differently.
    const uint32_t id = static_cast<uint32_t>(db);
    const unsigned char id_big_endian[4] = {
        static_cast<unsigned char>(id >> 24), static_cast<unsigned char>(id >> 16),
        static_cast<unsigned char>(id >> 8), static_cast<unsigned char>(id)};
    final_digest.Mix(std::string_view(reinterpret_cast<const char*>(id_big_endian), 4));
    // Keys are xored in, so the table's order does not matter.
    database.ForEach([&](const Entry& entry) {
      DigestBuilder pair;
      pair.Mix(entry.key());
      DigestEntry(entry, pair, options);
      const Sha1::Digest& pair_bytes = pair.bytes();
      final_digest.Xor(
          std::string_view(reinterpret_cast<const char*>(pair_bytes.data()), pair_bytes.size()));
    });
  }
  return final_digest.Hex();
}

}  // namespace keel
