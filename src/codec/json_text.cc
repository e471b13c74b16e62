#include "codec/json_text.h"

#include <charconv>
#include <cmath>

#include "engram/clock.h"
#include "text/utf8.h"

namespace engram::json_text {
namespace {

// Escapes `s`, which is well-formed UTF-8.
void AppendEscaped(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t plain = 0;  // start of the run of bytes copied as they are
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 0xF]);
    }
  }
  out->append(s.data() + plain, s.size() - plain);
}

}  // namespace

void AppendString(std::string* out, std::string_view s) {
  out->push_back('"');
  size_t bad = 0;
  while (!IsValidUtf8(s, &bad)) {
    AppendEscaped(out, s.substr(0, bad));
    out->append("\xEF\xBF\xBD");  // U+FFFD
    s.remove_prefix(bad + 1);
  }
  AppendEscaped(out, s);
  out->push_back('"');
}

void AppendTimestamp(std::string* out, int64_t t) {
  out->push_back('"');
  engram::AppendTimestamp(out, t);
  out->push_back('"');
}

void AppendStringList(std::string* out, const std::vector<std::string>& list) {
  AppendArray(out, list, [](std::string* o, const std::string& s) { AppendString(o, s); });
}

void AppendInt(std::string* out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

void AppendDouble(std::string* out, double v) {
  if (!std::isfinite(v)) {
    out->append("null");
    return;
  }
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  const std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
  out->append(text);
  if (text.find_first_of(".e") == std::string_view::npos) out->append(".0");
}

std::string* Object::Key(std::string_view key) {
  if (!first_) out_->push_back(',');
  first_ = false;
  AppendString(out_, key);
  out_->push_back(':');
  return out_;
}

}  // namespace engram::json_text
