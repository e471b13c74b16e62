#include "text/utf8.h"

#include <gtest/gtest.h>

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
      {"ab\xFF", 2},                // invalid lead byte
      {"a\xC0\xAF", 1},             // overlong '/'
      {"\xE0\x80\xAF", 0},          // overlong 3-byte
      {"ok\xED\xA0\x80", 2},        // UTF-16 surrogate
      {"\xF4\x90\x80\x80", 0},      // above U+10FFFF
      {"\xE6\x88", 0},              // truncated 3-byte
      {"x\x80", 1},                 // stray continuation
      {"\xE6\x88\x41", 0},          // bad continuation
  };
  for (const Case& c : cases) {
    size_t offset = 999;
    EXPECT_FALSE(IsValidUtf8(c.text, &offset)) << c.offset;
    EXPECT_EQ(offset, c.offset);
  }
}

}  // namespace
}  // namespace engram
