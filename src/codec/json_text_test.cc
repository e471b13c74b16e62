#include "codec/json_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "engram/clock.h"
#include "text/utf8.h"

namespace engram::json_text {
namespace {

using json = nlohmann::json;

std::string StringText(std::string_view s) {
  std::string out;
  AppendString(&out, s);
  return out;
}

std::string DoubleText(double v) {
  std::string out;
  AppendDouble(&out, v);
  return out;
}

TEST(JsonTextTest, StringsAreWrittenAsNlohmannWritesThem) {
  for (std::string s : {"", "plain", "quote \" and back\\slash", "tab\tnew\nline\rcr",
                        "bell\x07 bs\b ff\f unit\x1f", "绿茶 and emoji 😀", "</script>"}) {
    EXPECT_EQ(StringText(s), json(s).dump()) << s;
    EXPECT_EQ(json::parse(StringText(s)).get<std::string>(), s);
  }
  std::string nul("a\0b", 3);
  EXPECT_EQ(StringText(nul), "\"a\\u0000b\"");
}

TEST(JsonTextTest, TimestampsAreQuotedFormattedTimestamps) {
  std::string out = "[";
  AppendTimestamp(&out, 1'683'554'160'123);
  out += "]";
  EXPECT_EQ(out, "[\"2023-05-08T13:56:00.123Z\"]");
  EXPECT_EQ(nlohmann::json::parse(out)[0], FormatTimestamp(1'683'554'160'123));
}

TEST(JsonTextTest, IllFormedUtf8BecomesReplacementCharacters) {
  // A lone continuation byte, a truncated 3-byte sequence, an overlong '/', a surrogate.
  const std::string bad =
      "a\x80"
      "b\xE7\xBB"
      "c\xC0\xAF"
      "d\xED\xA0\x80";
  const json back = json::parse(StringText(bad));  // throws if the text is not valid JSON
  const std::string s = back.get<std::string>();
  EXPECT_EQ(s.substr(0, 4), "a\xEF\xBF\xBD");
  EXPECT_NE(s.find("b\xEF\xBF\xBD"), std::string::npos);
  EXPECT_NE(s.find("d\xEF\xBF\xBD"), std::string::npos);
  EXPECT_TRUE(IsValidUtf8(s));
  EXPECT_EQ(StringText("ok \xE7\xBB\xBF"), "\"ok \xE7\xBB\xBF\"");  // well-formed: untouched
}

TEST(JsonTextTest, DoublesReadBackExactlyAndStayFloats) {
  for (double v : {0.0, 1.0, -2.0, 0.5, 0.1, 0.7234567891234567, 1e-7, 123456789.125, 1e300, 5e-324,
                   -0.0, 1e21}) {
    const std::string text = DoubleText(v);
    const json back = json::parse(text);
    EXPECT_TRUE(back.is_number_float()) << text;
    EXPECT_EQ(back.get<double>(), v) << text;
  }
  EXPECT_EQ(DoubleText(1.0), "1.0");
  EXPECT_EQ(DoubleText(0.25), "0.25");
  EXPECT_EQ(DoubleText(std::nan("")), "null");
  EXPECT_EQ(DoubleText(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(DoubleText(-std::numeric_limits<double>::infinity()), "null");
}

TEST(JsonTextTest, IntegersAndObjects) {
  std::string out;
  Object o(&out);
  AppendInt(o.Key("min"), std::numeric_limits<int64_t>::min());
  AppendInt(o.Key("max"), std::numeric_limits<int64_t>::max());
  AppendStringList(o.Key("list"), {"a", "b\"c"});
  AppendStringList(o.Key("empty"), {});
  AppendString(o.Key("k\"ey"), "v");
  o.Close();
  EXPECT_EQ(out,
            "{\"min\":-9223372036854775808,\"max\":9223372036854775807,"
            "\"list\":[\"a\",\"b\\\"c\"],\"empty\":[],\"k\\\"ey\":\"v\"}");
  const json back = json::parse(out);
  EXPECT_EQ(back["min"].get<int64_t>(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(back["k\"ey"], "v");
}

}  // namespace
}  // namespace engram::json_text
