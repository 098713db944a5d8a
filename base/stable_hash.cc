// The stable hash: four 64-bit lanes, each taking one little-endian word of
// every 32-byte block through a multiply-rotate round, folded together with
// the length at the end. The byte order is fixed, so the digest does not
// depend on the machine.
#include "base/stable_hash.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/file_util.h"

namespace hwt {
namespace {

constexpr uint64_t kPrime1 = 0x9e3779b185ebca87ull;
constexpr uint64_t kPrime2 = 0xc2b2ae3d27d4eb4full;
constexpr uint64_t kPrime3 = 0x165667b19e3779f9ull;
constexpr uint64_t kPrime4 = 0x85ebca77c2b2ae63ull;

uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t Load64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint64_t Round(uint64_t acc, uint64_t input) {
  acc += input * kPrime2;
  acc = Rotl(acc, 31);
  return acc * kPrime1;
}

uint64_t Avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

}  // namespace

StableHasher::StableHasher()
    : lanes_{kPrime1 + kPrime2, kPrime2, 0, 0ull - kPrime1} {}

void StableHasher::Block(const uint8_t* p) {
  for (int i = 0; i < 4; ++i) lanes_[i] = Round(lanes_[i], Load64(p + 8 * i));
}

void StableHasher::Update(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  total_ += size;
  if (pending_size_ != 0) {
    const size_t take = std::min(size, sizeof(pending_) - pending_size_);
    memcpy(pending_ + pending_size_, p, take);
    pending_size_ += take;
    p += take;
    size -= take;
    if (pending_size_ < sizeof(pending_)) return;
    Block(pending_);
    pending_size_ = 0;
  }
  for (; size >= 32; p += 32, size -= 32) Block(p);
  if (size != 0) {
    memcpy(pending_, p, size);
    pending_size_ = size;
  }
}

void StableHasher::Field(std::string_view text) {
  Field(static_cast<uint64_t>(text.size()));
  Update(text);
}

void StableHasher::Field(uint64_t value) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(value >> (8 * i));
  Update(bytes, sizeof(bytes));
}

uint64_t StableHasher::Digest() const {
  uint64_t h = Rotl(lanes_[0], 1) + Rotl(lanes_[1], 7) + Rotl(lanes_[2], 12) +
               Rotl(lanes_[3], 18);
  for (uint64_t lane : lanes_) h = (h ^ Round(0, lane)) * kPrime1 + kPrime4;
  h += total_;
  size_t i = 0;
  for (; i + 8 <= pending_size_; i += 8) {
    h ^= Round(0, Load64(pending_ + i));
    h = Rotl(h, 27) * kPrime1 + kPrime4;
  }
  for (; i < pending_size_; ++i) {
    h ^= pending_[i] * kPrime3;
    h = Rotl(h, 11) * kPrime1;
  }
  return Avalanche(h);
}

std::string StableHasher::HexDigest() const {
  return absl::StrFormat("%016x", Digest());
}

uint64_t StableHash64(std::string_view data) {
  StableHasher hasher;
  hasher.Update(data);
  return hasher.Digest();
}

absl::StatusOr<uint64_t> StableHashFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(ErrnoMessage(path, "cannot open", errno));
  }
  StableHasher hasher;
  std::vector<uint8_t> buffer(1 << 20);
  for (;;) {
    const ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return absl::DataLossError(ErrnoMessage(path, "read failed", err));
    }
    if (n == 0) break;
    hasher.Update(buffer.data(), static_cast<size_t>(n));
  }
  close(fd);
  return hasher.Digest();
}

}  // namespace hwt
