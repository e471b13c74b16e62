#include "text/language.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(LanguageTest, DetectsTheMainScript) {
  EXPECT_EQ(DetectLanguage("I live in Beijing"), Language::kLatin);
  EXPECT_EQ(DetectLanguage("我住在北京"), Language::kChinese);
  EXPECT_EQ(DetectLanguage("東京に住んでいます"), Language::kJapanese);
  EXPECT_EQ(DetectLanguage("저는 서울에 살아요"), Language::kKorean);
}

TEST(LanguageTest, HanCountsDoubleAgainstLatin) {
  EXPECT_EQ(DetectLanguage("我用iPhone"), Language::kLatin);      // 2 Han (4) < 6 Latin
  EXPECT_EQ(DetectLanguage("我在北京用iPad"), Language::kChinese);  // 4 Han (8) >= 4 Latin
}

TEST(LanguageTest, KanaAnywhereIsJapanese) {
  EXPECT_EQ(DetectLanguage("a long English sentence with one カ"), Language::kJapanese);
}

TEST(LanguageTest, NoLettersOrInvalidUtf8IsUnknown) {
  EXPECT_EQ(DetectLanguage(""), Language::kUnknown);
  EXPECT_EQ(DetectLanguage("123 !?"), Language::kUnknown);
  EXPECT_EQ(DetectLanguage("abc\xFF"), Language::kUnknown);
}

TEST(LanguageTest, Codes) {
  EXPECT_EQ(LanguageCode(Language::kChinese), "zh");
  EXPECT_EQ(LanguageCode(Language::kJapanese), "ja");
  EXPECT_EQ(LanguageCode(Language::kKorean), "ko");
  EXPECT_EQ(LanguageCode(Language::kLatin), "en");
  EXPECT_EQ(LanguageCode(Language::kUnknown), "");
}

}  // namespace
}  // namespace engram
