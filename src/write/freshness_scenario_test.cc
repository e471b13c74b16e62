// Newest evidence wins at read time (retrieval/freshness.h), end to end through the rule write
// path on a real date: a change said in words no rule reconciles leaves the old fact active,
// and a question about the present still ranks the newer statement first, with the demotion in
// explain; a question about the past, an `as_of` search, a newer statement about someone else
// and a restatement of the same fact leave the ranking alone. Both languages.
#include <gtest/gtest.h>

#include "write/writer_test_util.h"

namespace engram {
namespace {

using namespace testing_write;

class FreshnessScenarioTest : public WriterTest {
 protected:
  void SetUp() override {
    WriterTest::SetUp();
    writer_ = std::make_unique<MemoryWriter>(engine_.get(), WriterOptions{});
  }
  // The user says `text` `days` after the previous message.
  void Say(const std::string& text, int days) {
    clock_.Advance(days * kDay);
    auto out = writer_->Remember(alice_, {UserTurn(text, clock_.NowMs())});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
  }
  std::vector<SearchHit> Ask(const std::string& question, std::optional<TimestampMs> as_of = {}) {
    SearchQuery q;
    q.text = question;
    q.k = 5;
    q.explain = true;
    q.filters.as_of = as_of;
    auto hits = engine_->Search(alice_, q);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    return hits.ok() ? *hits : std::vector<SearchHit>{};
  }
  static const SearchHit* Holding(const std::vector<SearchHit>& hits, const std::string& word) {
    for (const SearchHit& h : hits) {
      if (h.item.content.find(word) != std::string::npos && !IsKeptTurn(h.item)) return &h;
    }
    return nullptr;
  }

  std::unique_ptr<MemoryWriter> writer_;
};

TEST_F(FreshnessScenarioTest, AChangeTheWritePathReadsReplacesTheOldFact) {
  // "got hired at" is a change of employer by data/lexicon/en/changes.tsv: no frame needed.
  Say("I work at Walmart as a cashier", 0);
  Say("I got hired at Costco as a baker", 120);
  const auto now = Ask("where do I work now?");
  ASSERT_FALSE(now.empty());
  EXPECT_NE(now[0].item.content.find("Costco"), std::string::npos) << now[0].item.content;
  EXPECT_EQ(now[0].item.slot, "user/employer");
  for (const SearchHit& h : now) {  // the Walmart turn is still there, as what was said
    if (!IsKeptTurn(h.item)) EXPECT_EQ(h.item.content.find("Walmart"), std::string::npos);
  }
  ListQuery q;
  q.statuses = {ItemStatus::kSuperseded};
  auto old = engine_->List(alice_, q);
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->items.size(), 1u);
  EXPECT_NE(old->items[0].content.find("Walmart"), std::string::npos);
  EXPECT_EQ(old->items[0].superseded_by, now[0].item.id);
}

// What the user stopped, dropped or gave away ("scrapped norway", "had to rehome Pip") ends the
// memory that states it; the statement of the ending takes no slot (it says what no longer
// holds), so the question about the present finds what replaced it.
TEST_F(FreshnessScenarioTest, WhatTheUserDroppedEndsTheMemoryStatingIt) {
  Say("planning a trip to norway in july w my brother, packing tips?", 0);
  Say("scrapped norway, flights too expensive. doing croatia in july instead", 30);
  ListQuery q;
  q.statuses = {ItemStatus::kSuperseded};
  auto old = engine_->List(alice_, q);
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->items.size(), 1u);
  EXPECT_NE(old->items[0].content.find("norway"), std::string::npos) << old->items[0].content;
  auto active = engine_->List(alice_, ListQuery{});
  ASSERT_TRUE(active.ok());
  for (const MemoryItem& m : active->items) {
    if (m.content.find("scrapped norway") != std::string::npos) EXPECT_EQ(m.slot, "");
  }
  Say("my hamster Pip bites everyone lol", 5);
  Say("we had to rehome Pip, my son got allergic", 40);
  auto after = engine_->List(alice_, q);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->items.size(), 2u);
  // "left work at 5" names no employer: nothing about work ends
  Say("I work at Walmart as a cashier", 1);
  Say("left work at 5 today, so tired", 1);
  auto still = engine_->List(alice_, q);
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(still->items.size(), 2u);
}

// The ended thing said first ("jess and i split", "camino idea" scrapped, "韩语放弃了",
// "公司取消大小周了") ends the memory stating it as the verb-first forms do; and a kept turn whose
// every memory was replaced ranks below what replaced it, with the demotion in explain.
TEST_F(FreshnessScenarioTest, AnEndingSaidFirstEndsItAndItsTurnRanksBelow) {
  Say("my gf jess and i are doing a pasta class saturday, what wine do i bring", 0);
  Say("jess and i split in may. anyway", 90);
  ListQuery superseded;
  superseded.statuses = {ItemStatus::kSuperseded};
  auto old = engine_->List(alice_, superseded);
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->items.size(), 1u);
  EXPECT_NE(old->items[0].content.find("jess"), std::string::npos) << old->items[0].content;

  Say("planning to walk the camino in september, need boots advice", 5);
  Say("scrapped the camino idea. we're cycling around sardinia instead, ferry's booked", 60);
  auto after = engine_->List(alice_, superseded);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->items.size(), 2u);
  const auto now = Ask("what trip am I planning?");
  ASSERT_FALSE(now.empty());
  EXPECT_NE(now[0].item.content.find("sardinia"), std::string::npos) << now[0].item.content;
  bool demoted = false;
  for (const SearchHit& h : now) {
    if (IsKeptTurn(h.item) && h.item.content.starts_with("planning to walk the camino")) {
      EXPECT_EQ(h.explain.demotion, "what it said was replaced");
      EXPECT_FALSE(h.explain.demoted_by.empty());
      EXPECT_LT(h.score, now[0].score);
      demoted = true;
    }
  }
  EXPECT_TRUE(demoted);
  // a past question ranks the turn as it always did
  for (const SearchHit& h : Ask("what trip was I planning before?")) {
    EXPECT_TRUE(h.explain.demoted_by.empty()) << h.item.content;
  }
}

// A new amount said without the slot's words ("i can go up to 18k now") replaces the user's
// budget it changes, and takes its slot; an amount of something else leaves it.
TEST_F(FreshnessScenarioTest, ANewAmountReplacesTheBudgetItChanges) {
  Say("looking for a used car, my budget is 12k max", 0);
  Say("i run 3 times a week now", 2);
  Say("update: my dad's chipping in so i can go up to 18k now", 10);
  ListQuery superseded;
  superseded.statuses = {ItemStatus::kSuperseded};
  auto old = engine_->List(alice_, superseded);
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->items.size(), 1u);
  EXPECT_NE(old->items[0].content.find("12k"), std::string::npos) << old->items[0].content;
  auto now = engine_->Get(alice_, old->items[0].superseded_by);
  ASSERT_TRUE(now.ok());
  EXPECT_NE(now->content.find("18k"), std::string::npos) << now->content;
  EXPECT_EQ(now->slot, old->items[0].slot);
  EXPECT_TRUE(now->slot.starts_with("user/budget")) << now->slot;
}

TEST_F(FreshnessScenarioTest, ChineseEndingsSaidFirstEndWhatTheyName) {
  Say("我在学韩语 为了追星哈哈", 0);
  Say("韩语放弃了 现在报了个法语班", 100);
  Say("我们公司大小周，隔一周周六要上班", 3);
  Say("好消息！！公司取消大小周了 现在双休", 60);
  Say("我每天下班后去健身", 1);
  Say("今天工作结束了，累死", 1);  // a day's work ending ends nothing stated
  ListQuery superseded;
  superseded.statuses = {ItemStatus::kSuperseded};
  auto old = engine_->List(alice_, superseded);
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->items.size(), 2u);
  std::string both;
  for (const MemoryItem& m : old->items) both += m.content + "|";
  EXPECT_NE(both.find("韩语"), std::string::npos) << both;
  EXPECT_NE(both.find("大小周"), std::string::npos) << both;
  EXPECT_EQ(both.find("健身"), std::string::npos) << both;
}

TEST_F(FreshnessScenarioTest, AChangeInUnlistedWordsOutranksTheOldFactForTheNow) {
  Say("I work at Walmart as a cashier", 0);
  const TimestampMs walmart_time = clock_.NowMs();
  Say("these days my gig is baking bread at Costco", 120);
  const auto now = Ask("where do I work now?");
  ASSERT_FALSE(now.empty());
  EXPECT_NE(now[0].item.content.find("Costco"), std::string::npos) << now[0].item.content;
  const SearchHit* walmart = Holding(now, "Walmart");
  ASSERT_NE(walmart, nullptr);
  EXPECT_EQ(walmart->item.status, ItemStatus::kActive);  // still stored, only ranked below
  EXPECT_EQ(walmart->explain.demotion, "newer on work");
  EXPECT_EQ(walmart->explain.demoted_by, now[0].item.id);
  EXPECT_LT(walmart->score, now[0].score);
  // The past and a moment in it rank as they always did.
  const auto before = Ask("where did I work before?");
  ASSERT_FALSE(before.empty());
  EXPECT_NE(before[0].item.content.find("Walmart"), std::string::npos) << before[0].item.content;
  for (const SearchHit& h : before) EXPECT_TRUE(h.explain.demoted_by.empty());
  const auto then = Ask("where do I work?", walmart_time + kDay);
  ASSERT_FALSE(then.empty());
  EXPECT_NE(then[0].item.content.find("Walmart"), std::string::npos) << then[0].item.content;
}

TEST_F(FreshnessScenarioTest, ChineseQuittingForANewJobOutranksTheOldEmployer) {
  Say("我在腾讯做后端开发", 0);
  Say("裸辞了，现在在一家游戏公司做策划", 90);
  const auto now = Ask("我现在在哪工作？");
  ASSERT_FALSE(now.empty());
  EXPECT_NE(now[0].item.content.find("游戏公司"), std::string::npos) << now[0].item.content;
  // The write path reads 策划 as the new job and supersedes the old one; where it would not,
  // the old employer still ranks below the new statement
  if (const SearchHit* tencent = Holding(now, "腾讯")) EXPECT_LT(tencent->score, now[0].score);
}

TEST_F(FreshnessScenarioTest, AChineseChangeTheWritePathMissesStillOutranksTheOldEmployer) {
  Say("我在腾讯做后端开发", 0);
  Say("最近在一家游戏公司画原画，天天加班", 90);  // no change cue: both stay active
  const auto now = Ask("我现在在哪工作？");
  ASSERT_FALSE(now.empty());
  EXPECT_NE(now[0].item.content.find("游戏公司"), std::string::npos) << now[0].item.content;
  const SearchHit* tencent = Holding(now, "腾讯");
  ASSERT_NE(tencent, nullptr);
  EXPECT_LT(tencent->score, now[0].score);
  EXPECT_FALSE(tencent->explain.demoted_by.empty());
}

TEST_F(FreshnessScenarioTest, ANewerStatementAboutSomeoneElseDoesNotOutdateTheUsers) {
  Say("I work at Walmart as a cashier", 0);
  Say("My sister got hired at Costco as a baker", 30);
  const auto now = Ask("where do I work now?");
  ASSERT_FALSE(now.empty());
  EXPECT_NE(now[0].item.content.find("Walmart"), std::string::npos) << now[0].item.content;
  for (const SearchHit& h : now) EXPECT_TRUE(h.explain.demoted_by.empty()) << h.item.content;
}

TEST_F(FreshnessScenarioTest, ARestatementConfirmsTheFactAndAQuestionOffTopicChangesNothing) {
  Say("I live in Boston", 0);
  Say("I live in Boston, still", 10);
  const auto now = Ask("where do I live?");
  ASSERT_FALSE(now.empty());
  EXPECT_NE(now[0].item.content.find("Boston"), std::string::npos);
  EXPECT_FALSE(IsKeptTurn(now[0].item)) << now[0].item.content;
  for (const SearchHit& h : now) EXPECT_TRUE(h.explain.demoted_by.empty()) << h.item.content;
  Say("I got hired at Costco as a baker", 10);
  for (const SearchHit& h : Ask("tell me about Boston")) {
    EXPECT_TRUE(h.explain.demoted_by.empty()) << h.item.content;
  }
}

// A question names the kind ("what instrument…?", "做什么运动"); the user's statements name the
// instance ("the ukulele", "羽毛球"): the kind's words find them (data/lexicon/*/topics.tsv), and
// as kinds hold many values at once, a newer one does not outrank an older one.
TEST_F(FreshnessScenarioTest, AQuestionAboutAKindFindsTheInstancesAndDemotesNone) {
  Say("started learning the ukulele last year, loving it", 1);
  Say("i play tennis on weekends", 1);
  Say("started fencing this month", 1);
  const auto music = Ask("what instrument do I play?");
  ASSERT_FALSE(music.empty());
  EXPECT_NE(music[0].item.content.find("ukulele"), std::string::npos) << music[0].item.content;
  const auto sports = Ask("what sports do I do?");
  bool tennis = false, fencing = false;
  for (const SearchHit& h : sports) {
    if (IsKeptTurn(h.item)) continue;
    tennis = tennis || h.item.content.find("tennis") != std::string::npos;
    fencing = fencing || h.item.content.find("fencing") != std::string::npos;
    EXPECT_TRUE(h.explain.demoted_by.empty()) << h.item.content;  // a sport outdates no sport
  }
  EXPECT_TRUE(tennis);
  EXPECT_TRUE(fencing);
}

TEST_F(FreshnessScenarioTest, ChineseKindsToo) {
  Say("学吉他三年了 最近在死磕指弹", 1);
  Say("每周三晚上去打羽毛球", 1);
  Say("我对花生过敏", 1);
  const auto music = Ask("我会什么乐器");
  ASSERT_FALSE(music.empty());
  EXPECT_NE(music[0].item.content.find("吉他"), std::string::npos) << music[0].item.content;
  const auto sport = Ask("我平时做什么运动");
  ASSERT_FALSE(sport.empty());
  EXPECT_NE(sport[0].item.content.find("羽毛球"), std::string::npos) << sport[0].item.content;
}

}  // namespace
}  // namespace engram
