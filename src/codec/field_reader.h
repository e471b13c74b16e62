// FieldReader: strict reading of one JSON object's fields into native values. Every reader of
// outside JSON (import files, HTTP bodies, MCP tool arguments) goes through it, so the error
// messages have one shape: "<what> field '<key>' <why>". It records the first error only; the
// caller checks status() once after reading every field. Never throws.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engram/clock.h"
#include "engram/status.h"

namespace engram {

class FieldReader {
 public:
  // `obj` and `what` must outlive the reader (it keeps a view of `what` for its messages); a
  // non-object is reported as "<what> must be a JSON object".
  FieldReader(const nlohmann::json& obj, std::string_view what);

  // Fails on the first key of the object not in `known`, naming the known field it most
  // likely meant (codec/field_names.h).
  void CheckKnown(const std::set<std::string>& known);
  // Present and not null.
  bool Has(const std::string& key) const;
  const nlohmann::json* Child(const std::string& key) const;

  void String(const std::string& key, std::string* out, bool required = false);
  void Number(const std::string& key, double* out);
  void OptNumber(const std::string& key, std::optional<double>* out);
  void Integer(const std::string& key, int64_t* out);
  void Int(const std::string& key, int* out);  // an integer within int's range
  void Bool(const std::string& key, bool* out);
  // An ISO-8601 timestamp string ("2026-11-30T08:00:00Z").
  void Time(const std::string& key, TimestampMs* out);
  void OptTime(const std::string& key, std::optional<TimestampMs>* out);
  void StringList(const std::string& key, std::vector<std::string>* out);

  // Absent or null leaves *out alone; any other value must be a name `parse` accepts ("" too
  // is refused: it must not decode as the enum's first value).
  template <typename E>
  void Enum(const std::string& key, E* out, Result<E> (*parse)(std::string_view)) {
    if (!Has(key)) return;
    std::string s;
    String(key, &s);
    if (!status_.ok()) return;
    auto r = parse(s);
    if (!r.ok()) return Fail(key, r.status().message());
    *out = *r;
  }
  template <typename E>
  void EnumList(const std::string& key, std::vector<E>* out, Result<E> (*parse)(std::string_view)) {
    std::vector<std::string> names;
    StringList(key, &names);
    if (!Has(key)) return;
    out->clear();
    for (const std::string& n : names) {
      auto r = parse(n);
      if (!r.ok()) return Fail(key, r.status().message());
      out->push_back(*r);
    }
  }

  void Fail(std::string_view key, std::string_view why);
  void Absorb(const Status& st) {
    if (status_.ok() && !st.ok()) status_ = st;
  }
  const Status& status() const { return status_; }

 private:
  const nlohmann::json& obj_;
  std::string_view what_;
  Status status_;
};

}  // namespace engram
