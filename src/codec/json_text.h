// Writing JSON text straight into a string, for output produced at high rate: a search response
// is ten items of some twenty-five fields, and building it as an nlohmann::json tree (a std::map
// node and a std::string per field) then dumping it cost a fifth of the server's CPU per search.
// Everything written here parses back with nlohmann; json_text_test and item_json_test check
// that the two agree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram::json_text {

// A string literal with JSON escapes; ill-formed UTF-8 is written as U+FFFD, one per bad byte,
// so the output is always valid JSON (as nlohmann's error_handler_t::replace does).
void AppendString(std::string* out, std::string_view s);
// FormatTimestamp(t) as a JSON string, written in place (its text needs no escaping).
void AppendTimestamp(std::string* out, int64_t t);
void AppendStringList(std::string* out, const std::vector<std::string>& list);
void AppendInt(std::string* out, int64_t v);
// The shortest text that reads back as `v`, with ".0" on integral values so the number stays a
// float for typed readers; NaN and infinities are written as null, as nlohmann does.
void AppendDouble(std::string* out, double v);

// An array of `items`, each written by `append(out, item)`.
template <typename T, typename Append>
void AppendArray(std::string* out, const std::vector<T>& items, Append append) {
  out->push_back('[');
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out->push_back(',');
    append(out, items[i]);
  }
  out->push_back(']');
}

// An object written key by key: Key() adds the separator and the quoted key, the caller then
// appends the value. Close() adds the closing brace; a writer is used for one object.
class Object {
 public:
  explicit Object(std::string* out) : out_(out) { out_->push_back('{'); }
  std::string* Key(std::string_view key);
  void Close() { out_->push_back('}'); }

 private:
  std::string* out_;
  bool first_ = true;
};

}  // namespace engram::json_text
