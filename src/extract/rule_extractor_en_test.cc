// The rule extractor on English self-statements.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "extract/extraction_test_util.h"

namespace engram {
namespace {

using namespace testing_extract;

TEST(RuleExtractorEnTest, Name) {
  for (const char* text :
       {"My name is Alice.", "Hi, I'm Alice", "Call me Alice.", "I am called Alice"}) {
    Candidate c = One(text);
    EXPECT_EQ(c.type, MemoryType::kFact) << text;
    EXPECT_EQ(c.slot, "user/name") << text;
    EXPECT_TRUE(c.exclusive) << text;
    EXPECT_EQ(c.content, "User's name is Alice") << text;
    EXPECT_EQ(c.entities, std::vector<std::string>{"Alice"}) << text;
  }
  EXPECT_EQ(One("My name's Bob Smith").content, "User's name is Bob Smith");
}

TEST(RuleExtractorEnTest, Location) {
  for (const char* text : {"I live in Shanghai.", "I moved to Shanghai", "I've moved to Shanghai!",
                           "I'm living in Shanghai", "I just moved to Shanghai with my wife",
                           "Currently I live in Shanghai."}) {
    Candidate c = One(text);
    EXPECT_EQ(c.slot, "user/location") << text;
    EXPECT_TRUE(c.exclusive) << text;
    EXPECT_EQ(c.content, "User lives in Shanghai") << text;
    EXPECT_FALSE(c.valid_from.has_value()) << text;
  }
  Candidate c = One("I moved to Berlin last year.");
  EXPECT_EQ(c.content, "User lives in Berlin");
  EXPECT_EQ(c.valid_from, Date(2025, 1, 1));
  EXPECT_EQ(One("I grew up in Ohio").slot, "user/hometown");
  EXPECT_EQ(One("I'm from Ohio").content, "User is from Ohio");
}

TEST(RuleExtractorEnTest, EmployerAndJob) {
  Candidate c = One("I work at Google.");
  EXPECT_EQ(c.slot, "user/employer");
  EXPECT_TRUE(c.exclusive);
  EXPECT_EQ(c.content, "User works at Google");
  EXPECT_EQ(One("I work for Acme Corp").content, "User works at Acme Corp");
  EXPECT_EQ(One("I've been working at Stripe for 3 years").content, "User works at Stripe");
  Candidate job = One("I'm a software engineer.");
  EXPECT_EQ(job.slot, "user/job");
  EXPECT_TRUE(job.exclusive);
  EXPECT_EQ(job.content, "User is a software engineer");
  EXPECT_EQ(One("I am an accountant").content, "User is an accountant");
  EXPECT_EQ(One("I work as a nurse").slot, "user/job");
  Candidate started = One("I started working at Microsoft on 2024-05-03.");
  EXPECT_EQ(started.content, "User works at Microsoft");
  EXPECT_EQ(started.valid_from, Date(2024, 5, 3));
  EXPECT_TRUE(Extract("I'm a bit tired").empty());  // not an occupation
  EXPECT_TRUE(Extract("I work at home").empty());
}

TEST(RuleExtractorEnTest, TwoStatementsInOneSentence) {
  auto c = Extract("I live in Paris and work at Airbnb.");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].slot, "user/location");
  EXPECT_EQ(c[1].slot, "user/employer");
  EXPECT_EQ(c[1].content, "User works at Airbnb");
  auto three = Extract("I'm a teacher. I love jazz! I have a cat named Tom.");
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[2].slot, "user/pet:tom");
}

TEST(RuleExtractorEnTest, LikesAndDislikesShareASlot) {
  Candidate like = One("I love coffee.");
  EXPECT_EQ(like.type, MemoryType::kPreference);
  EXPECT_EQ(like.slot, "user/likes:coffee");
  EXPECT_FALSE(like.exclusive);
  EXPECT_EQ(like.content, "User loves coffee");
  Candidate dislike = One("I don't like coffee");
  EXPECT_EQ(dislike.slot, "user/likes:coffee");
  EXPECT_EQ(dislike.content, "User does not like coffee");
  EXPECT_EQ(One("I hate Coffee!").slot, "user/likes:coffee");
  EXPECT_EQ(One("I can't stand loud music").content, "User cannot stand loud music");
  EXPECT_EQ(One("I'm not a fan of horror movies").slot, "user/likes:horror movie");
  EXPECT_EQ(One("I prefer tea over coffee").slot, "user/likes:tea");
  EXPECT_EQ(One("I'm a big fan of jazz").content, "User is a big fan of jazz");
}

TEST(RuleExtractorEnTest, ListOfObjects) {
  auto c = Extract("I hate olives, pickles and anchovies.");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].content, "User hates olives");
  EXPECT_EQ(c[1].slot, "user/likes:pickle");
  EXPECT_EQ(c[2].content, "User hates anchovies");
}

TEST(RuleExtractorEnTest, AllergiesAndHealth) {
  Candidate a = One("I'm allergic to peanuts.");
  EXPECT_EQ(a.type, MemoryType::kFact);
  EXPECT_EQ(a.slot, "user/allergy:peanut");
  EXPECT_FALSE(a.exclusive);
  EXPECT_EQ(a.content, "User is allergic to peanuts");
  EXPECT_GE(a.importance, 0.85);
  EXPECT_EQ(One("I have a peanut allergy").slot, "user/allergy:peanut");
  EXPECT_EQ(One("I'm diabetic").slot, "user/health:diabetes");
  EXPECT_EQ(One("I have high blood pressure").content, "User has high blood pressure");
  EXPECT_EQ(One("I was diagnosed with asthma last year").valid_from, Date(2025, 1, 1));
  EXPECT_TRUE(Extract("I'm not allergic to anything").empty());
}

TEST(RuleExtractorEnTest, Pets) {
  Candidate c = One("I have a dog named Max.");
  EXPECT_EQ(c.slot, "user/pet:max");
  EXPECT_FALSE(c.exclusive);
  EXPECT_EQ(c.content, "User has a dog named Max");
  EXPECT_EQ(c.entities, std::vector<std::string>{"Max"});
  EXPECT_EQ(One("I have two cats").slot, "user/pet:cat");
  EXPECT_EQ(One("My dog's name is Rex").slot, "user/pet:rex");
  Candidate adopted = One("3 days ago I adopted a kitten named Luna.");
  EXPECT_EQ(adopted.slot, "user/pet:luna");
  EXPECT_EQ(adopted.valid_from, Date(2026, 11, 27));
}

TEST(RuleExtractorEnTest, NegationsGiveNothing) {
  EXPECT_TRUE(Extract("I don't have a dog.").empty());
  EXPECT_TRUE(Extract("I never lived in Paris").empty());
  EXPECT_TRUE(Extract("I don't work at Google").empty());
  EXPECT_TRUE(Extract("I used to live in Boston.").empty());
}

TEST(RuleExtractorEnTest, Family) {
  Candidate c = One("My wife is a nurse.");
  EXPECT_EQ(c.slot, "user/family:wife");
  EXPECT_EQ(c.content, "User's wife is a nurse");
  Candidate d = One("My daughter Emma just started school");
  EXPECT_EQ(d.slot, "user/family:daughter");
  EXPECT_EQ(d.entities, std::vector<std::string>{"Emma"});
  EXPECT_EQ(One("I have two kids").slot, "user/family:kid");
  EXPECT_EQ(One("I'm married").slot, "user/marital_status");
}

TEST(RuleExtractorEnTest, Goals) {
  Candidate c = One("I want to learn Spanish.");
  EXPECT_EQ(c.type, MemoryType::kGoal);
  EXPECT_EQ(c.slot, "user/goal:learn spanish");
  EXPECT_EQ(c.content, "User wants to learn Spanish");
  EXPECT_EQ(One("I'd like to learn piano").content, "User would like to learn piano");
  EXPECT_EQ(One("I'm planning to visit Japan").content, "User is planning to visit Japan");
  Candidate g = One("My goal is to run a marathon next year");
  EXPECT_EQ(g.content, "User's goal is to run a marathon");
  EXPECT_EQ(g.valid_from, Date(2027, 1, 1));
  EXPECT_EQ(One("I'll send the revised budget to Maria by Thursday").type, MemoryType::kGoal);
  EXPECT_EQ(One("I promised to call my mom on her birthday").content,
            "User promised to call their mom on her birthday");
  EXPECT_EQ(One("I need to renew my passport").slot, "user/goal:renew my passport");
  EXPECT_TRUE(Extract("I'll think about it").empty());
  EXPECT_TRUE(Extract("I'll never forget that trip").empty());
  EXPECT_EQ(One("I will definitely visit Kyoto in spring").content,
            "User will definitely visit Kyoto in spring");
  EXPECT_TRUE(Extract("I'll be there").empty());
  EXPECT_TRUE(Extract("I need to go").empty());
  EXPECT_TRUE(Extract("I want to know what time it is").empty());  // a request
  EXPECT_TRUE(Extract("I'm going to the gym").empty());
}

TEST(RuleExtractorEnTest, SchedulesAndAppointments) {
  Candidate r = One("Every Monday I go to the gym.");
  EXPECT_EQ(r.type, MemoryType::kFact);
  EXPECT_EQ(r.slot, "user/routine:monday");
  EXPECT_EQ(r.content, "User goes to the gym every Monday");
  EXPECT_FALSE(r.valid_from.has_value());
  EXPECT_EQ(One("I play tennis on Sundays").slot, "user/routine:sunday");
  Candidate a = One("Next Friday I have a dentist appointment.");
  EXPECT_EQ(a.type, MemoryType::kEvent);
  EXPECT_EQ(a.slot, "");
  EXPECT_EQ(a.content, "User has a dentist appointment on 2026-12-11");
  EXPECT_EQ(a.valid_from, Date(2026, 12, 11));
  EXPECT_EQ(One("I have a job interview tomorrow").valid_from, Date(2026, 12, 1));
  Candidate e = One("Yesterday I went to the hospital.");
  EXPECT_EQ(e.type, MemoryType::kEvent);
  EXPECT_EQ(e.valid_from, Date(2026, 11, 29));
}

TEST(RuleExtractorEnTest, Skills) {
  auto c = Extract("I can speak French and German.");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].type, MemoryType::kSkill);
  EXPECT_EQ(c[0].slot, "user/skill:french");
  EXPECT_EQ(c[1].slot, "user/skill:german");
  EXPECT_EQ(One("I play the guitar").type, MemoryType::kSkill);
}

TEST(RuleExtractorEnTest, Corrections) {
  Candidate c = One("Actually, I live in Hangzhou.");
  EXPECT_TRUE(c.correction);
  EXPECT_EQ(c.slot, "user/location");
  EXPECT_EQ(c.content, "User lives in Hangzhou");
  Candidate n = One("I no longer work at Google.");
  EXPECT_TRUE(n.correction);
  EXPECT_EQ(n.slot, "user/employer");
  EXPECT_EQ(n.content, "User no longer works at Google");
  Candidate m = One("I don't eat meat anymore");
  EXPECT_TRUE(m.correction);
  EXPECT_EQ(m.slot, "user/likes:meat");
  EXPECT_FALSE(One("I live in Hangzhou").correction);
}

TEST(RuleExtractorEnTest, IMeantUsesTheEarlierSlot) {
  auto same = Extract("I live in Hangzhou. Sorry, I meant Suzhou.");
  ASSERT_EQ(same.size(), 2u);
  EXPECT_EQ(same[1].slot, "user/location");
  EXPECT_EQ(same[1].content, "User lives in Suzhou");
  EXPECT_TRUE(same[1].correction);
  auto from_context =
      Extract("I meant Stripe", "user", {Turn{"user", "I work at Google", kAt - kDay, ""}});
  ASSERT_EQ(from_context.size(), 1u);
  EXPECT_EQ(from_context[0].slot, "user/employer");
  EXPECT_EQ(from_context[0].content, "User works at Stripe");
  EXPECT_TRUE(Extract("I meant Stripe").empty());  // nothing to correct
}

TEST(RuleExtractorEnTest, ChitChatQuestionsAndOthersGiveNothing) {
  for (const char* text :
       {"Hello!", "thanks!", "ok", "lol", "haha that's funny", "Good morning", "Where do I live?",
        "What's my name", "Do I like coffee?", "Can you remind me to call mom?",
        "Please translate this", "If I lived in Paris I would be happy.",
        "Maybe I'll move to Paris", "My friend lives in Paris.", "You live in Paris",
        "I wish I had a dog", "What's the weather like today?"}) {
    EXPECT_TRUE(Extract(text).empty()) << text;
  }
}

TEST(RuleExtractorEnTest, SmallTalkObjectsGiveNothing) {
  for (const char* text :
       {"I love it!", "I love how it turned out", "I like your photos", "I love what you did there",
        "I'm learning a ton", "I love that", "I want to see you soon", "I work in the studio"}) {
    EXPECT_TRUE(Extract(text).empty()) << text;
  }
}

TEST(RuleExtractorEnTest, ObjectsKeepTheirPhrase) {
  EXPECT_EQ(One("I want to start a dance studio for kids and teens").content,
            "User wants to start a dance studio for kids and teens");
  EXPECT_EQ(One("I love coffee with oat milk").content, "User loves coffee with oat milk");
  EXPECT_EQ(One("I love hiking, especially in autumn").content, "User loves hiking");
  EXPECT_EQ(One("I'm a big fan of pottery - the creativity is great").content,
            "User is a big fan of pottery");
  EXPECT_TRUE(Extract("I had a quiet weekend after we went camping two weekends ago").size() <= 1);
  for (const Candidate& c :
       Extract("I had a quiet weekend after we went camping two weekends ago")) {
    EXPECT_NE(c.slot, "user/routine:weekend");
  }
  EXPECT_EQ(One("Last Friday I went to a parade and it was awesome").content,
            "User went to a parade on 2026-11-27");
  EXPECT_EQ(One("I love beaches").slot, "user/likes:beach");
  EXPECT_EQ(One("I love berries").slot, "user/likes:berry");
}

TEST(RuleExtractorEnTest, AssistantTurnsAreIgnored) {
  EXPECT_TRUE(Extract("I live in Paris.", "assistant").empty());
  EXPECT_TRUE(Extract("I live in Paris.", "system").empty());
  EXPECT_EQ(Extract("I live in Paris.", "Caroline").size(), 1u);  // a named speaker
}

TEST(RuleExtractorEnTest, ResultNamesTheExtractorAndTurn) {
  auto extractor = MakeRuleExtractor();
  ExtractionInput in;
  in.turns = {Turn{"user", "hi", kAt, ""}, Turn{"assistant", "Hello!", kAt, ""},
              Turn{"user", "I live in Oslo", kAt, ""}};
  auto r = extractor->Extract(in);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->extractor, "rules-v1");
  EXPECT_EQ(extractor->name(), "rules-v1");
  ASSERT_EQ(r->candidates.size(), 1u);
  EXPECT_EQ(r->candidates[0].turn_indexes, std::vector<size_t>{2});
}

TEST(RuleExtractorEnTest, MinConfidenceDropsWeakCandidates) {
  RuleExtractorOptions strict;
  strict.min_confidence = 0.8;
  auto extractor = MakeRuleExtractor(strict);
  ExtractionInput in;
  in.turns = {Turn{"user", "Yesterday I went to the hospital.", kAt, ""}};  // 0.65
  EXPECT_TRUE(extractor->Extract(in)->candidates.empty());
  in.turns = {Turn{"user", "I live in Oslo", kAt, ""}};
  EXPECT_EQ(extractor->Extract(in)->candidates.size(), 1u);
}

TEST(RuleExtractorEnTest, Deterministic) {
  const std::string text =
      "I'm Ann. I live in Rome, I love pasta and wine, and next Friday I have an exam.";
  auto a = Extract(text);
  auto b = Extract(text);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].content, b[i].content);
    EXPECT_EQ(a[i].slot, b[i].slot);
  }
  EXPECT_GE(a.size(), 4u);
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

using namespace testing_extract;

TEST(RuleExtractorRobustnessTest, OddInputsGiveNoCrashAndNoCandidates) {
  const std::string long_text(20000, 'a');
  for (const std::string& text : {std::string(""),
                                  std::string("I"),
                                  std::string("my"),
                                  std::string("我"),
                                  std::string("我的"),
                                  std::string("I'm"),
                                  std::string("...!!!???"),
                                  std::string("\xff\xfe invalid"),
                                  std::string("🙂🙂🙂"),
                                  std::string("I am a"),
                                  std::string("my name is"),
                                  std::string("我叫"),
                                  std::string("我对过敏"),
                                  std::string("我是患者"),
                                  std::string("9999年前我"),
                                  long_text,
                                  std::string("I live in"),
                                  std::string("every"),
                                  std::string("I have a"),
                                  std::string("我在工作"),
                                  std::string("不是而是"),
                                  std::string("，，，我，，")}) {
    auto c = Extract(text);
    for (const Candidate& cand : c) EXPECT_FALSE(cand.content.empty()) << text;
    EXPECT_LE(c.size(), 1u) << text;
  }
}

TEST(RuleExtractorRobustnessTest, OneExtractorServesManyThreads) {
  auto extractor = MakeRuleExtractor();
  const std::vector<std::string> texts = {"I live in Oslo and I love skiing.",
                                          "我住在上海，喜欢喝咖啡。", "Next Friday I have an exam.",
                                          "我不再喜欢咖啡了"};
  std::vector<std::vector<std::string>> expected;
  for (const std::string& t : texts) {
    ExtractionInput in;
    in.turns.push_back(Turn{"user", t, kAt, ""});
    std::vector<std::string> contents;
    auto r = extractor->Extract(in);
    for (const Candidate& c : r->candidates) contents.push_back(c.content);
    expected.push_back(contents);
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&] {
      for (int round = 0; round < 200; ++round) {
        for (size_t i = 0; i < texts.size(); ++i) {
          ExtractionInput in;
          in.turns.push_back(Turn{"user", texts[i], kAt, ""});
          std::vector<std::string> contents;
          auto r = extractor->Extract(in);
          for (const Candidate& c : r->candidates) contents.push_back(c.content);
          if (contents != expected[i]) ++mismatches;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace engram
