// The topic lexicon (data/lexicon, compiled in): which topics a text is about, whether it names
// someone else, asks, or speaks of the past; English whole words, Chinese substrings.
#include "text/topics.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "text/lexicon_data.h"

namespace engram {
namespace {

bool Has(TopicSet set, const std::string& name) {
  return TopicNames(set).find(name) != std::string::npos;
}

TEST(TopicsTest, TheLexiconFilesAreCompiledInAndRead) {
  const auto& topics = LexiconEntries("en/topics.tsv");
  ASSERT_FALSE(topics.empty());
  EXPECT_EQ(topics.front().first, "location");  // comment lines skipped
  EXPECT_TRUE(LexiconEntries("no/such.tsv").empty());
  EXPECT_FALSE(LexiconEntries("zh/topics.tsv").empty());
  // one key's words, in file order; none for a key or a file that is not there
  const std::vector<std::string> stops = LexiconWords("en/endings.tsv", "stop");
  ASSERT_FALSE(stops.empty());
  const auto given_up_on = std::find(stops.begin(), stops.end(), "given up on");
  EXPECT_LT(given_up_on, std::find(stops.begin(), stops.end(), "given up"));
  EXPECT_TRUE(LexiconWords("en/endings.tsv", "no_such_key").empty());
  EXPECT_TRUE(LexiconWords("no/such.tsv", "stop").empty());
}

TEST(TopicsTest, TopicsAreFoundByWholeWordsAndChineseSubstrings) {
  EXPECT_TRUE(Has(TopicsOfText("I got hired at Costco as a baker"), "work"));
  EXPECT_TRUE(Has(TopicsOfText("officially a Denver resident now"), "location"));
  EXPECT_TRUE(Has(TopicsOfText("裸辞了，现在在一家游戏公司做策划"), "work"));
  EXPECT_TRUE(Has(TopicsOfText("我们搬到杭州了"), "location"));
  EXPECT_EQ(TopicsOfText("I love olives"), TopicSet{0});     // "live" is not in "olives"
  EXPECT_EQ(TopicsOfText("记住我明天要早起"), TopicSet{0});  // 记住 is not a home
  EXPECT_TRUE(Has(TopicOfSlot("user/job"), "work"));
  EXPECT_TRUE(Has(TopicOfSlot("kevin/location:home"), "location"));
  EXPECT_EQ(TopicOfSlot("user/likes:jazz"), TopicSet{0});
  EXPECT_EQ(TopicOfSlot(""), TopicSet{0});
}

TEST(TopicsTest, OthersPastQuestionsAndTheSpeaker) {
  const TextTraits sister = ReadTextTraits("My sister moved to Denver");
  EXPECT_TRUE(sister.others);
  EXPECT_TRUE(sister.first_person);
  EXPECT_FALSE(ReadTextTraits("I moved to Denver").others);
  EXPECT_TRUE(ReadTextTraits("我妈搬到上海了").others);
  EXPECT_TRUE(ReadTextTraits("I used to live in Boston").past);
  EXPECT_TRUE(AsksAboutPast("where did I live before?"));
  EXPECT_TRUE(AsksAboutPast("我以前住在哪"));
  EXPECT_FALSE(AsksAboutPast("where do I live now?"));
  EXPECT_TRUE(ReadTextTraits("Where do I live?").question);
  EXPECT_TRUE(ReadTextTraits("我住哪？").question);
  EXPECT_FALSE(ReadTextTraits("I live here").question);
  const auto words = QuestionWordsOfTopics(TopicOfSlot("user/job"));
  EXPECT_NE(std::find(words.begin(), words.end(), "work"), words.end());
  EXPECT_NE(std::find(words.begin(), words.end(), "工作"), words.end());
}

// A sport or an instrument is a hobby too: "what's my hobby these days?" finds "been
// skateboarding all summer" by the words a hobby question uses.
TEST(TopicsTest, ASportOrAnInstrumentAnswersAHobbyQuestion) {
  const TopicSet sport = TopicsOfText("been skateboarding all summer");
  ASSERT_NE(sport, 0u);
  const auto words = QuestionWordsOfTopics(sport);
  EXPECT_NE(std::find(words.begin(), words.end(), "hobby"), words.end());
  const auto music = QuestionWordsOfTopics(TopicsOfText("i play the cello"));
  EXPECT_NE(std::find(music.begin(), music.end(), "hobby"), music.end());
}

// Where the user lives, works, studies and who their partner is: one at a time. Sports and
// health conditions are many.
TEST(TopicsTest, TopicsOfOneValueAtATime) {
  const TopicSet one = OneValuedTopics();
  EXPECT_NE(one & TopicOfSlot("user/location"), 0u);
  EXPECT_NE(one & TopicOfSlot("user/employer"), 0u);
  EXPECT_NE(one & TopicOfSlot("user/school"), 0u);
  EXPECT_NE(one & TopicOfSlot("user/partner"), 0u);
  EXPECT_EQ(one & TopicsOfText("plays tennis"), 0u);
  EXPECT_EQ(one & ManyValuedTopics(), 0u);
}

}  // namespace
}  // namespace engram
