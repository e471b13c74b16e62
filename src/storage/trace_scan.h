// Looks for leftovers of erased data in the files Engram writes: a byte scan of each file for
// many needles at once (the texts and vector bytes a hard delete removed), in one pass per file.
// Used to prove a purge (`engram purge --verify`, Engine::PurgeScopeVerified) and by the tests
// that check every place a memory lives.
#pragma once

#include <cstdint>
#include <string>
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

// Every place in `files` where a needle occurs whole. Needles shorter than kMinNeedleBytes are
// skipped (too short to tell a trace from chance). Reads each file once, in chunks.
inline constexpr size_t kMinNeedleBytes = 8;
Result<std::vector<TraceHit>> ScanForNeedles(const std::vector<std::string>& files,
                                             const std::vector<std::string>& needles,
                                             int64_t* bytes_scanned = nullptr);

}  // namespace engram
