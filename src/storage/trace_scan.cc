// The scan of trace_scan.h. Each needle is indexed by its first 8 bytes (a 64-bit word); the
// scan loads the word at every offset of the file and checks a 1 Mbit filter before the hash
// map, so a file costs one filter probe per byte whatever the number of needles (10,000 memories'
// texts and vectors scan as fast as one). A candidate is confirmed by comparing the whole needle.
#include "storage/trace_scan.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "storage/lock_safe_reads.h"

namespace engram {
namespace {

constexpr size_t kFilterBits = size_t{1} << 20;
constexpr size_t kChunk = size_t{8} << 20;

inline uint64_t Load8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline size_t FilterSlot(uint64_t word) {
  return static_cast<size_t>((word * 0x9E3779B97F4A7C15ull) >> 44);  // top 20 bits
}

}  // namespace

std::vector<std::string> EngramFiles(const std::string& db_path) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    const std::string f = db_path + suffix;
    if (std::filesystem::is_regular_file(f, ec)) files.push_back(f);
  }
  const std::string indexes = db_path + ".indexes";
  if (std::filesystem::is_directory(indexes, ec)) {
    for (auto it = std::filesystem::recursive_directory_iterator(indexes, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) files.push_back(it->path().string());
    }
  }
  std::sort(files.begin() + std::min<size_t>(files.size(), 1), files.end());
  return files;
}

NeedleSet::NeedleSet(const std::vector<std::string>& needles)
    : needles_(needles), filter_(kFilterBits / 64, 0) {
  for (size_t i = 0; i < needles.size(); ++i) {
    if (needles[i].size() < kMinNeedleBytes) continue;
    const uint64_t word = Load8(needles[i].data());
    // Eight zero bytes begin every zeroed page's offsets: such a needle would be compared at
    // nearly every byte of the file (the callers make needles that do not start so).
    if (word == 0) continue;
    const size_t slot = FilterSlot(word);
    filter_[slot >> 6] |= uint64_t{1} << (slot & 63);
    by_word_.emplace(word, i);
    longest_ = std::max(longest_, needles[i].size());
  }
}

void NeedleSet::Scan(const char* data, size_t size, size_t stop,
                     const std::function<void(size_t, size_t)>& found) const {
  if (size < kMinNeedleBytes || by_word_.empty()) return;
  stop = std::min(stop, size - kMinNeedleBytes + 1);
  for (size_t at = 0; at < stop; ++at) {
    const uint64_t word = Load8(data + at);
    const size_t slot = FilterSlot(word);
    if (!(filter_[slot >> 6] >> (slot & 63) & 1)) continue;
    auto [from, to] = by_word_.equal_range(word);
    for (auto it = from; it != to; ++it) {
      const std::string& n = needles_[it->second];
      if (at + n.size() <= size && std::memcmp(data + at, n.data(), n.size()) == 0) {
        found(it->second, at);
      }
    }
  }
}

Result<std::vector<TraceHit>> ScanForNeedles(const std::vector<std::string>& files,
                                             const std::vector<std::string>& needles,
                                             int64_t* bytes_scanned) {
  const NeedleSet set(needles);
  std::vector<TraceHit> hits;
  int64_t scanned = 0;
  if (bytes_scanned) *bytes_scanned = 0;
  if (set.empty()) return hits;
  const size_t longest = set.longest();
  std::vector<char> buf(kChunk + longest);
  for (const std::string& file : files) {
    // Each chunk is read after the last bytes of the one before that could start a needle, so
    // a needle that straddles two chunks is seen whole. Reads go through lock_safe_reads.h: the
    // database's files are open in this process's connections.
    size_t carried = 0;
    int64_t base = 0;  // file offset of buf[0]
    while (true) {
      size_t got = 0;
      while (got < kChunk) {
        auto n = ReadFileAt(file, base + static_cast<int64_t>(carried + got),
                            buf.data() + carried + got, kChunk - got);
        if (!n.ok()) return Status::IOError("cannot read " + file + ": " + n.status().message());
        if (*n == 0) break;
        got += *n;
      }
      const size_t have = carried + got;
      scanned += static_cast<int64_t>(got);
      const bool last = got < kChunk;
      // Offsets where every needle fits in the buffer; the rest wait for the next chunk.
      const size_t stop = last ? have : (have >= longest ? have - longest + 1 : 0);
      set.Scan(buf.data(), have, stop, [&](size_t needle, size_t at) {
        hits.push_back(TraceHit{file, base + static_cast<int64_t>(at), needle});
      });
      if (last) break;
      carried = have - stop;
      std::memmove(buf.data(), buf.data() + stop, carried);
      base += static_cast<int64_t>(stop);
    }
  }
  if (bytes_scanned) *bytes_scanned = scanned;
  return hits;
}

}  // namespace engram
