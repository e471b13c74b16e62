// Looks for leftovers of erased data in the files Engram writes: a byte scan of each file for
// many needles at once (the texts and vector bytes a hard delete removed), in one pass per file.
// Used to prove a purge (`engram purge --verify`, Engine::PurgeScopeVerified) and by the tests
// that check every place a memory lives.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/status.h"

namespace engram {

struct TraceHit {
  std::string file;
  int64_t offset = 0;
  size_t needle = 0;  // index into the needles scanned for
};

// The regular files Engram keeps for the database at `db_path`: the file itself, its -wal and
// -shm (when present) and everything under `<db_path>.indexes/`.
std::vector<std::string> EngramFiles(const std::string& db_path);

inline constexpr size_t kMinNeedleBytes = 8;

// Many needles, found in one pass over a buffer. Needles shorter than kMinNeedleBytes are
// skipped (too short to tell a trace from chance), and so are needles starting with eight zero
// bytes (indistinguishable from zeroed pages at the scan's first look).
class NeedleSet {
 public:
  explicit NeedleSet(const std::vector<std::string>& needles);
  bool empty() const { return by_word_.empty(); }
  size_t longest() const { return longest_; }
  // Calls found(needle index, offset) for each whole occurrence starting before `stop` (the
  // needle may run past it, within `size`).
  void Scan(const char* data, size_t size, size_t stop,
            const std::function<void(size_t needle, size_t offset)>& found) const;
  void Scan(std::string_view data, const std::function<void(size_t, size_t)>& found) const {
    Scan(data.data(), data.size(), data.size(), found);
  }

 private:
  const std::vector<std::string>& needles_;
  std::vector<uint64_t> filter_;  // a bit per 20-bit slot of a needle's first 8 bytes
  std::unordered_multimap<uint64_t, size_t> by_word_;
  size_t longest_ = kMinNeedleBytes;
};

// Every place in `files` where a needle occurs whole. Reads each file once, in chunks.
Result<std::vector<TraceHit>> ScanForNeedles(const std::vector<std::string>& files,
                                             const std::vector<std::string>& needles,
                                             int64_t* bytes_scanned = nullptr);

}  // namespace engram
