#include "text/utf8.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace engram {
namespace {

TEST(Utf8Test, AcceptsWellFormedText) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("我住在北京"));
  EXPECT_TRUE(IsValidUtf8("emoji \xF0\x9F\x98\x80 and é"));
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
}

TEST(Utf8Test, RejectsIllFormedSequencesAndReportsTheOffset) {
  struct Case {
    std::string text;
    size_t offset;
  };
  const Case cases[] = {
      {"ab\xFF", 2},            // invalid lead byte
      {"a\xC0\xAF", 1},         // overlong '/'
      {"\xE0\x80\xAF", 0},      // overlong 3-byte
      {"ok\xED\xA0\x80", 2},    // UTF-16 surrogate
      {"\xF4\x90\x80\x80", 0},  // above U+10FFFF
      {"\xE6\x88", 0},          // truncated 3-byte
      {"x\x80", 1},             // stray continuation
      {"\xE6\x88\x41", 0},      // bad continuation
  };
  for (const Case& c : cases) {
    size_t offset = 999;
    EXPECT_FALSE(IsValidUtf8(c.text, &offset)) << c.offset;
    EXPECT_EQ(offset, c.offset);
  }
}

// Decodes all of `s` with NextCodepoint, recording where each code point started.
std::vector<std::pair<size_t, char32_t>> Decode(std::string_view s) {
  std::vector<std::pair<size_t, char32_t>> out;
  for (size_t i = 0; i < s.size();) {
    const size_t start = i;
    out.emplace_back(start, NextCodepoint(s, &i));
  }
  return out;
}

using Decoded = std::vector<std::pair<size_t, char32_t>>;

TEST(Utf8Test, DecodesAsciiCjkAndFourByteEmoji) {
  EXPECT_EQ(Decode("aZ"), (Decoded{{0, U'a'}, {1, U'Z'}}));
  EXPECT_EQ(Decode("我住"), (Decoded{{0, U'我'}, {3, U'住'}}));
  EXPECT_EQ(Decode("\xF0\x9F\x98\x80!"), (Decoded{{0, U'\U0001F600'}, {4, U'!'}}));
  EXPECT_EQ(Decode("é"), (Decoded{{0, U'é'}}));
  EXPECT_EQ(CodepointAt("a我", 1), U'我');
  EXPECT_EQ(CodepointLength("a我\xF0\x9F\x98\x80", 0), 1u);
  EXPECT_EQ(CodepointLength("a我\xF0\x9F\x98\x80", 1), 3u);
  EXPECT_EQ(CodepointLength("a我\xF0\x9F\x98\x80", 4), 4u);
  EXPECT_EQ(CountCodepoints("a我\xF0\x9F\x98\x80"), 3u);
  EXPECT_EQ(CountCodepoints(""), 0u);
}

TEST(Utf8Test, IllFormedBytesDecodeAsReplacementAndAlwaysAdvance) {
  // A truncated sequence at the end is one U+FFFD and never reads past the end.
  EXPECT_EQ(Decode("a\xE6\x88"), (Decoded{{0, U'a'}, {1, kReplacementCharacter}}));
  EXPECT_EQ(Decode("\xF0\x9F\x98"), (Decoded{{0, kReplacementCharacter}}));
  // A truncated sequence followed by ASCII: the ASCII byte is decoded, not swallowed.
  EXPECT_EQ(Decode("\xE6\x88Z"), (Decoded{{0, kReplacementCharacter}, {2, U'Z'}}));
  // Stray continuation bytes and invalid lead bytes are one U+FFFD each.
  EXPECT_EQ(Decode("\x80\xBF"), (Decoded{{0, kReplacementCharacter}, {1, kReplacementCharacter}}));
  EXPECT_EQ(Decode("\xFF"
                   "a"),
            (Decoded{{0, kReplacementCharacter}, {1, U'a'}}));
  // Overlongs and surrogates are rejected, not decoded to the code point they spell.
  EXPECT_EQ(CodepointAt("\xC0\xAF", 0), kReplacementCharacter);
  EXPECT_EQ(CodepointAt("\xED\xA0\x80", 0), kReplacementCharacter);
  EXPECT_EQ(CountCodepoints("\x80\x80\x80"), 3u);
  // A real U+FFFD in the text is still valid.
  EXPECT_TRUE(IsValidUtf8("\xEF\xBF\xBD"));
}

TEST(Utf8Test, AppendCodepointEncodesAndReplacesNonCharacters) {
  std::string out;
  AppendCodepoint(U'a', &out);
  AppendCodepoint(U'é', &out);
  AppendCodepoint(U'我', &out);
  AppendCodepoint(U'\U0001F600', &out);
  EXPECT_EQ(out, "aé我\xF0\x9F\x98\x80");
  std::string bad;
  AppendCodepoint(0xD800, &bad);    // a surrogate
  AppendCodepoint(0x110000, &bad);  // above U+10FFFF
  EXPECT_EQ(bad, "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Utf8Test, CodepointStartNeverSplitsACharacter) {
  const std::string s = "a我\xF0\x9F\x98\x80";  // bytes: a | 1..3 | 4..7
  EXPECT_EQ(CodepointStart(s, 0), 0u);
  EXPECT_EQ(CodepointStart(s, 1), 1u);
  EXPECT_EQ(CodepointStart(s, 2), 1u);
  EXPECT_EQ(CodepointStart(s, 3), 1u);
  EXPECT_EQ(CodepointStart(s, 6), 4u);
  EXPECT_EQ(CodepointStart(s, 7), 4u);
  EXPECT_EQ(CodepointStart(s, 8), 8u);
  EXPECT_EQ(CodepointStart(s, 99), 8u);
  // Backs over at most three continuation bytes, so a run of them cannot walk far back.
  EXPECT_EQ(CodepointStart("a\x80\x80\x80\x80\x80", 5), 2u);
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// Whole characters are trimmed, never a byte of another one: 打 (E6 89 93) ends in a byte of
// the en dash (E2 80 93), € (E2 82 AC) begins with one.
TEST(Utf8Test, TrimCodepointsComparesWholeCharacters) {
  EXPECT_EQ(TrimCodepoints("— 三月打 –", U" —–"), "三月打");
  EXPECT_EQ(TrimCodepoints("€5, —", U" ,—–"), "€5");
  EXPECT_EQ(TrimCodepoints(" ,, ", U" ,"), "");
  EXPECT_EQ(TrimCodepoints("", U" "), "");
  EXPECT_EQ(TrimCodepoints(".a.", U".", U""), "a.");
}

}  // namespace
}  // namespace engram
