// The write path end to end with the built-in rule extractor and resolver, on a real date:
// what users say over days (a move, a reversed preference, a repeat, corrections, an ended
// habit, an elliptical follow-up), asserting the active set, the history, the timeline
// (valid_from / valid_to, as_of) and every resolved relative date in both languages.
#include <gtest/gtest.h>

#include "write/writer_test_util.h"

namespace engram {
namespace {

using namespace testing_write;

class RuleScenarioTest : public WriterTest {
 protected:
  void SetUp() override {
    WriterTest::SetUp();
    writer_ = std::make_unique<MemoryWriter>(engine_.get(), WriterOptions{});
  }
  // The user says `text` a day after the previous message.
  RememberResult Say(const std::string& text, const Scope* scope = nullptr) {
    clock_.Advance(kDay);
    return SayNow(text, scope);
  }
  RememberResult SayNow(const std::string& text, const Scope* scope = nullptr) {
    auto out = writer_->Remember(scope ? *scope : alice_, {UserTurn(text, clock_.NowMs())});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : RememberResult{};
  }
  // The only memory (not turn) a message produced.
  WriteOutcome Only(const RememberResult& r) {
    auto m = Memories(r);
    EXPECT_EQ(m.size(), 1u);
    return m.empty() ? WriteOutcome{} : m.front();
  }

  std::unique_ptr<MemoryWriter> writer_;
};

TEST_F(RuleScenarioTest, MovingCitySupersedesTheOldCityOnATimelineWithoutGaps) {
  const TimestampMs before_anything = clock_.NowMs();
  WriteOutcome beijing = Only(Say("我住在北京。"));
  const TimestampMs said_beijing = clock_.NowMs();
  clock_.Advance(60 * kDay);
  RememberResult b = Say("我上个月搬到上海了");
  WriteOutcome shanghai = Only(b);
  EXPECT_EQ(shanghai.decision, WriteDecision::kSupersede);
  EXPECT_TRUE(MemoryMentions("上海"));
  EXPECT_FALSE(MemoryMentions("北京"));
  // The move happened last month: that is when Beijing stopped holding.
  EXPECT_EQ(shanghai.memory.valid_from, Day(2026, 7, 1));
  auto old = engine_->Get(alice_, beijing.memory.id);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->status, ItemStatus::kSuperseded);
  EXPECT_EQ(old->superseded_by, shanghai.memory.id);
  EXPECT_EQ(old->valid_from, said_beijing);
  EXPECT_EQ(old->valid_to, shanghai.memory.valid_from);  // no gap, no overlap
  EXPECT_GT(shanghai.memory.valid_from, old->valid_from);
  auto history = engine_->History(alice_, beijing.memory.id);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[1].event, HistoryEvent::kSupersede);
  EXPECT_FALSE((*history)[1].reason.empty());

  // What was believed then, and now; before anything was said, nothing.
  auto held = [&](TimestampMs at) {
    ListQuery q;
    q.as_of = at;
    std::vector<std::string> ids;
    for (const MemoryItem& m : List(q, alice_)) {
      if (!IsKeptTurn(m)) ids.push_back(m.id);
    }
    return ids;
  };
  EXPECT_EQ(held(said_beijing), std::vector<std::string>{beijing.memory.id});
  EXPECT_EQ(held(Day(2026, 7, 1) - 1), std::vector<std::string>{beijing.memory.id});
  EXPECT_EQ(held(Day(2026, 7, 1)), std::vector<std::string>{shanghai.memory.id});
  EXPECT_EQ(held(clock_.NowMs()), std::vector<std::string>{shanghai.memory.id});
  EXPECT_TRUE(held(before_anything).empty());
}

TEST_F(RuleScenarioTest, ACorrectionReplacesTheWrongFactFromItsStart) {
  WriteOutcome wrong = Only(Say("我在腾讯工作"));
  clock_.Advance(5 * kMinute);
  WriteOutcome right = Only(SayNow("其实我在阿里巴巴工作"));
  EXPECT_EQ(right.decision, WriteDecision::kSupersede);
  EXPECT_TRUE(MemoryMentions("阿里巴巴"));
  EXPECT_FALSE(MemoryMentions("腾讯"));
  // It was never true: the corrected fact holds from when the wrong one was said.
  EXPECT_EQ(right.memory.valid_from, wrong.memory.valid_from);
  EXPECT_EQ(right.replaced.valid_to, wrong.memory.valid_from);
}

TEST_F(RuleScenarioTest, ABareCorrectionFixesWhatWasJustSaid) {
  WriteOutcome ella = Only(Say("My sister's name is Ella"));
  clock_.Advance(kMinute);
  WriteOutcome ellie = Only(SayNow("wait no, Ellie"));
  EXPECT_EQ(ellie.decision, WriteDecision::kSupersede);
  EXPECT_EQ(ellie.memory.content, "User's sister's name is Ellie");
  EXPECT_EQ(ellie.replaced.id, ella.memory.id);
  EXPECT_TRUE(MemoryMentions("Ellie"));
  EXPECT_FALSE(MemoryMentions("Ella"));
  // Long after, there is nothing it could correct: the turn is kept and the reason given.
  clock_.Advance(kDay);
  RememberResult late = SayNow("sorry, I meant Elsie");
  EXPECT_TRUE(Memories(late).empty());
  ASSERT_EQ(late.skipped.size(), 1u);
  EXPECT_NE(late.skipped[0].reason.find("no recent memory"), std::string::npos);
  EXPECT_EQ(Turns(late).size(), 1u);
  EXPECT_TRUE(MemoryMentions("Ellie"));
}

// How people fix what they just typed, beyond "actually" and "wait no": the value and the one
// taken back with "not" and no comma, a value with "sorry" after it, a marker after an
// interjection and the value in the next sentence, 其实 after an interjection.
TEST_F(RuleScenarioTest, CorrectionsTypedTheWayPeopleTypeThem) {
  struct Case {
    const char* said;
    const char* fix;
    const char* now;
    const char* gone;
  };
  for (const Case& c : std::vector<Case>{
           {"just bought a used skoda octavia, 60k miles", "fabia not octavia lol, the small one",
            "fabia", "octavia"},
           {"my cat's name is Biscuit", "lol autocorrect. Brisket. not biscuit", "Brisket",
            "Biscuit"},
           {"my manager is priya raman, need to write her a thank you note",
            "priya nair sorry, raman is a different priya on the team", "nair", "raman"},
           {"我家在朝阳区，周末附近有啥遛娃的地方", "emmm其实是通州，我老说错哈哈", "通州",
            "朝阳"}}) {
    const Scope user{"default", std::string("user-") + c.now, "", ""};  // one user per case
    Say(c.said, &user);
    clock_.Advance(kMinute);
    SayNow(c.fix, &user);
    std::string held;
    for (const MemoryItem& m : ActiveMemories(user)) held += m.content + "|";
    EXPECT_NE(held.find(c.now), std::string::npos) << c.fix << ": " << held;
    EXPECT_EQ(held.find(c.gone), std::string::npos) << c.fix << ": " << held;
  }
}

TEST_F(RuleScenarioTest, ACorrectionWhoseValueFitsNoWordOfTheFactClosesItByTheTurn) {
  WriteOutcome saturday = Only(Say("my dad arrives on Saturday"));
  // The weekday is resolved to its date: no word of the fact is "Saturday" to replace.
  ASSERT_EQ(saturday.memory.content, "User's dad arrives on 2026-06-20");
  clock_.Advance(kMinute);
  RememberResult r = SayNow("actually it's Sunday, not Saturday");
  ASSERT_EQ(Turns(r).size(), 1u);
  const std::string turn_id = Turns(r)[0].memory.id;
  WriteOutcome closed = Only(r);
  EXPECT_EQ(closed.decision, WriteDecision::kSupersede);
  EXPECT_EQ(closed.memory.id, saturday.memory.id);
  // Nothing made up: no fact claims Saturday any more, the turn says what holds.
  EXPECT_FALSE(MemoryMentions("2026-06-20"));
  auto old = engine_->Get(alice_, saturday.memory.id);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->status, ItemStatus::kSuperseded);
  EXPECT_EQ(old->superseded_by, turn_id);
  EXPECT_EQ(old->valid_to, old->valid_from);  // it never held
  EXPECT_GT(old->valid_from, kT0);
  auto turn = engine_->Get(alice_, turn_id);
  ASSERT_TRUE(turn.ok());
  EXPECT_NE(std::find(turn->derived_ids.begin(), turn->derived_ids.end(), saturday.memory.id),
            turn->derived_ids.end());
  auto history = engine_->History(alice_, saturday.memory.id);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->back().event, HistoryEvent::kSupersede);
}

// A day ("Correction: 15th.") corrects a date; when no recent memory holds one (the date was in
// no fact), nothing is closed and nothing is rewritten: the turn is kept and the write says so.
TEST_F(RuleScenarioTest, ADayCorrectsOnlyAMemoryHoldingADate) {
  WriteOutcome nights = Only(Say("Camp Lejeune reunion, 3 nights"));
  clock_.Advance(kMinute);
  RememberResult r = SayNow("Correction: 15th.");
  EXPECT_EQ(Turns(r).size(), 1u);
  bool said_so = false;
  for (const auto& s : r.skipped)
    said_so = said_so || s.reason.find("no recent memory") != std::string::npos;
  EXPECT_TRUE(said_so);
  auto kept = engine_->Get(alice_, nights.memory.id);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->status, ItemStatus::kActive);
  EXPECT_EQ(kept->content, nights.memory.content);
  EXPECT_FALSE(MemoryMentions("15th nights"));
}

// Corrections as people type them, a minute after the fact: the corrected value replaces the
// old one in the whole fact (never said twice, never beside the old one), and the memory
// corrected is the one holding the old value, not merely the newest.
TEST_F(RuleScenarioTest, TypedCorrectionsReplaceTheValueOfTheMemoryTheyCorrect) {
  struct Case {
    std::vector<std::string> said;
    std::string now, gone;
  };
  const std::vector<Case> cases = {
      {{"my locker is on the 3rd floor, near the gym",
        "correction 6th floor. took the stairs today"},
       "User's locker is on the 6th floor, near the gym",
       "3rd"},
      {{"my sister's car is a blue mazda", "corolla* not mazda lol"},
       "User's sister's car is a blue corolla",
       "mazda"},
      {{"i have two dogs", "three*. forgot one"}, "User has three dogs", "two"},
      // the newest memory ("dont book anything then") holds no weekday: the lesson is corrected
      {{"my piano lesson is on mondays at 5", "ok so dont book anything then",
        "wait no, wednesdays. monday is gym"},
       "User's piano lesson is on wednesdays at 5",
       "mondays"},
      {{"im 29 and learning to skate", "30 actually, birthday was last week"},
       "User is 30 and learning to skate",
       "29"},
      {{"my boss is called Derek", "sorry not Derek, Dennis"},
       "User's boss is called Dennis",
       "Derek"},
      // the clause after the value says where the old value belongs: that memory is corrected
      {{"my yoga class is on tuesdays", "my brother is in Denver",
        "no wait, fridays. tuesday is pottery"},
       "User's yoga class is on fridays",
       "tuesdays"},
      {{"我老家是在大连 冬天超冷", "不对 是鞍山 大连是我读研的地方"},
       "用户老家是在鞍山",
       "老家是在大连"},
      {{"我每天早上7点出门", "哦不对 7点半 7点是我老公出门"}, "用户每天早上7点半出门", "7点出门"},
      // a typo fixed: the word spelled almost alike, not the newest memory
      {{"my boss is karen whitfield, need to email her about pto", "whitford* ugh autocorrect"},
       "User's boss is karen whitford",
       "whitfield"},
      {{"我领导叫王建国 要给他写封感谢信", "王建华 打错字了"}, "用户的领导叫王建华", "王建国"},
      // a city replaces the city of the memory naming one
      {{"grew up in toledo, moved away at 18", "no wait dayton"},
       "User grew up in dayton",
       "toledo"},
      // the value first, then the one it is not
      {{"我家猫是英短 叫奶茶", "是美短 不是英短 手滑"}, "用户家猫是美短，叫奶茶", "英短"},
      {{"my daughter just started kindergarten at lincoln elementary",
        "jefferson elementary i mean, lincoln was the one we toured"},
       "User's daughter just started kindergarten at jefferson elementary",
       "lincoln"},
      {{"我养了两只狗 租房好难", "三只 忘了算上新来的小黑"}, "用户养了三只狗，租房好难", "两只"},
      {{"我儿子在实验小学上一年级", "是育才小学 实验小学是他表哥那个"},
       "用户的儿子在育才小学上一年级",
       "实验小学"},
      // the person corrected: every fact of the message about the one taken back
      {{"我妈体检查出高血压 饮食上要注意啥", "啊说错了 是我爸 不是我妈"},
       "用户的爸体检查出高血压",
       "妈"},
      {{"my mom was just diagnosed with type 2 diabetes",
        "ugh sorry, my aunt. not my mom, mom's fine"},
       "User's aunt was just diagnosed with type 2 diabetes",
       "mom"},
      // the value alone, then the slip named in a sentence of its own
      {{"therapist is dr lindqvist, can u help me write her a note",
        "lindquist. autocorrect again"},
       "User's therapist is dr lindquist",
       "lindqvist"},
      {{"our wedding is june 14, help me pick a caterer",
        "ugh 24th. dont tell my fiance i said 14"},
       "User's wedding is june 24th, 2026",
       "14"},
      {{"我对象叫李娜 帮我想个纪念日惊喜", "李纳* 输入法又抽风"}, "用户的对象叫李纳", "李娜"},
      // the number nearest the new one is the one corrected, in whichever recent memory
      {{"体重68 身高180 想增肌", "dbq 66 刚才手滑了"}, "体重66", "68"},
      // a number and "actually" with the talk of the slip after it
      {{"i have 2 sisters, both younger", "3 actually lol forgot my stepsister"},
       "User has 3 sisters, both younger",
       "2 sisters"},
      // formal and second-language markers, a marker alone first, a value with no letters
      {{"I was born in Dayton in 1960, where are the county records", "Forgive me. Toledo."},
       "User was born in Toledo in 1960",
       "Dayton"},
      {{"We married on May 4th, 1980 and I want to plan something", "I beg your pardon. May 14th."},
       "User married on May 14th, 1980",
       "May 4th"},
      {{"my flat is on 3rd floor, no lift, tips for moving a piano", "ah sorry, is 2nd floor"},
       "User's flat is on 2nd floor",
       "3rd"},
      {{"Shoe size 42 EU, need hiking boots", "43*"}, "User's shoe size is 43 EU", "42"},
      // a note typed as a label and its value; the slip's talk after the value
      {{"Blood type: B negative, for my donor card", "sorry its AB negative i always mix them up"},
       "User's blood type is AB negative, for their donor card",
       "is B negative"},
      {{"Med allergy: penicillin. Put it on my card.", "Wrong one. Amoxicillin."},
       "User is allergic to Amoxicillin",
       "penicillin"},
      // an apology, then the value; the employer a job fact names, corrected by name
      {{"我一米八 体重72公斤 帮我算下bmi", "啊不好意思 是75"}, "用户体重75公斤", "72公斤"},
      {{"我在京东做产品经理，帮我改改周报", "打错了 拼多多"}, "用户在拼多多做产品经理", "京东"},
      {{"我家猫猫2岁了 还能绝育吗", "不对 3岁了"}, "用户家猫猫3岁了", "2岁"},
  };
  for (const Case& c : cases) {
    const Scope user{"default", "typed-" + std::to_string(&c - cases.data()), "", ""};
    clock_.Advance(kDay);
    for (const std::string& text : c.said) {
      clock_.Advance(kMinute);
      SayNow(text, &user);
    }
    bool found = false;
    for (const MemoryItem& m : ActiveMemories(user)) {
      found = found || m.content == c.now;
      EXPECT_EQ(m.content.find(c.gone), std::string::npos) << c.said.back() << ": " << m.content;
    }
    EXPECT_TRUE(found) << c.said.back();
  }
}

TEST_F(RuleScenarioTest, ReversedPreferenceSupersedes) {
  ASSERT_EQ(Memories(Say("I love spicy food.")).size(), 1u);
  WriteOutcome r = Only(Say("I don't like spicy food anymore."));
  EXPECT_EQ(r.decision, WriteDecision::kSupersede);
  ASSERT_EQ(ActiveMemories().size(), 1u);
  EXPECT_EQ(ActiveMemories()[0].id, r.memory.id);
  EXPECT_EQ(WithStatus(ItemStatus::kSuperseded).size(), 1u);
}

TEST_F(RuleScenarioTest, AnEndedHabitIsSuperseded) {
  WriteOutcome coffee = Only(Say("I drink coffee every morning"));
  WriteOutcome quit = Only(Say("I quit coffee last week"));
  EXPECT_EQ(quit.decision, WriteDecision::kSupersede);
  EXPECT_EQ(quit.replaced.id, coffee.memory.id);
  EXPECT_FALSE(MemoryMentions("every morning"));
  // The habit was first heard of after the week it ended in: the replacement cannot start
  // before what it replaces, so it holds from when it was said; the content keeps the week.
  EXPECT_NE(quit.memory.content.find("2026-06-08"), std::string::npos) << quit.memory.content;
  EXPECT_EQ(quit.memory.valid_from, clock_.NowMs());
  EXPECT_EQ(quit.replaced.valid_to, quit.memory.valid_from);
  EXPECT_GT(quit.memory.valid_from, coffee.memory.valid_from);
}

TEST_F(RuleScenarioTest, TheSameFactTwiceIsStoredOnceAndLinkedToBothTurns) {
  WriteOutcome first = Only(Say("I'm allergic to peanuts."));
  RememberResult again = Say("Just so you know, I'm allergic to peanuts");
  WriteOutcome repeat = Only(again);
  EXPECT_EQ(repeat.decision, WriteDecision::kNoop);
  EXPECT_EQ(repeat.memory.id, first.memory.id);
  ASSERT_EQ(ActiveMemories().size(), 1u);
  EXPECT_GT(ActiveMemories()[0].importance, 0.5);
  // both turns are kept, and the fact names both
  ASSERT_EQ(KeptTurns().size(), 2u);
  EXPECT_EQ(ActiveMemories()[0].source.turn_ids.size(), 2u);
  auto turns = Turns(again);
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0].memory.derived_ids, std::vector<std::string>{first.memory.id});
}

// Said three ways, one memory; and it answers before the turns that said it.
TEST_F(RuleScenarioTest, ARestatedPetIsOneMemoryAndAnswersBeforeTheTurns) {
  WriteOutcome first = Only(Say("我养了一只猫，叫豆包。"));
  EXPECT_EQ(first.memory.slot, "user/pet:豆包");
  for (const char* again : {"我家的猫叫豆包。", "我的猫名字是豆包。"}) {
    WriteOutcome w = Only(Say(again));
    EXPECT_EQ(w.decision, WriteDecision::kNoop) << again;
    EXPECT_EQ(w.memory.id, first.memory.id) << again;
  }
  ASSERT_EQ(ActiveMemories().size(), 1u);
  EXPECT_EQ(KeptTurns().size(), 3u);
  SearchQuery q;
  q.text = "我的猫叫什么？";
  q.k = 5;
  auto hits = engine_->Search(alice_, q);
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ((*hits)[0].item.id, first.memory.id) << (*hits)[0].item.content;
}

TEST_F(RuleScenarioTest, AnAllergyAddedLaterKeepsTheFirst) {
  ASSERT_EQ(Memories(Say("I'm allergic to peanuts.")).size(), 1u);
  WriteOutcome r = Only(Say("I'm also allergic to shellfish."));
  EXPECT_EQ(r.decision, WriteDecision::kAdd);
  EXPECT_EQ(ActiveMemories().size(), 2u);
  EXPECT_TRUE(MemoryMentions("peanut"));
  EXPECT_TRUE(MemoryMentions("shellfish"));
}

TEST_F(RuleScenarioTest, TwoAppointmentsAreTwo) {
  ASSERT_EQ(Memories(Say("I have a dentist appointment next Friday")).size(), 1u);
  WriteOutcome doctor = Only(SayNow("oh and a doctor appointment on Tuesday too"));
  EXPECT_EQ(doctor.decision, WriteDecision::kAdd);
  EXPECT_EQ(ActiveMemories().size(), 2u);
  // said on Tuesday 2026-06-16: next Friday is the 26th, Tuesday the day itself
  for (const MemoryItem& m : ActiveMemories()) {
    const bool dentist = m.content.find("dentist") != std::string::npos;
    EXPECT_EQ(m.valid_from, dentist ? Day(2026, 6, 26) : Day(2026, 6, 16)) << m.content;
  }
}

TEST_F(RuleScenarioTest, AnEllipticalFollowUpChangesTheFamilysLatest) {
  WriteOutcome budget = Only(Say("我这次装修预算大概五万以内。"));
  EXPECT_EQ(budget.memory.slot, "user/budget:装修");
  WriteOutcome more = Only(Say("预算可以再提高一点，最多八万。"));
  EXPECT_EQ(more.decision, WriteDecision::kSupersede);
  EXPECT_EQ(more.replaced.id, budget.memory.id);
  EXPECT_EQ(more.memory.slot, "user/budget:装修");
  EXPECT_EQ(more.memory.content, "用户预算可以再提高一点，最多八万");
}

TEST_F(RuleScenarioTest, ChitChatStoresNothing) {
  EXPECT_TRUE(Say("你好！").writes.empty());
  EXPECT_TRUE(Say("thanks, that's great").writes.empty());
  EXPECT_TRUE(Active().empty());
}

// Every relative expression the rules resolve, said on Monday 2026-06-15 at 10:00 UTC, as the
// date the memory holds from (README of the write-path corpus: how relative times resolve).
TEST_F(RuleScenarioTest, RelativeDatesResolveFromWhenTheyWereSaid) {
  struct Case {
    const char* text;
    TimestampMs from;
  };
  const std::vector<Case> cases = {
      {"I went to the dentist yesterday", Day(2026, 6, 14)},
      {"I have a job interview tomorrow", Day(2026, 6, 16)},
      {"I started a new job last week", Day(2026, 6, 8)},
      {"I'm starting the course next week", Day(2026, 6, 22)},
      {"I went to a concert last Friday", Day(2026, 6, 12)},
      {"I have a dentist appointment next Friday", Day(2026, 6, 26)},
      {"I have a dentist appointment on Friday", Day(2026, 6, 19)},
      {"I moved to Denver last month", Day(2026, 5, 1)},
      {"I'm moving to Austin next month", Day(2026, 7, 1)},
      {"I got married last year", Day(2025, 1, 1)},
      {"I adopted a cat 3 days ago", Day(2026, 6, 12)},
      {"I have an exam in 3 days", Day(2026, 6, 18)},
      {"I broke my arm two weeks ago", Day(2026, 6, 1)},
      {"I started running 3 months ago", Day(2026, 3, 1)},
      {"I went to Japan in May", Day(2026, 5, 1)},
      {"I ran a marathon on May 3", Day(2026, 5, 3)},
      {"我昨天去看了牙医", Day(2026, 6, 14)},
      {"我前天去了医院", Day(2026, 6, 13)},
      {"我明天有个面试", Day(2026, 6, 16)},
      {"我后天要去北京出差", Day(2026, 6, 17)},
      {"我上周换了新工作", Day(2026, 6, 8)},
      {"我下周要去上海出差", Day(2026, 6, 22)},
      {"我上周五去听了演唱会", Day(2026, 6, 12)},
      {"我下周五有个面试", Day(2026, 6, 26)},
      {"我周五要去看牙医", Day(2026, 6, 19)},
      {"我上个月搬到了深圳", Day(2026, 5, 1)},
      {"我下个月要搬去杭州", Day(2026, 7, 1)},
      {"我去年结婚了", Day(2025, 1, 1)},
      {"我明年要考研", Day(2027, 1, 1)},
      {"我三天前领养了一只猫", Day(2026, 6, 12)},
      {"我三天后有个考试", Day(2026, 6, 18)},
      {"我两周前摔断了胳膊", Day(2026, 6, 1)},
      {"我三个月前开始跑步", Day(2026, 3, 1)},
      {"我5月去了日本", Day(2026, 5, 1)},
      {"我5月3号跑了马拉松", Day(2026, 5, 3)},
  };
  int user = 0;
  for (const Case& c : cases) {
    Scope scope{"default", "u" + std::to_string(++user), "", ""};
    RememberResult r = SayNow(c.text, &scope);
    auto memories = Memories(r);
    ASSERT_EQ(memories.size(), 1u) << c.text;
    EXPECT_EQ(memories[0].memory.valid_from, c.from)
        << c.text << " → " << memories[0].memory.content << " from "
        << FormatTimestamp(memories[0].memory.valid_from);
    // the content says the date, not the relative words ("yesterday" means nothing later)
    const std::string iso = FormatTimestamp(c.from).substr(0, 10);
    const std::string& content = memories[0].memory.content;
    const bool dated = content.find(iso) != std::string::npos ||
                       content.find(iso.substr(0, 7)) != std::string::npos ||
                       content.find(iso.substr(0, 4)) != std::string::npos;
    EXPECT_TRUE(dated) << c.text << " → " << content;
    for (const char* relative : {"yesterday", "tomorrow", "last week", "next week", "ago", "昨天",
                                 "明天", "上周", "下周", "前天", "后天", "去年", "明年"}) {
      EXPECT_EQ(content.find(relative), std::string::npos) << c.text << " → " << content;
    }
  }
  // No stored date anywhere is a missing time read as 1970.
  for (int u = 1; u <= user; ++u) {
    Scope scope{"default", "u" + std::to_string(u), "", ""};
    ListQuery any;
    any.statuses.clear();
    for (const MemoryItem& m : List(any, scope)) {
      EXPECT_GE(m.created_at, kY2k) << m.content;
      EXPECT_GE(m.valid_from, kY2k) << m.content;
      EXPECT_GE(m.updated_at, kY2k) << m.content;
    }
  }
}

// Search answers with what was distilled, not with the raw turn, and a turn whose facts were all
// replaced ranks below one whose facts still hold.
TEST_F(RuleScenarioTest, SearchPrefersTheFactAndDemotesStaleTurns) {
  Scope bob{"default", "bob", "", ""};
  SayNow("I live in Boston with my wife.");
  SayNow("I live in Boston with my wife.", &bob);
  clock_.Advance(30 * kDay);
  WriteOutcome seattle = Only(Say("We moved to Seattle last week."));
  SearchQuery q;
  q.text = "where do I live?";
  q.k = 5;
  auto hits = engine_->Search(alice_, q);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ((*hits)[0].item.id, seattle.memory.id);
  // The Boston turn is still found (nothing said is lost), but alice's says what no longer
  // holds and ranks lower than bob's, whose Boston still does.
  auto turn_score = [&](const Scope& scope) {
    SearchQuery boston;
    boston.text = "Boston";
    boston.k = 10;
    auto found = engine_->Search(scope, boston);
    EXPECT_TRUE(found.ok());
    for (const SearchHit& h : *found) {
      if (IsKeptTurn(h.item) && h.item.content.find("Boston") != std::string::npos) return h.score;
    }
    return -1.0;
  };
  const double stale = turn_score(alice_), current = turn_score(bob);
  ASSERT_GT(stale, 0) << "the Boston turn is searchable";
  ASSERT_GT(current, 0);
  EXPECT_LT(stale, 0.85 * current) << stale << " vs " << current;
}

}  // namespace
}  // namespace engram
