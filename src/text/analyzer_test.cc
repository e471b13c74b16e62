#include "text/analyzer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "text/normalizer.h"
#include "text/token_counter.h"

namespace engram {
namespace {

using Words = std::vector<std::string>;

bool Has(const Words& words, const std::string& w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

TEST(AnalyzerTest, NormalizationFoldsWidthCaseAndCompatibilityForms) {
  EXPECT_EQ(NormalizeForMatching("ＡＢＣ１２３"), "abc123");
  EXPECT_EQ(NormalizeForMatching("Hello WORLD"), "hello world");
  EXPECT_EQ(NormalizeForMatching("ﬁne"), "fine");        // ligature
  EXPECT_EQ(NormalizeForMatching("①"), "1");             // circled digit
  EXPECT_EQ(NormalizeForMatching("㎏"), "kg");           // squared unit
  EXPECT_EQ(NormalizeForMatching("Straße"), "strasse");  // full case folding
  EXPECT_EQ(NormalizeForMatching("ΣΊΣΥΦΟΣ"), NormalizeForMatching("σίσυφος"));
  EXPECT_EQ(NormalizeForMatching("ｶﾀｶﾅ"), "カタカナ");  // half-width katakana
  EXPECT_EQ(NormalizeForMatching("绿茶"), "绿茶");      // CJK unchanged
  EXPECT_EQ(NormalizeForMatching(""), "");

  EXPECT_EQ(AnalyzeText("ＡＢＣ１２３").words, Words{"abc123"});
  EXPECT_EQ(AnalyzeText("ﬁne ① ㎏").words, (Words{"fine", "1", "kg"}));
  EXPECT_EQ(AnalyzeText("BEIJING").words, AnalyzeText("beijing").words);
}

TEST(AnalyzerTest, EnglishWordsAreStemmedWithSnowball) {
  Analysis a = AnalyzeText("running runs cities");
  EXPECT_EQ(a.words, (Words{"run", "run", "citi"}));
  // The unstemmed forms are kept for character n-grams.
  EXPECT_EQ(a.raw_latin_words, (Words{"running", "runs", "cities"}));
  EXPECT_EQ(AnalyzeText("The user is allergic to peanuts").words,
            (Words{"user", "allerg", "peanut"}));
  EXPECT_EQ(AnalyzeText("Running").words, AnalyzeText("run").words);
}

TEST(AnalyzerTest, StopWordsAreDroppedInBothLanguages) {
  EXPECT_TRUE(AnalyzeText("the and of I am you it is").words.empty());
  EXPECT_TRUE(AnalyzeText("the and of I am you it is").raw_latin_words.empty());
  EXPECT_EQ(AnalyzeText("I love the city").words, (Words{"love", "citi"}));
  EXPECT_TRUE(IsStopword("the"));
  EXPECT_TRUE(IsStopword("的"));
  EXPECT_TRUE(IsStopword("我们"));
  EXPECT_FALSE(IsStopword("tea"));
  EXPECT_FALSE(IsStopword("绿茶"));
  Analysis zh = AnalyzeText("我喜欢喝绿茶");
  EXPECT_FALSE(Has(zh.words, "我"));
  EXPECT_FALSE(Has(AnalyzeText("我们的绿茶").words, "的"));
  EXPECT_FALSE(Has(AnalyzeText("我们的绿茶").words, "我们"));
  // Bigrams are a segmentation-independent channel: they keep stop characters.
  EXPECT_TRUE(Has(zh.cjk_bigrams, "我喜"));
}

TEST(AnalyzerTest, CurlyApostrophesMatchStraightOnes) {
  EXPECT_EQ(AnalyzeText("Tom’s car").words, AnalyzeText("Tom's car").words);
  EXPECT_EQ(AnalyzeText("Tom’s car").words, (Words{"tom", "car"}));
  EXPECT_EQ(AnalyzeText("Tom’s car").raw_latin_words, (Words{"tom's", "car"}));
  // "don’t" is the stop word "don't" once the apostrophe is straightened.
  EXPECT_TRUE(AnalyzeText("don’t").words.empty());
  EXPECT_EQ(AnalyzeText("I don’t drink coffee").words, AnalyzeText("I don't drink coffee").words);
}

TEST(AnalyzerTest, ChineseIsSegmentedByIcu) {
  Analysis a = AnalyzeText("我喜欢喝绿茶");
  EXPECT_TRUE(Has(a.words, "喜欢"));
  EXPECT_TRUE(Has(a.words, "绿茶"));
  // Words come in text order.
  auto like = std::find(a.words.begin(), a.words.end(), "喜欢");
  auto tea = std::find(a.words.begin(), a.words.end(), "绿茶");
  EXPECT_LT(like, tea);
  EXPECT_TRUE(a.raw_latin_words.empty());
  Analysis b = AnalyzeText("我住在北京");
  EXPECT_TRUE(Has(b.words, "北京"));
  // Japanese goes through the same dictionary segmentation.
  EXPECT_TRUE(Has(AnalyzeText("東京に住んでいます").words, "東京"));
}

TEST(AnalyzerTest, CjkBigramsCoverEveryAdjacentPair) {
  EXPECT_EQ(AnalyzeText("绿茶很好喝").cjk_bigrams, (Words{"绿茶", "茶很", "很好", "好喝"}));
  EXPECT_EQ(AnalyzeText("茶").cjk_bigrams, Words{"茶"});
  // Runs are broken by non-CJK text; each run gives its own pairs.
  EXPECT_EQ(AnalyzeText("绿茶 and 咖啡, 水").cjk_bigrams, (Words{"绿茶", "咖啡", "水"}));
  EXPECT_TRUE(AnalyzeText("no cjk here").cjk_bigrams.empty());
  // Characters outside the BMP pair correctly (Extension B).
  EXPECT_EQ(AnalyzeText("𠀀𠀁").cjk_bigrams, Words{"𠀀𠀁"});
}

TEST(AnalyzerTest, CjkCharactersOfRunsLongerThanOne) {
  EXPECT_EQ(AnalyzeText("比赛冠军").cjk_characters, (Words{"比", "赛", "冠", "军"}));
  // A one-character run is its own bigram already, so it gives no character term.
  EXPECT_EQ(AnalyzeText("绿茶 and 咖啡, 水").cjk_characters, (Words{"绿", "茶", "咖", "啡"}));
  EXPECT_TRUE(AnalyzeText("茶").cjk_characters.empty());
  EXPECT_TRUE(AnalyzeText("no cjk here").cjk_characters.empty());
  EXPECT_EQ(AnalyzeText("𠀀𠀁").cjk_characters, (Words{"𠀀", "𠀁"}));
}

TEST(AnalyzerTest, MixedTextKeepsBothScripts) {
  Analysis a = AnalyzeText("I love 北京 food");
  EXPECT_EQ(a.words, (Words{"love", "北京", "food"}));
  EXPECT_EQ(a.cjk_bigrams, Words{"北京"});
  EXPECT_EQ(a.raw_latin_words, (Words{"love", "food"}));
}

TEST(AnalyzerTest, NumbersAreKeptUnstemmed) {
  Analysis a = AnalyzeText("born in 1990, 3.14 and 42");
  EXPECT_EQ(a.words, (Words{"born", "1990", "3.14", "42"}));
  EXPECT_EQ(a.raw_latin_words, Words{"born"});  // numbers take no n-grams
}

TEST(AnalyzerTest, EmptyAndPunctuationOnlyTextGiveNothing) {
  for (const char* text : {"", "   ", "?!,.;:", "——", "，。！"}) {
    Analysis a = AnalyzeText(text);
    EXPECT_TRUE(a.words.empty()) << text;
    EXPECT_TRUE(a.cjk_bigrams.empty()) << text;
    EXPECT_TRUE(a.raw_latin_words.empty()) << text;
  }
}

TEST(AnalyzerTest, CjkCodepointRanges) {
  EXPECT_TRUE(IsCjkCodepoint(U'绿'));
  EXPECT_TRUE(IsCjkCodepoint(U'か'));
  EXPECT_TRUE(IsCjkCodepoint(U'カ'));
  EXPECT_TRUE(IsCjkCodepoint(U'한'));
  EXPECT_TRUE(IsCjkCodepoint(U'\U00020000'));
  EXPECT_FALSE(IsCjkCodepoint(U'a'));
  EXPECT_FALSE(IsCjkCodepoint(U'。'));
  EXPECT_FALSE(IsCjkCodepoint(U'é'));
}

TEST(TokenCountTest, SmallTexts) {
  EXPECT_EQ(CountTokens(""), 0);
  EXPECT_EQ(CountTokens("   \n\t"), 0);
  EXPECT_GE(CountTokens("hello world"), 2);
  EXPECT_LE(CountTokens("hello world"), 4);
  EXPECT_EQ(CountTokens("a"), 1);
  EXPECT_EQ(CountTokens("绿茶很好喝"), 5);  // one per CJK character
  EXPECT_EQ(CountTokens("a, b."), 4);       // punctuation counts
}

TEST(TokenCountTest, NeverBelowTheNumberOfCjkCharacters) {
  std::mt19937 rng(7);
  const std::vector<std::string> pieces = {"绿",    "茶", "北京", "喜欢", " ",    "tea", "，", "。",
                                           "hello", "42", "!",    "かな", "한국", "😀",   "é"};
  for (int round = 0; round < 300; ++round) {
    std::string text;
    int cjk = 0;
    int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const std::string& p = pieces[rng() % pieces.size()];
      text += p;
      for (size_t j = 0; j < p.size();) {
        unsigned char b = static_cast<unsigned char>(p[j]);
        int len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
        // Every 3-byte piece in the list is CJK except the two CJK punctuation marks.
        if (len == 3 && p != "，" && p != "。") ++cjk;
        j += static_cast<size_t>(len);
      }
    }
    EXPECT_GE(CountTokens(text), cjk) << text;
  }
}

TEST(TokenCountTest, MonotoneWhenTextIsAppended) {
  std::mt19937 rng(11);
  const std::vector<std::string> pieces = {"a", "bc", "word", " ", "\n", "绿茶",      ".",
                                           ",", "é",  "123",  "—", "😀",  "longerword"};
  for (int round = 0; round < 100; ++round) {
    std::string text;
    int last = 0;
    for (int i = 0; i < 60; ++i) {
      text += pieces[rng() % pieces.size()];
      int now = CountTokens(text);
      ASSERT_GE(now, last) << text;
      last = now;
    }
  }
}

TEST(TokenCountTest, LongEnglishTextIsBudgetedSanely) {
  const std::string sentence =
      "Engram keeps the facts a user shares with an assistant, such as where they live, what "
      "they like to eat, and which projects they are working on this month. ";
  std::string text;
  while (text.size() + sentence.size() <= 4000) text += sentence;
  while (text.size() < 4000) text += 'x';
  ASSERT_EQ(text.size(), 4000u);
  // Byte-pair tokenizers give about 4 characters per token for English prose (≈ 1000 here);
  // the estimate errs high on purpose (budgets must hold), but by no more than 15%.
  const int tokens = CountTokens(text);
  EXPECT_GE(tokens, 800);
  EXPECT_LE(tokens, 1150) << "4000 characters of plain English prose";
  // Long CJK text: one token per character, so budgets stay conservative for Chinese.
  std::string zh;
  for (int i = 0; i < 1000; ++i) zh += "茶";
  EXPECT_EQ(CountTokens(zh), 1000);
}

}  // namespace
}  // namespace engram
