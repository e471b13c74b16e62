#include "text/language.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(LanguageTest, TellsScriptsApart) {
  EXPECT_EQ(DetectLanguage("我住在北京"), Language::kChinese);
  EXPECT_EQ(DetectLanguage("I live in Beijing"), Language::kLatin);
  EXPECT_EQ(DetectLanguage("東京に住んでいます"), Language::kJapanese);
  EXPECT_EQ(DetectLanguage("저는 서울에 살아요"), Language::kKorean);
}

TEST(LanguageTest, HanCountsDoubleAgainstLatin) {
  EXPECT_EQ(DetectLanguage("我在Google工作"), Language::kChinese);
  EXPECT_EQ(DetectLanguage("I work at 字节 now"), Language::kLatin);
}

TEST(LanguageTest, NoLettersOrBadUtf8IsUnknown) {
  EXPECT_EQ(DetectLanguage(""), Language::kUnknown);
  EXPECT_EQ(DetectLanguage("123 !?"), Language::kUnknown);
  EXPECT_EQ(DetectLanguage(std::string("\xC3\x28", 2)), Language::kUnknown);
  EXPECT_EQ(LanguageCode(Language::kChinese), "zh");
  EXPECT_EQ(LanguageCode(Language::kLatin), "en");
  EXPECT_EQ(LanguageCode(Language::kUnknown), "");
}

}  // namespace
}  // namespace engram
