// The .hwtprof file: every field of the model written and read back (and a
// count of each struct's fields, so a field added to the Profile model
// without being saved fails this test), real profiles of synthetic traces,
// a profile large enough to be cut into many chunks, versions (a newer
// major refused, unknown fields and chunk kinds of a newer minor skipped),
// truncated and corrupt files, and the validation of every invariant.
#include "analysis/saved/profile_file.h"

#include <zstd.h>

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/profile_builder.h"
#include "analysis/saved/hwtprof.pb.h"
#include "analysis/saved/profile_file_internal.h"
#include "analysis/saved/testing/saved_profiles.h"
#include "analysis/testing/synthetic_trace.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::analysis {
namespace {

using ::testing::HasSubstr;
namespace pb = ::hwt::profile_file;

// --- Field counts ----------------------------------------------------------
// The number of fields of an aggregate: the most initializers it accepts.
struct AnyField {
  template <typename T>
  operator T() const;
};
template <typename T, typename... A>
constexpr size_t FieldCount() {
  if constexpr (requires { T{A{}..., AnyField{}}; }) {
    return FieldCount<T, A..., AnyField>();
  } else {
    return sizeof...(A);
  }
}

// A failure here means a struct of the model gained (or lost) a field: write
// and read it in profile_file_write.cc / profile_file_read.cc (and the
// proto), merge it in profile_merge.cc, set it in EveryFieldSet(), then
// update the count.
static_assert(FieldCount<FrameKey>() == 3);
static_assert(FieldCount<FunctionId>() == 4);
static_assert(FieldCount<BlockStats>() == 11);
static_assert(FieldCount<BlockEdge>() == 3);
static_assert(FieldCount<CallTree::Node>() == 10);
static_assert(FieldCount<CallTree::NodeBlock>() == 4);
static_assert(FieldCount<CallTree>() == 2);
static_assert(FieldCount<ThreadProfile>() == 4);
static_assert(FieldCount<FunctionStats>() == 6);
static_assert(FieldCount<CallEdge>() == 3);
static_assert(FieldCount<PathStats>() == 3);
static_assert(FieldCount<ProfileStats>() == 13);
static_assert(FieldCount<Profile>() == 10);
static_assert(FieldCount<StreamInfo>() == 6);
static_assert(FieldCount<StreamStats>() == 9);
static_assert(FieldCount<DecodeErrorInfo>() == 5);
static_assert(FieldCount<ImageSegment>() == 5);
static_assert(FieldCount<SavedFunction>() == 6);
static_assert(FieldCount<SavedSourceFrame>() == 7);
static_assert(FieldCount<SavedAddress>() == 2);
static_assert(FieldCount<CodeRange>() == 2);
static_assert(FieldCount<SavedImage>() == 11);
static_assert(FieldCount<SavedStream>() == 2);
static_assert(FieldCount<CaptureSource>() == 21);
static_assert(FieldCount<SavedProfile>() == 5);

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()),
                                   s.size());
}

SavedProfile RoundTrip(const SavedProfile& p) {
  const std::string bytes = SerializeProfile(p);
  auto parsed = ParseProfile(Bytes(bytes), "test.hwtprof");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : SavedProfile();
}

TEST(ProfileFileTest, EveryFieldRoundTrips) {
  const SavedProfile p = testing::EveryFieldSet();
  ASSERT_TRUE(ValidateProfile(p).ok()) << ValidateProfile(p);
  const SavedProfile back = RoundTrip(p);
  EXPECT_EQ(back.writer, p.writer);
  EXPECT_TRUE(back.sources == p.sources);
  EXPECT_TRUE(back.images == p.images);
  EXPECT_TRUE(back.profile.blocks == p.profile.blocks);
  EXPECT_TRUE(back.profile.merged == p.profile.merged);
  EXPECT_TRUE(back.profile.threads == p.profile.threads);
  EXPECT_TRUE(back.profile.stats == p.profile.stats);
  EXPECT_TRUE(back.profile == p.profile);
  // Written twice, the same bytes.
  EXPECT_EQ(SerializeProfile(back), SerializeProfile(p));
}

TEST(ProfileFileTest, WritesAtomicallyAndReadsBack) {
  auto dir = TempDir::Create("hwtprof-test");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->path() + "/p.hwtprof";
  const SavedProfile p = testing::EveryFieldSet();
  ASSERT_TRUE(WriteProfileFile(path, p).ok());
  EXPECT_TRUE(IsProfileFile(path));
  auto back = ReadProfileFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(SameContent(*back, p));
  auto header = ReadProfileHeader(path);
  ASSERT_TRUE(header.ok()) << header.status();
  EXPECT_EQ(header->major, kProfileMajorVersion);
  EXPECT_EQ(header->writer, p.writer);
  EXPECT_TRUE(header->sources == p.sources);
  // Nothing but the file is left in the directory.
  auto listing = ReadFileToString(path);
  EXPECT_TRUE(listing.ok());
}

SavedProfile Synthetic(uint64_t seed, int streams, bool per_context,
                       size_t blocks = 20000) {
  testing::SyntheticOptions options;
  options.seed = seed;
  options.streams = streams;
  options.per_context = per_context;
  options.blocks = blocks;
  const testing::SyntheticTrace trace =
      testing::GenerateSyntheticTrace(options);
  return testing::SavedFromScript(trace.script,
                                  testing::BuildProfile(trace.script),
                                  absl::StrCat("syn", seed));
}

TEST(ProfileFileTest, SyntheticProfilesRoundTrip) {
  for (uint64_t seed : {1, 2, 3}) {
    const SavedProfile p = Synthetic(seed, 1 + seed % 3, seed == 3);
    ASSERT_TRUE(ValidateProfile(p).ok()) << ValidateProfile(p);
    ASSERT_FALSE(p.profile.paths.empty());
    ASSERT_FALSE(p.profile.threads.empty());
    const SavedProfile back = RoundTrip(p);
    EXPECT_TRUE(back.profile == p.profile) << "seed " << seed;
    EXPECT_TRUE(SameContent(back, p)) << "seed " << seed;
  }
}

// A profile far larger than a chunk: many block, node and code chunks, each
// bounded, joined back exactly.
TEST(ProfileFileTest, LargeProfileIsChunkedAndJoined) {
  SavedProfile p = testing::EveryFieldSet();
  Profile& pr = p.profile;
  const BlockStats proto = pr.blocks[0];
  pr.blocks.clear();
  pr.edges.clear();
  pr.paths.clear();
  for (uint32_t i = 0; i < 300000; ++i) {
    BlockStats b = proto;
    b.vaddr = 0x1000 + 4 * i;
    b.last_vaddr = b.vaddr + 2;
    b.count = i + 1;
    pr.blocks.push_back(b);
    if (i > 0) pr.edges.push_back({i - 1, i, i});
  }
  CallTree chain;
  chain.nodes.push_back({});
  for (uint32_t i = 1; i <= 200000; ++i) {
    CallTree::Node n;
    n.frame = {FrameKind::kUnknownCode, 0, i};
    n.parent = i - 1;
    n.depth = i;
    n.self_insns = 1;
    chain.nodes.push_back(n);
    chain.node_blocks.push_back({i, i, 1, 0});
  }
  for (uint32_t i = 0; i < chain.nodes.size(); ++i) {
    chain.nodes[i].end = static_cast<uint32_t>(chain.nodes.size());
    chain.nodes[i].total_insns = chain.nodes.size() - 1 - (i == 0 ? 0 : i - 1);
  }
  pr.merged = chain;
  pr.threads[0].tree = chain;
  std::string code(10 << 20, '\0');
  for (size_t i = 0; i < code.size(); ++i) code[i] = static_cast<char>(i * 31);
  p.images[0].code = {{0x100000, code}};
  ASSERT_TRUE(ValidateProfile(p).ok()) << ValidateProfile(p);

  const std::string bytes = SerializeProfile(p);
  auto chunks = internal::ReadChunkPayloads(Bytes(bytes));
  ASSERT_TRUE(chunks.ok()) << chunks.status();
  EXPECT_GT(chunks->size(), 15u);
  for (const std::string& c : *chunks) {
    EXPECT_LE(c.size(), 8u << 20) << "a chunk of " << c.size() << " bytes";
  }
  auto back = ParseProfile(Bytes(bytes), "large");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->profile == p.profile);
  EXPECT_TRUE(back->images == p.images);
}

std::vector<pb::Chunk> Chunks(const std::string& file) {
  auto payloads = internal::ReadChunkPayloads(Bytes(file));
  EXPECT_TRUE(payloads.ok()) << payloads.status();
  std::vector<pb::Chunk> out;
  for (const std::string& payload : *payloads) {
    out.emplace_back().ParseFromString(payload);
  }
  return out;
}

std::string FileOf(const std::vector<pb::Chunk>& chunks,
                   const std::vector<std::string>& extra_raw = {}) {
  std::vector<std::string> payloads;
  for (const pb::Chunk& c : chunks) payloads.push_back(c.SerializeAsString());
  payloads.insert(payloads.end() - 1, extra_raw.begin(), extra_raw.end());
  return internal::FileOfChunkPayloads(payloads);
}

TEST(ProfileFileTest, NewerMajorVersionIsRefused) {
  std::vector<pb::Chunk> chunks =
      Chunks(SerializeProfile(testing::EveryFieldSet()));
  chunks[0].mutable_header()->set_major(2);
  chunks[0].mutable_header()->set_minor(3);
  auto parsed = ParseProfile(Bytes(FileOf(chunks)), "new.hwtprof");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(parsed.status().message(),
              HasSubstr("new.hwtprof: profile format 2.3 is newer than this "
                        "hwt reads (1.x); upgrade hwt"));
}

TEST(ProfileFileTest, UnknownFieldsAndChunksOfANewerMinorAreSkipped) {
  const SavedProfile p = testing::EveryFieldSet();
  std::vector<pb::Chunk> chunks = Chunks(SerializeProfile(p));
  chunks[0].mutable_header()->set_minor(7);
  // An unknown field in the header (field 100, varint 5) and a chunk of an
  // unknown kind (field 200 of Chunk, a length-delimited "hello").
  std::string header = chunks[0].SerializeAsString();
  header.insert(header.size(), std::string("\xa0\x06\x05", 3));
  chunks[0].Clear();
  ASSERT_TRUE(chunks[0].ParseFromString(header));
  const std::string unknown_chunk = std::string("\xc2\x0c\x05hello", 8);
  chunks.back().mutable_end()->set_chunks(chunks.back().end().chunks() + 1);
  auto parsed =
      ParseProfile(Bytes(FileOf(chunks, {unknown_chunk})), "minor.hwtprof");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(SameContent(*parsed, p));
}

// A file of format 1.0 (written before the frames had linkage names and
// start lines) reads, with those empty, and says which version it is.
TEST(ProfileFileTest, AFileOfFormat1_0ReadsWithoutExportNames) {
  const SavedProfile p = testing::EveryFieldSet();
  std::vector<pb::Chunk> chunks = Chunks(SerializeProfile(p));
  chunks[0].mutable_header()->set_minor(0);
  int cleared = 0;
  for (pb::Chunk& c : chunks) {
    if (!c.has_addresses()) continue;
    c.mutable_addresses()->clear_linkage_name();
    c.mutable_addresses()->clear_start_line();
    ++cleared;
  }
  ASSERT_EQ(cleared, 1);
  auto parsed = ParseProfile(Bytes(FileOf(chunks)), "old.hwtprof");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->format_minor, 0);
  EXPECT_EQ(RoundTrip(p).format_minor, kProfileMinorVersion);
  SavedProfile expected = p;
  for (SavedImage& image : expected.images) {
    for (SavedAddress& a : image.addresses) {
      for (SavedSourceFrame& f : a.frames) {
        f.linkage_name.clear();
        f.start_line = 0;
      }
    }
  }
  EXPECT_TRUE(SameContent(*parsed, expected));
  // One of the two columns without the other is a broken file.
  std::vector<pb::Chunk> half = Chunks(SerializeProfile(p));
  for (pb::Chunk& c : half) {
    if (c.has_addresses()) c.mutable_addresses()->clear_start_line();
  }
  auto broken = ParseProfile(Bytes(FileOf(half)), "half.hwtprof");
  EXPECT_FALSE(broken.ok());
}

// A file of format 1.1 has no `counts`: its profile counts instructions,
// as every profile did then. A kind of counts this reader does not know is
// refused, not taken for another.
TEST(ProfileFileTest, AFileOfFormat1_1CountsInstructions) {
  const SavedProfile p = testing::EveryFieldSet();
  ASSERT_EQ(p.profile.counts, ProfileCounts::kSamples);
  EXPECT_EQ(RoundTrip(p).profile.counts, ProfileCounts::kSamples);
  std::vector<pb::Chunk> chunks = Chunks(SerializeProfile(p));
  chunks[0].mutable_header()->set_minor(1);
  for (pb::Chunk& c : chunks) {
    if (c.has_stats()) c.mutable_stats()->clear_counts();
  }
  auto parsed = ParseProfile(Bytes(FileOf(chunks)), "old.hwtprof");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->format_minor, 1);
  EXPECT_EQ(parsed->profile.counts, ProfileCounts::kInstructions);
  for (pb::Chunk& c : chunks) {
    if (c.has_stats()) c.mutable_stats()->set_counts(7);
  }
  auto unknown = ParseProfile(Bytes(FileOf(chunks)), "new.hwtprof");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown kind of counts 7"),
            std::string::npos)
      << unknown.status();
}

TEST(ProfileFileTest, TruncatedFilesAreRecognised) {
  const std::string bytes = SerializeProfile(Synthetic(4, 2, false, 3000));
  for (size_t n = 0; n < bytes.size(); n += 1 + n / 16) {
    auto parsed = ParseProfile(Bytes(bytes.substr(0, n)), "cut.hwtprof");
    ASSERT_FALSE(parsed.ok()) << "a prefix of " << n << " bytes read as whole";
    EXPECT_THAT(parsed.status().message(), HasSubstr("cut.hwtprof"));
  }
  // Chunks missing in the middle: the end chunk's counts say so.
  std::vector<pb::Chunk> chunks = Chunks(bytes);
  std::vector<pb::Chunk> fewer;
  for (const pb::Chunk& c : chunks) {
    if (c.part_case() != pb::Chunk::kEdges) fewer.push_back(c);
  }
  ASSERT_LT(fewer.size(), chunks.size());
  auto parsed = ParseProfile(Bytes(FileOf(fewer)), "holes.hwtprof");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("chunks are missing"));
}

TEST(ProfileFileTest, CorruptBytesAreErrorsNotCrashes) {
  const std::string bytes = SerializeProfile(Synthetic(5, 1, false, 2000));
  int errors = 0;
  for (size_t at = 0; at < bytes.size(); at += 7) {
    std::string bad = bytes;
    bad[at] ^= 0x5a;
    auto parsed = ParseProfile(Bytes(bad), "bad.hwtprof");
    if (parsed.ok()) {
      EXPECT_TRUE(ValidateProfile(*parsed).ok());
    } else {
      ++errors;
      EXPECT_THAT(parsed.status().message(), HasSubstr("bad.hwtprof"));
    }
  }
  EXPECT_GT(errors, 0);
  auto garbage = ParseProfile(Bytes("not a profile at all"), "g.txt");
  ASSERT_FALSE(garbage.ok());
  EXPECT_THAT(garbage.status().message(),
              HasSubstr("g.txt: not a saved profile"));
}

void ExpectInvalid(const SavedProfile& p, const std::string& message) {
  const absl::Status status = ValidateProfile(p);
  EXPECT_FALSE(status.ok()) << "accepted; expected: " << message;
  EXPECT_THAT(status.message(), HasSubstr(message));
  // The reader refuses what the validator refuses.
  auto parsed = ParseProfile(Bytes(SerializeProfile(p)), "v.hwtprof");
  EXPECT_FALSE(parsed.ok()) << message;
}

TEST(ProfileFileTest, ValidationNamesTheBrokenItem) {
  const SavedProfile good = testing::EveryFieldSet();
  SavedProfile p = good;
  p.profile.blocks[1].image = 5;
  ExpectInvalid(p, "block 1: image 5 out of range (1 images)");
  p = good;
  std::swap(p.profile.blocks[0], p.profile.blocks[1]);
  ExpectInvalid(p, "block 1: blocks not in canonical order");
  p = good;
  p.profile.edges[0].to = 9;
  ExpectInvalid(p, "edge 0: block 0 -> 9 out of range (2 blocks)");
  p = good;
  p.profile.merged.node_blocks[1].block = 7;
  ExpectInvalid(p, "the merged tree, node block 1: out of range");
  p = good;
  p.profile.threads[0].capture = 4;
  ExpectInvalid(p, "thread 0: capture 4 out of range (2 captures)");
  p = good;
  p.profile.paths[0].blocks = {0, 3};
  ExpectInvalid(p, "path 0: block 3 out of range");
  p = good;
  p.images[0].functions.push_back(p.images[0].functions[0]);
  ExpectInvalid(p, "image 0: functions not sorted by start");
  p = good;
  p.profile.call_edges[0].callee.image = 3;
  ExpectInvalid(p, "call edge 0: image 3 out of range");
  p = good;
  std::swap(p.profile.merged.nodes[1].frame, p.profile.merged.nodes[2].frame);
  p.profile.merged.nodes[2].parent = 0;
  ExpectInvalid(p, "the merged tree, node 2: not in preorder");
}

TEST(ProfileFileTest, HostileFramingIsRefused) {
  // A zstd frame holding only the varint length 2^40.
  const std::string length = std::string("\x80\x80\x80\x80\x80\x20", 6);
  std::string frame(ZSTD_compressBound(length.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), length.data(),
                             length.size(), 1));
  auto parsed =
      ParseProfile(Bytes(std::string(kProfileMagic) + frame), "huge.hwtprof");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("the limit is 64 MiB"));
  // No chunks at all.
  auto empty =
      ParseProfile(Bytes(internal::FileOfChunkPayloads({})), "empty.hwtprof");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("without its end chunk"));
  // A first chunk that is not the header.
  pb::Chunk stats;
  stats.mutable_stats()->set_events(1);
  auto headless = ParseProfile(
      Bytes(internal::FileOfChunkPayloads({stats.SerializeAsString()})),
      "headless.hwtprof");
  ASSERT_FALSE(headless.ok());
  EXPECT_THAT(headless.status().message(),
              HasSubstr("does not start with a header chunk"));
}

}  // namespace
}  // namespace hwt::analysis
