// Writes small perf.data files for tests, byte for byte as perf lays them
// out: the file form (header, attributes with ids, data section, feature
// table) or the pipe form (HEADER_ATTR and HEADER_FEATURE records), records
// with their sample_id trailer, AUXTRACE payloads, and COMPRESSED records
// (zstd) that may cut a record in two as perf's do.
#ifndef HWT_CAPTURE_TESTING_PERF_DATA_WRITER_H_
#define HWT_CAPTURE_TESTING_PERF_DATA_WRITER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hwt::capture::testing {

// The sample_type every test attribute uses: TID | TIME | CPU, so each
// record's trailer is pid, tid, time, cpu.
inline constexpr uint64_t kTestSampleType = (1u << 1) | (1u << 2) | (1u << 7);

class PerfDataWriter {
 public:
  // An attribute with sample_id_all and kTestSampleType.
  void AddAttr(uint32_t type, uint64_t config, std::vector<uint64_t> ids,
               uint64_t extra_flags = 0);
  void AddFeature(int feature, std::string data);
  // A record: header (type, misc, size) + body (+ trailer) + payload.
  void AddRecord(uint32_t type, uint16_t misc, std::string body,
                 std::string payload = "");

  // Record bodies (with a kTestSampleType trailer where perf has one).
  static std::string Trailer(uint32_t pid, uint32_t tid, uint64_t time,
                             uint32_t cpu);
  void AddMmap2(uint32_t pid, uint32_t tid, uint64_t addr, uint64_t len,
                uint64_t pgoff, const std::string& build_id_hex,
                const std::string& filename, uint64_t time, uint32_t cpu,
                uint32_t prot = 5);
  void AddComm(uint32_t pid, uint32_t tid, const std::string& comm, bool exec,
               uint64_t time, uint32_t cpu);
  void AddTask(bool fork, uint32_t pid, uint32_t ppid, uint32_t tid,
               uint32_t ptid, uint64_t time, uint32_t cpu);
  void AddAux(uint64_t offset, uint64_t size, uint64_t flags, uint32_t pid,
              uint64_t time, uint32_t cpu);
  void AddAuxtrace(uint64_t offset, uint32_t cpu, const std::string& data);
  // An Intel PT AUXTRACE_INFO (perf's 17 words, no filter).
  void AddPtAuxtraceInfo(uint32_t pmu_type);

  // Strings in perf's feature encodings.
  static std::string FeatureString(const std::string& text);
  static std::string BuildIdEntry(int32_t pid, uint16_t misc,
                                  const std::string& build_id_hex,
                                  const std::string& filename);

  // The file form. With `compress_chunk` > 0 the data records are packed
  // into COMPRESSED records of about that many uncompressed bytes each,
  // cutting records where the chunk ends.
  std::string FileForm(size_t compress_chunk = 0) const;
  std::string PipeForm() const;
  // File offsets of every data record in FileForm() (uncompressed), and of
  // the end of the data section.
  std::vector<uint64_t> RecordOffsets() const;

 private:
  struct Attr {
    std::string bytes;  // perf_event_attr (128 bytes)
    std::vector<uint64_t> ids;
  };
  std::string Records() const;

  std::vector<Attr> attrs_;
  std::map<int, std::string> features_;
  std::vector<std::string> records_;
};

}  // namespace hwt::capture::testing

#endif  // HWT_CAPTURE_TESTING_PERF_DATA_WRITER_H_
