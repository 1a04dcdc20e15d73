// The dataset and value digests of DEBUG DIGEST and DEBUG DIGEST-VALUE, computed as Redis 7.0's
// debug.c computes them, so that the same data digests the same in Keel and in Redis (Redis's
// test suite compares digests before and after DEBUG RELOAD, across replicas, ...).
//
// Xor adds an element whatever the order (set members, hash fields, keys); Mix feeds the digest
// back into SHA-1 so that order counts (list elements, a key followed by its value).
#pragma once

#include <string>
#include <string_view>

#include "engine/base/sha1.h"

namespace keel {

class Keyspace;
class Entry;

class DigestBuilder {
 public:
  DigestBuilder() { bytes_.fill(0); }
  // digest ^= SHA1(bytes) (Redis's xorDigest).
  void Xor(std::string_view bytes);
  // digest = SHA1(digest ^ SHA1(bytes)) (Redis's mixDigest).
  void Mix(std::string_view bytes);
  // digest ^= SHA1(element's digest): Redis's xorDigest(digest, eledigest, 20) of an element
  // digest built by Mix calls (a hash's field and value, a sorted set's member and score); like
  // every xorDigest it hashes what it is given first.
  void XorDigest(const DigestBuilder& element);
  const Sha1::Digest& bytes() const { return bytes_; }
  std::string Hex() const { return HexOf(bytes_.data(), bytes_.size()); }

 private:
  Sha1::Digest bytes_;
};

// DEBUG DIGEST-VALUE's digest of one entry (xorObjectDigest): its type, its value, and whether
// it has an expiry.
void DigestEntry(const Entry& entry, DigestBuilder& digest);

// DEBUG DIGEST: every database's keys and values, expired or not; 40 zeros when all are empty.
std::string DatasetDigestHex(const Keyspace& keyspace);

}  // namespace keel
