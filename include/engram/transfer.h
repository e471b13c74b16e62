// Export to and import from JSON Lines (format: docs/storage-format.md, "Export format").
//
// An export file starts with a header line {"kind":"engram-export","version":2,...} followed by
// one line per memory (the item with every field, its full history and its stored vectors),
// then, per user, one line per session (with every turn), one for the profile summary and one
// for the maintenance log. Importing an export into an empty database reproduces every field.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/status.h"

namespace engram {

// 2: adds the lines of sessions (with their turns), the profile summary and the maintenance
// log. Version 1 files (memories only) import as before.
inline constexpr int kExportFormatVersion = 2;

struct ExportStats {
  int64_t memories = 0;
  int64_t sessions = 0, turns = 0, profiles = 0, log_entries = 0;
};

// Writes the header and every record of `scopes` (each a tenant + user) to `out`.
Result<ExportStats> ExportJsonl(Engine& engine, const std::vector<Scope>& scopes,
                                std::ostream& out);

struct ImportOptions {
  size_t batch_size = 1000;  // lines per transaction
  OnConflict on_conflict = OnConflict::kFail;
  // Called after each batch with the number of bytes consumed so far.
  std::function<void(int64_t bytes)> progress;
};

struct ImportLineError {
  int64_t line = 0;  // 1-based
  std::string message;
};

// Each batch of lines is written in one transaction or not at all: a batch holding a malformed
// or invalid line, or one the database refuses, is rejected whole, and import goes on with the
// next batch so that every bad line is reported in one pass.
struct ImportReport {
  int64_t lines = 0;  // non-blank lines read, header included
  int64_t imported = 0;
  int64_t skipped = 0;  // ids (and sessions) already present (OnConflict::kSkip)
  int64_t sessions = 0, turns = 0, profiles = 0, log_entries = 0;  // imported
  int64_t rejected = 0;  // records in rejected batches (good lines among them included)
  std::vector<ImportLineError> errors;  // in line order
  bool ok() const { return errors.empty(); }
};

// Fails only on a read error of `in`; data problems are reported in ImportReport::errors.
Result<ImportReport> ImportJsonl(Engine& engine, std::istream& in, const ImportOptions& options);

}  // namespace engram
