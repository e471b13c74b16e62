#include "text/language.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(LanguageTest, TellsScriptsApart) {
  EXPECT_EQ(DetectLanguage("我住在北京，喜欢喝茶"), Language::kChinese);
  EXPECT_EQ(DetectLanguage("I live in Beijing and like tea"), Language::kLatin);
  EXPECT_EQ(DetectLanguage("東京に住んでいます"), Language::kJapanese);  // kana wins
  EXPECT_EQ(DetectLanguage("저는 서울에 살아요"), Language::kKorean);
}

TEST(LanguageTest, HanCountsDoubleAgainstLatin) {
  EXPECT_EQ(DetectLanguage("我在北京工作 at Google"), Language::kChinese);  // 6 Han x2 >= 8 Latin
  EXPECT_EQ(DetectLanguage("我用 Python"), Language::kLatin);               // 2 Han x2 < 6 Latin
}

TEST(LanguageTest, UnknownWithoutLettersOrForInvalidUtf8) {
  EXPECT_EQ(DetectLanguage(""), Language::kUnknown);
  EXPECT_EQ(DetectLanguage("123 456 !?"), Language::kUnknown);
  EXPECT_EQ(DetectLanguage("abc\xFF"), Language::kUnknown);
}

TEST(LanguageTest, Codes) {
  EXPECT_EQ(LanguageCode(Language::kChinese), "zh");
  EXPECT_EQ(LanguageCode(Language::kLatin), "en");
  EXPECT_EQ(LanguageCode(Language::kUnknown), "");
}

// An address is no language: a Chinese sentence with a long email stays Chinese; an address
// alone is Latin text.
TEST(LanguageTest, AddressesDoNotCountAsLatinWords) {
  EXPECT_EQ(DetectLanguage("我邮箱是xiaoyu_chen@163.com"), Language::kChinese);
  EXPECT_EQ(DetectLanguage("网站是 https://example.com/some/long/path 记一下"), Language::kChinese);
  EXPECT_EQ(DetectLanguage("jenna.holt82@gmail.com"), Language::kLatin);
  EXPECT_EQ(DetectLanguage("my email is jenna.holt82@gmail.com"), Language::kLatin);
}

}  // namespace
}  // namespace engram
