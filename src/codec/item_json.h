// The JSON form of memory items and history entries. One representation serves the history
// snapshots stored in the database, the JSON Lines export format and (later) the HTTP API, so
// a field added to MemoryItem is added here once. Field list: docs/storage-format.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engram/memory.h"
#include "engram/status.h"

namespace engram {

// The item's JSON text, written directly (codec/json_text.h), keys in alphabetical order.
void AppendItemJson(std::string* out, const MemoryItem& item);
std::string ItemJsonText(const MemoryItem& item);
// The same as a JSON value, parsed from ItemJsonText so the two never differ.
nlohmann::json ItemToJson(const MemoryItem& item);
// Strict: unknown fields, wrong types and bad enum names are InvalidArgument naming the field.
// Missing optional fields take MemoryItem's defaults; id, user_id and content are required.
Result<MemoryItem> ItemFromJson(const nlohmann::json& j);

nlohmann::json HistoryToJson(const HistoryEntry& entry);
Result<HistoryEntry> HistoryFromJson(const nlohmann::json& j);

Result<Source> SourceFromJson(const nlohmann::json& j);

// Compact JSON array text for a list of strings ("[]" when empty) and back.
std::string StringListToJsonText(const std::vector<std::string>& list);
Result<std::vector<std::string>> StringListFromJsonText(std::string_view text);

// Little-endian float32 vectors as standard base64, for export files.
std::string EncodeVectorBase64(const std::vector<float>& v);
Result<std::vector<float>> DecodeVectorBase64(std::string_view b64);

}  // namespace engram
