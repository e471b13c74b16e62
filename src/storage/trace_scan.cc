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

Result<std::vector<TraceHit>> ScanForNeedles(const std::vector<std::string>& files,
                                             const std::vector<std::string>& needles,
                                             int64_t* bytes_scanned) {
  std::vector<bool> filter(kFilterBits, false);
  std::unordered_multimap<uint64_t, size_t> by_word;
  size_t longest = kMinNeedleBytes;
  for (size_t i = 0; i < needles.size(); ++i) {
    if (needles[i].size() < kMinNeedleBytes) continue;
    const uint64_t word = Load8(needles[i].data());
    filter[FilterSlot(word)] = true;
    by_word.emplace(word, i);
    longest = std::max(longest, needles[i].size());
  }
  std::vector<TraceHit> hits;
  int64_t scanned = 0;
  if (by_word.empty()) return hits;
  std::vector<char> buf(kChunk + longest);
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return Status::IOError("cannot read " + file);
    // Each chunk is read after the last longest-1 bytes of the one before, so a needle that
    // straddles two chunks is seen whole.
    size_t carried = 0;
    int64_t base = 0;  // file offset of buf[0]
    while (true) {
      in.read(buf.data() + carried, static_cast<std::streamsize>(kChunk));
      const size_t got = static_cast<size_t>(in.gcount());
      const size_t have = carried + got;
      scanned += static_cast<int64_t>(got);
      const bool last = got < kChunk;
      // Offsets whose whole window is in the buffer; the rest wait for the next chunk.
      const size_t limit = have < kMinNeedleBytes ? 0 : have - kMinNeedleBytes + 1;
      const size_t stop = last ? limit : (have >= longest ? have - longest + 1 : 0);
      for (size_t at = 0; at < stop; ++at) {
        const uint64_t word = Load8(buf.data() + at);
        if (!filter[FilterSlot(word)]) continue;
        auto [from, to] = by_word.equal_range(word);
        for (auto it = from; it != to; ++it) {
          const std::string& n = needles[it->second];
          if (at + n.size() <= have && std::memcmp(buf.data() + at, n.data(), n.size()) == 0) {
            hits.push_back(TraceHit{file, base + static_cast<int64_t>(at), it->second});
          }
        }
      }
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
