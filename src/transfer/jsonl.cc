#include <nlohmann/json.hpp>
#include <set>

#include "codec/field_names.h"
#include "codec/item_json.h"
#include "codec/item_validation.h"
#include "core/status_macros.h"
#include "engram/clock.h"
#include "engram/transfer.h"
#include "text/utf8.h"

namespace engram {
namespace {

using json = nlohmann::json;

json RecordToJson(const MemoryRecord& r) {
  json history = json::array();
  for (const HistoryEntry& h : r.history) history.push_back(HistoryToJson(h));
  json vectors = json::array();
  for (const StoredVector& v : r.vectors) {
    vectors.push_back({{"model", v.model},
                       {"dim", v.values.size()},
                       {"values_b64", EncodeVectorBase64(v.values)}});
  }
  return json{{"kind", "memory"},
              {"memory", ItemToJson(r.item)},
              {"history", std::move(history)},
              {"vectors", std::move(vectors)}};
}

Result<StoredVector> VectorFromJson(const json& j) {
  if (!j.is_object() || !j.contains("model") || !j["model"].is_string() || !j.contains("dim") ||
      !j["dim"].is_number_unsigned() || !j.contains("values_b64") || !j["values_b64"].is_string()) {
    return Status::InvalidArgument(
        "vector needs string 'model', integer 'dim', string 'values_b64'");
  }
  StoredVector v{.model = j["model"].get<std::string>()};
  ENGRAM_ASSIGN_OR_RETURN(v.values, DecodeVectorBase64(j["values_b64"].get<std::string>()));
  if (v.values.size() != j["dim"].get<size_t>()) {
    return Status::InvalidArgument("vector 'dim' does not match its values");
  }
  return v;
}

Result<MemoryRecord> RecordFromJson(const json& j, const EngineOptions& options) {
  static const std::set<std::string> kRecordFields = {"kind", "memory", "history", "vectors"};
  for (const auto& [key, value] : j.items()) {
    if (!kRecordFields.count(key)) {
      return Status::InvalidArgument("unknown field '" + key + "'" +
                                     DidYouMean(key, kRecordFields));
    }
  }
  if (!j.contains("memory")) return Status::InvalidArgument("field 'memory' is required");
  MemoryRecord r;
  ENGRAM_ASSIGN_OR_RETURN(r.item, ItemFromJson(j["memory"]));
  if (j.contains("history")) {
    if (!j["history"].is_array()) return Status::InvalidArgument("'history' must be an array");
    for (const json& h : j["history"]) {
      ENGRAM_ASSIGN_OR_RETURN(HistoryEntry entry, HistoryFromJson(h));
      if (entry.item_id != r.item.id) {
        return Status::InvalidArgument("history entry belongs to another item ('" + entry.item_id +
                                       "')");
      }
      r.history.push_back(std::move(entry));
    }
  }
  if (j.contains("vectors")) {
    if (!j["vectors"].is_array()) return Status::InvalidArgument("'vectors' must be an array");
    for (const json& v : j["vectors"]) {
      ENGRAM_ASSIGN_OR_RETURN(StoredVector vec, VectorFromJson(v));
      r.vectors.push_back(std::move(vec));
    }
  }
  ENGRAM_RETURN_IF_ERROR(ValidateItem(r.item, {.max_content_bytes = options.max_content_bytes,
                                               .max_metadata_bytes = options.max_metadata_bytes}));
  return r;
}

// Parses one non-blank line: a record, or (is_header) the export header.
Result<MemoryRecord> ParseLine(const std::string& line, const EngineOptions& options,
                               bool* is_header) {
  *is_header = false;
  size_t bad = 0;
  if (!IsValidUtf8(line, &bad)) {
    return Status::InvalidArgument("invalid UTF-8 at byte " + std::to_string(bad));
  }
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("not valid JSON");
  if (!j.is_object()) return Status::InvalidArgument("a line must be a JSON object");
  std::string kind =
      j.contains("kind") && j["kind"].is_string() ? j["kind"].get<std::string>() : "memory";
  if (kind == "engram-export") {
    *is_header = true;
    if (!j.contains("version") || !j["version"].is_number_integer() ||
        j["version"].get<int>() > kExportFormatVersion || j["version"].get<int>() < 1) {
      return Status::InvalidArgument("unsupported export format version (this Engram reads 1.." +
                                     std::to_string(kExportFormatVersion) + ")");
    }
    return MemoryRecord{};
  }
  if (kind != "memory") return Status::InvalidArgument("unknown line kind '" + kind + "'");
  return RecordFromJson(j, options);
}

struct PendingBatch {
  std::vector<MemoryRecord> records;
  int64_t first_line = 0;
  int64_t last_line = 0;
  bool has_error = false;
};

void FlushBatch(Engine& engine, const ImportOptions& options, PendingBatch* batch,
                ImportReport* report) {
  const int64_t count = static_cast<int64_t>(batch->records.size());
  if (batch->has_error) {
    report->rejected += count;
  } else if (count > 0) {
    auto stats = engine.Import(batch->records, options.on_conflict);
    if (stats.ok()) {
      report->imported += stats->imported;
      report->skipped += stats->skipped;
    } else {
      report->rejected += count;
      report->errors.push_back({batch->first_line, "lines " + std::to_string(batch->first_line) +
                                                       "-" + std::to_string(batch->last_line) +
                                                       " rejected: " + stats.status().ToString()});
    }
  }
  *batch = PendingBatch{};
}

}  // namespace

Result<ExportStats> ExportJsonl(Engine& engine, const std::vector<Scope>& scopes,
                                std::ostream& out) {
  ExportStats stats;
  out << json{{"kind", "engram-export"},
              {"version", kExportFormatVersion},
              {"exported_at", FormatTimestamp(engine.options().clock->NowMs())}}
             .dump()
      << '\n';
  for (const Scope& scope : scopes) {
    ENGRAM_RETURN_IF_ERROR(engine.Export(scope, [&](const MemoryRecord& r) {
      out << RecordToJson(r).dump() << '\n';
      ++stats.memories;
      return out ? Status::Ok() : Status::IOError("writing the export failed");
    }));
  }
  out.flush();
  if (!out) return Status::IOError("writing the export failed");
  return stats;
}

Result<ImportReport> ImportJsonl(Engine& engine, std::istream& in, const ImportOptions& options) {
  ImportReport report;
  PendingBatch batch;
  std::string line;
  int64_t line_no = 0;
  int64_t bytes = 0;
  const size_t batch_size = std::max<size_t>(1, options.batch_size);
  while (std::getline(in, line)) {
    ++line_no;
    bytes += static_cast<int64_t>(line.size()) + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    ++report.lines;
    bool is_header = false;
    auto record = ParseLine(line, engine.options(), &is_header);
    if (!record.ok()) {
      report.errors.push_back(
          {line_no, "line " + std::to_string(line_no) + ": " + record.status().message()});
      batch.has_error = true;
    }
    if (is_header) continue;
    if (batch.records.empty()) batch.first_line = line_no;
    batch.last_line = line_no;
    batch.records.push_back(record.ok() ? std::move(record).value() : MemoryRecord{});
    if (batch.records.size() >= batch_size) {
      FlushBatch(engine, options, &batch, &report);
      if (options.progress) options.progress(bytes);
    }
  }
  if (in.bad()) return Status::IOError("reading the import stream failed");
  FlushBatch(engine, options, &batch, &report);
  if (options.progress) options.progress(bytes);
  return report;
}

}  // namespace engram
