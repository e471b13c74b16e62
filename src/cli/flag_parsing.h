// Parsing of flag values shared by the CLI commands.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engram/memory.h"
#include "engram/status.h"

namespace engram::cli {

// "key=value": the value is read as a JSON scalar when it is one (3, 2.5, true, null,
// "quoted"), and as a plain string otherwise.
Result<std::pair<std::string, nlohmann::json>> ParseKeyValue(const std::string& arg);
Result<MetadataCondition> ToCondition(const std::pair<std::string, nlohmann::json>& kv);
// Every "key=value" of `args` as a metadata equality condition.
Result<std::vector<MetadataCondition>> ParseConditions(const std::vector<std::string>& args);

template <typename E>
Result<std::vector<E>> ParseEnums(const std::vector<std::string>& names,
                                  Result<E> (*parse)(std::string_view)) {
  std::vector<E> out;
  for (const std::string& n : names) {
    auto e = parse(n);
    if (!e.ok()) return e.status();
    out.push_back(*e);
  }
  return out;
}

// "" → nullopt; otherwise an ISO-8601 time.
Result<std::optional<TimestampMs>> OptTime(const std::string& text);

// --status values: "all" → every status; nothing → `fallback`.
Result<std::vector<ItemStatus>> ParseStatuses(const std::vector<std::string>& names,
                                              std::vector<ItemStatus> fallback);

}  // namespace engram::cli
