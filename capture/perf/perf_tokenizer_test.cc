// Tests of the perf.data tokenizer on files built byte by byte: both forms,
// COMPRESSED records, refused byte orders, and hostile inputs (truncation at
// every record boundary and inside records, sizes past the end, absurd
// counts, impossible record sizes), each with the offset in the message.
#include "capture/perf/perf_tokenizer.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "capture/perf/perf_format.h"
#include "capture/testing/perf_data_writer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::capture::perf {
namespace {

using ::hwt::capture::testing::PerfDataWriter;
using ::testing::HasSubstr;

struct Seen {
  std::vector<PerfAttr> attrs;
  std::vector<std::pair<int, std::string>> features;
  std::vector<std::string> records;  // "TYPE body-size payload-size"
  std::vector<std::string> payloads;
};

class Recorder : public PerfVisitor {
 public:
  absl::Status OnAttr(const PerfAttr& attr) override {
    seen.attrs.push_back(attr);
    return absl::OkStatus();
  }
  absl::Status OnFeature(int feature, absl::Span<const uint8_t> data,
                         uint64_t) override {
    seen.features.push_back({feature, std::string(data.begin(), data.end())});
    return absl::OkStatus();
  }
  absl::Status OnRecord(const RawRecord& r) override {
    seen.records.push_back(absl::StrFormat("%s %u %u", RecordTypeName(r.type),
                                           r.body.size(), r.payload.size()));
    seen.payloads.emplace_back(r.payload.begin(), r.payload.end());
    return absl::OkStatus();
  }
  Seen seen;
};

absl::StatusOr<TokenizeSummary> Tokenize(const std::string& bytes,
                                         Recorder* recorder) {
  return TokenizePerfData(
      absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                bytes.size()),
      "x.data", recorder);
}

PerfDataWriter Sample() {
  PerfDataWriter w;
  w.AddAttr(8, 0x2001, {11, 12});
  w.AddFeature(kFeatHostname, PerfDataWriter::FeatureString("box"));
  w.AddFeature(kFeatBuildId,
               PerfDataWriter::BuildIdEntry(-1, 2, "abcdef0123", "/bin/true"));
  w.AddPtAuxtraceInfo(8);
  w.AddComm(7, 7, "true", true, 1000, 0);
  w.AddMmap2(7, 7, 0x400000, 0x1000, 0, "", "/bin/true", 1100, 0);
  w.AddAux(0, 24, 0, 7, 1200, 0);
  w.AddAuxtrace(0, 0, std::string(21, '\x02'));
  w.AddTask(false, 7, 1, 7, 1, 1300, 0);
  return w;
}

TEST(PerfTokenizerTest, FileAndPipeFormsGiveTheSameRecords) {
  PerfDataWriter w = Sample();
  Recorder file, pipe;
  auto f = Tokenize(w.FileForm(), &file);
  ASSERT_TRUE(f.ok()) << f.status();
  auto p = Tokenize(w.PipeForm(), &pipe);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(f->pipe);
  EXPECT_TRUE(p->pipe);
  EXPECT_TRUE(f->warnings.empty());
  EXPECT_TRUE(p->warnings.empty());
  EXPECT_EQ(file.seen.records, pipe.seen.records);
  EXPECT_EQ(file.seen.payloads, pipe.seen.payloads);
  ASSERT_EQ(file.seen.records.size(), 6u);
  EXPECT_EQ(file.seen.records[4], "AUXTRACE 40 24");  // padded to 8
  ASSERT_EQ(file.seen.attrs.size(), 1u);
  ASSERT_EQ(pipe.seen.attrs.size(), 1u);
  EXPECT_EQ(pipe.seen.attrs[0].ids, (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ(file.seen.attrs[0].ids, (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ(file.seen.attrs[0].config, 0x2001u);
  // The same feature sections (the pipe form sends build-ids last).
  auto sorted = [](std::vector<std::pair<int, std::string>> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(file.seen.features), sorted(pipe.seen.features));
}

TEST(PerfTokenizerTest, CompressedRecordsAreReadEvenWhenTheyCutRecords) {
  PerfDataWriter w = Sample();
  Recorder plain;
  ASSERT_TRUE(Tokenize(w.FileForm(), &plain).ok());
  for (size_t chunk : {7, 50, 100, 4096}) {
    Recorder packed;
    auto summary = Tokenize(w.FileForm(chunk), &packed);
    ASSERT_TRUE(summary.ok()) << chunk << ": " << summary.status();
    EXPECT_GT(summary->compressed_records, 0u);
    EXPECT_TRUE(summary->warnings.empty()) << summary->warnings[0];
    EXPECT_EQ(packed.seen.records, plain.seen.records) << chunk;
    EXPECT_EQ(packed.seen.payloads, plain.seen.payloads) << chunk;
  }
}

TEST(PerfTokenizerTest, CorruptCompressedDataNamesItsRecord) {
  PerfDataWriter w = Sample();
  std::string bytes = w.FileForm(4096);
  const uint64_t data_at = w.RecordOffsets()[0];
  bytes[data_at + 12] ^= 0x55;  // inside the zstd frame header
  Recorder r;
  auto summary = Tokenize(bytes, &r);
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(),
              HasSubstr(absl::StrFormat("offset 0x%x", data_at)));
  EXPECT_THAT(summary.status().message(), HasSubstr("zstd"));
}

TEST(PerfTokenizerTest, BigEndianAndLegacyFilesAreRefusedClearly) {
  std::string bytes = Sample().FileForm();
  std::string swapped = bytes;
  std::reverse(swapped.begin(), swapped.begin() + 8);
  Recorder r;
  auto big = Tokenize(swapped, &r);
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(big.status().message(), HasSubstr("big-endian"));
  EXPECT_THAT(big.status().message(), HasSubstr("x.data: offset 0x0"));
  std::string legacy = bytes;
  legacy.replace(0, 8, "PERFFILE");
  auto old = Tokenize(legacy, &r);
  ASSERT_FALSE(old.ok());
  EXPECT_THAT(old.status().message(), HasSubstr("PERFFILE"));
  EXPECT_TRUE(LooksLikePerfData(absl::Span<const uint8_t>(
      reinterpret_cast<const uint8_t*>(swapped.data()), swapped.size())));
}

// A file cut at any record boundary (or inside a record) is read up to the
// cut, and the loss is named.
TEST(PerfTokenizerTest, TruncationAtEveryBoundaryIsAPartialReadThatSaysSo) {
  PerfDataWriter w = Sample();
  const std::string bytes = w.FileForm();
  const std::vector<uint64_t> offsets = w.RecordOffsets();
  Recorder whole;
  ASSERT_TRUE(Tokenize(bytes, &whole).ok());
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    for (uint64_t cut : {offsets[i], offsets[i] + 3, offsets[i + 1] - 1}) {
      Recorder r;
      auto summary = Tokenize(bytes.substr(0, cut), &r);
      ASSERT_TRUE(summary.ok()) << cut << ": " << summary.status();
      ASSERT_FALSE(summary->warnings.empty()) << cut;
      EXPECT_THAT(absl::StrJoin(summary->warnings, "\n"),
                  HasSubstr("truncated"))
          << cut;
      // Every whole record before the cut was read; the AUXTRACE whose data
      // is cut short is delivered with what is there.
      ASSERT_GE(r.seen.records.size(), i) << cut;
      for (size_t k = 0; k < i; ++k) {
        EXPECT_EQ(r.seen.records[k], whole.seen.records[k]) << cut;
      }
    }
  }
}

TEST(PerfTokenizerTest, AuxtracePayloadPastTheEndIsDeliveredAndReported) {
  PerfDataWriter w;
  w.AddAttr(8, 0, {1});
  w.AddAuxtrace(0, 0, std::string(64, '\x02'));
  std::string bytes = w.FileForm();
  const uint64_t auxtrace_at = w.RecordOffsets()[0];
  bytes.resize(bytes.size() - 40);  // payload cut after 24 bytes
  Recorder r;
  auto summary = Tokenize(bytes, &r);
  ASSERT_TRUE(summary.ok()) << summary.status();
  ASSERT_EQ(r.seen.payloads.size(), 1u);
  EXPECT_EQ(r.seen.payloads[0].size(), 24u);
  const std::string warnings = absl::StrJoin(summary->warnings, "\n");
  EXPECT_THAT(warnings, HasSubstr(absl::StrFormat("offset 0x%x", auxtrace_at)));
  EXPECT_THAT(warnings, HasSubstr("40 bytes are lost"));
}

TEST(PerfTokenizerTest, ImpossibleRecordSizeIsAnErrorNamingTheOffset) {
  PerfDataWriter w = Sample();
  std::string bytes = w.FileForm();
  const uint64_t at = w.RecordOffsets()[2];
  bytes[at + 6] = 4;  // size 4 < header
  bytes[at + 7] = 0;
  Recorder r;
  auto summary = Tokenize(bytes, &r);
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(),
              HasSubstr(absl::StrFormat("x.data: offset 0x%x", at)));
  EXPECT_THAT(summary.status().message(), HasSubstr("less than its 8-byte"));
}

TEST(PerfTokenizerTest, AbsurdSectionsAndCountsAreRefused) {
  const std::string bytes = Sample().FileForm();
  auto patch64 = [&](size_t at, uint64_t value) {
    std::string b = bytes;
    std::memcpy(&b[at], &value, 8);
    return b;
  };
  Recorder r;
  // The attribute section past the end of the file.
  auto attrs = Tokenize(patch64(32, uint64_t{1} << 40), &r);
  ASSERT_FALSE(attrs.ok());
  EXPECT_THAT(attrs.status().message(), HasSubstr("offset 0x18"));
  // An attribute size that cannot hold an attribute.
  auto size = Tokenize(patch64(16, 8), &r);
  ASSERT_FALSE(size.ok());
  EXPECT_THAT(size.status().message(), HasSubstr("attribute size 8"));
  // The data section past the end: read what is there, say what is lost.
  auto data = Tokenize(patch64(48, uint64_t{1} << 30), &r);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_THAT(absl::StrJoin(data->warnings, "\n"), HasSubstr("truncated"));
  // Data size 0 (perf record killed): records to the end of the file.
  Recorder zero;
  auto unfinished = Tokenize(patch64(48, 0), &zero);
  ASSERT_TRUE(unfinished.ok()) << unfinished.status();
  EXPECT_THAT(absl::StrJoin(unfinished->warnings, "\n"),
              HasSubstr("did not finish"));
  EXPECT_GE(zero.seen.records.size(), 6u);
}

TEST(PerfTokenizerTest, ShortAndForeignFilesAreNotPerfData) {
  Recorder r;
  auto tiny = Tokenize("PERF", &r);
  ASSERT_FALSE(tiny.ok());
  EXPECT_THAT(tiny.status().message(), HasSubstr("too short"));
  auto other = Tokenize(std::string(200, 'x'), &r);
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(), HasSubstr("no PERFILE2 magic"));
}

}  // namespace
}  // namespace hwt::capture::perf
