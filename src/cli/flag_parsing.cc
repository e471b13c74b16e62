#include "cli/flag_parsing.h"

#include "engram/clock.h"

namespace engram::cli {

using json = nlohmann::json;

// "key=value": the value is read as a JSON scalar when it is one (3, 2.5, true, null,
// "quoted"), and as a plain string otherwise.
Result<std::pair<std::string, json>> ParseKeyValue(const std::string& arg) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::InvalidArgument("expected key=value, got '" + arg + "'");
  }
  std::string value = arg.substr(eq + 1);
  json j = json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || j.is_structured()) j = value;
  return std::make_pair(arg.substr(0, eq), j);
}

Result<MetadataCondition> ToCondition(const std::pair<std::string, json>& kv) {
  const json& v = kv.second;
  MetadataCondition c{kv.first, nullptr};
  if (v.is_boolean())
    c.value = v.get<bool>();
  else if (v.is_number_integer())
    c.value = v.get<int64_t>();
  else if (v.is_number())
    c.value = v.get<double>();
  else if (v.is_string())
    c.value = v.get<std::string>();
  return c;
}

Result<std::optional<TimestampMs>> OptTime(const std::string& text) {
  if (text.empty()) return std::optional<TimestampMs>();
  auto t = ParseTimestamp(text);
  if (!t.ok()) return t.status();
  return std::optional<TimestampMs>(*t);
}

Result<std::vector<MetadataCondition>> ParseConditions(const std::vector<std::string>& args) {
  std::vector<MetadataCondition> out;
  for (const std::string& kv : args) {
    auto parsed = ParseKeyValue(kv);
    if (!parsed.ok()) return parsed.status();
    auto c = ToCondition(*parsed);
    if (!c.ok()) return c.status();
    out.push_back(*c);
  }
  return out;
}

Result<std::vector<ItemStatus>> ParseStatuses(const std::vector<std::string>& names,
                                              std::vector<ItemStatus> fallback) {
  if (names.empty()) return fallback;
  if (names.size() == 1 && names[0] == "all") return std::vector<ItemStatus>{};
  return ParseEnums(names, &ParseItemStatus);
}

}  // namespace engram::cli
