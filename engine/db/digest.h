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

struct DigestOptions {
  // A sorted-set score of -0 digests as 0. Redis 7.0 keeps -0 only in a skiplist: a set built or
  // rebuilt as a listpack (a ZADD whose first member is short, a small set loaded from an RDB
  // file) holds 0 instead, so redis-server's own DEBUG RELOAD can turn -0 into 0 (its DEBUG
  // DIGEST changes) and so can loading an AOF. The simulator compares datasets across a reload
  // with this set; DEBUG DIGEST never sets it.
  bool zset_negative_zero_as_zero = false;
};

// DEBUG DIGEST-VALUE's digest of one entry (xorObjectDigest): its type, its value, and whether
// it has an expiry.
void DigestEntry(const Entry& entry, DigestBuilder& digest, const DigestOptions& options = {});

// DEBUG DIGEST: every database's keys and values, expired or not; 40 zeros when all are empty.
std::string DatasetDigestHex(const Keyspace& keyspace, const DigestOptions& options = {});

}  // namespace keel
