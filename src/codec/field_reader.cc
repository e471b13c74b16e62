#include "codec/field_reader.h"

#include <limits>

#include "codec/field_names.h"

namespace engram {

using json = nlohmann::json;

FieldReader::FieldReader(const json& obj, std::string_view what) : obj_(obj), what_(what) {
  if (!obj.is_object()) Fail("", "must be a JSON object");
}

void FieldReader::CheckKnown(const std::set<std::string>& known) {
  if (!obj_.is_object()) return;
  for (const auto& [key, value] : obj_.items()) {
    if (!known.count(key)) return Fail(key, "is not a known field" + DidYouMean(key, known));
  }
}

bool FieldReader::Has(const std::string& key) const {
  return obj_.is_object() && obj_.contains(key) && !obj_.at(key).is_null();
}

const json* FieldReader::Child(const std::string& key) const {
  return Has(key) ? &obj_.at(key) : nullptr;
}

void FieldReader::String(const std::string& key, std::string* out, bool required) {
  if (!Has(key)) {
    if (required) Fail(key, "is required");
    return;
  }
  const json& v = obj_.at(key);
  if (!v.is_string()) return Fail(key, "must be a string");
  *out = v.get<std::string>();
}

void FieldReader::Number(const std::string& key, double* out) {
  std::optional<double> v;
  OptNumber(key, &v);
  if (v) *out = *v;
}

void FieldReader::OptNumber(const std::string& key, std::optional<double>* out) {
  if (!Has(key)) return;
  const json& v = obj_.at(key);
  if (!v.is_number()) return Fail(key, "must be a number");
  *out = v.get<double>();
}

void FieldReader::Integer(const std::string& key, int64_t* out) {
  if (!Has(key)) return;
  const json& v = obj_.at(key);
  if (v.is_number_unsigned() &&
      v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Fail(key, "is out of range");
  }
  if (!v.is_number_integer()) return Fail(key, "must be an integer");
  *out = v.get<int64_t>();
}

void FieldReader::Int(const std::string& key, int* out) {
  int64_t v = *out;
  Integer(key, &v);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    return Fail(key, "is out of range");
  }
  *out = static_cast<int>(v);
}

void FieldReader::Bool(const std::string& key, bool* out) {
  if (!Has(key)) return;
  const json& v = obj_.at(key);
  if (!v.is_boolean()) return Fail(key, "must be true or false");
  *out = v.get<bool>();
}

void FieldReader::Time(const std::string& key, TimestampMs* out) {
  std::optional<TimestampMs> t;
  OptTime(key, &t);
  if (t) *out = *t;
}

void FieldReader::OptTime(const std::string& key, std::optional<TimestampMs>* out) {
  if (!Has(key)) return;
  const json& v = obj_.at(key);
  if (!v.is_string()) return Fail(key, "must be an ISO-8601 timestamp string");
  auto t = ParseTimestamp(v.get<std::string>());
  if (!t.ok()) return Fail(key, t.status().message());
  *out = *t;
}

void FieldReader::StringList(const std::string& key, std::vector<std::string>* out) {
  if (!Has(key)) return;
  const json& v = obj_.at(key);
  if (!v.is_array()) return Fail(key, "must be an array of strings");
  out->clear();
  for (const json& e : v) {
    if (!e.is_string()) return Fail(key, "must be an array of strings");
    out->push_back(e.get<std::string>());
  }
}

void FieldReader::Fail(std::string_view key, std::string_view why) {
  if (!status_.ok()) return;
  std::string m(what_);
  if (!key.empty()) m += std::string(" field '") + std::string(key) + "'";
  m += " ";
  m += why;
  status_ = Status::InvalidArgument(std::move(m));
}

}  // namespace engram
