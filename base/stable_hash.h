// A 64-bit hash that is the same on every machine, in every process and in
// every version of the program (absl::Hash is seeded per process): for
// identities written into files, such as the content of an image without a
// build-id or a batch input's fingerprint. Not cryptographic.
#ifndef HWT_BASE_STABLE_HASH_H_
#define HWT_BASE_STABLE_HASH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hwt {

// Hashes bytes incrementally: Update() in any pieces gives the same Digest()
// as one Update() of the concatenation.
class StableHasher {
 public:
  StableHasher();
  void Update(const void* data, size_t size);
  void Update(std::string_view text) { Update(text.data(), text.size()); }
  // A field of a composite key: the length goes in too, so ("ab", "c") and
  // ("a", "bc") differ.
  void Field(std::string_view text);
  void Field(uint64_t value);
  uint64_t Digest() const;
  // Digest() as 16 lowercase hex digits.
  std::string HexDigest() const;

 private:
  void Block(const uint8_t* p);

  uint64_t lanes_[4];
  uint8_t pending_[32];
  size_t pending_size_ = 0;
  uint64_t total_ = 0;
};

uint64_t StableHash64(std::string_view data);

// The StableHasher digest of a whole file, read in pieces (never all in
// memory). Errors name the file.
absl::StatusOr<uint64_t> StableHashFile(const std::string& path);

}  // namespace hwt

#endif  // HWT_BASE_STABLE_HASH_H_
