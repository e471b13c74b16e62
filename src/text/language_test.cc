#include "text/language.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(LanguageTest, TellsChineseFromEnglish) {
  EXPECT_EQ(DetectLanguage("我住在上海"), Language::kChinese);
  EXPECT_EQ(DetectLanguage("I live in Shanghai"), Language::kLatin);
  EXPECT_EQ(DetectLanguage("我在 Google 工作"), Language::kChinese);  // Han counts double
  EXPECT_EQ(DetectLanguage("わたしは学生です"), Language::kJapanese);
  EXPECT_EQ(DetectLanguage("저는 학생입니다"), Language::kKorean);
}

TEST(LanguageTest, UnknownWithoutLetters) {
  EXPECT_EQ(DetectLanguage(""), Language::kUnknown);
  EXPECT_EQ(DetectLanguage("123 !?"), Language::kUnknown);
  EXPECT_EQ(DetectLanguage("\xff\xfe"), Language::kUnknown);
}

TEST(LanguageTest, Codes) {
  EXPECT_EQ(LanguageCode(Language::kChinese), "zh");
  EXPECT_EQ(LanguageCode(Language::kLatin), "en");
  EXPECT_EQ(LanguageCode(Language::kUnknown), "");
}

}  // namespace
}  // namespace engram
