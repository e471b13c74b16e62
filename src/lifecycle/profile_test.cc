// The user profile: sections by slot and type, citations, what is left out, regeneration as
// memories change, and the text for a prompt within a budget.
#include "engram/profile.h"

#include <gtest/gtest.h>

#include "testing/test_support.h"
#include "text/token_counter.h"

namespace engram {
namespace {

constexpr TimestampMs kDay = 86'400'000;
constexpr TimestampMs kT0 = 1'780'000'000'000;  // 2026-05-28

class ProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = testing::OpenEngine(dir_.File("p.db"), &clock_);
    ASSERT_NE(engine_, nullptr);
  }
  MemoryItem Add(std::string content, MemoryType type, std::string slot, double importance = 0.7,
                 std::string extractor = "rules-v2") {
    NewMemory m;
    m.content = std::move(content);
    m.type = type;
    m.slot = std::move(slot);
    m.importance = importance;
    m.source.extractor = std::move(extractor);
    auto item = engine_->Add(alice_, m);
    EXPECT_TRUE(item.ok()) << item.status().ToString();
    clock_.Advance(1000);
    return item.ok() ? *item : MemoryItem{};
  }
  // section kind → the texts of its lines, in order.
  std::map<std::string, std::vector<std::string>> Sections() {
    auto profile = engine_->GetProfile(alice_);
    EXPECT_TRUE(profile.ok()) << profile.status().ToString();
    std::map<std::string, std::vector<std::string>> out;
    if (!profile.ok()) return out;
    for (const ProfileSection& s : profile->sections) {
      for (const ProfileLine& l : s.lines) out[s.kind].push_back(l.text);
    }
    return out;
  }

  testing::TempDir dir_;
  ManualClock clock_{kT0};
  std::unique_ptr<Engine> engine_;
  Scope alice_{"default", "alice", "", ""};
};

TEST_F(ProfileTest, GroupsLastingMemoriesByKindAndCitesThem) {
  const MemoryItem allergy =
      Add("User is allergic to peanuts", MemoryType::kFact, "user/allergy:peanut", 0.9);
  Add("User lives in Hangzhou", MemoryType::kFact, "user/location", 0.8);
  Add("User works at Alibaba", MemoryType::kFact, "user/employer", 0.8);
  Add("用户的女儿叫小雨", MemoryType::kFact, "女儿/name", 0.9);
  Add("User likes jazz", MemoryType::kPreference, "user/likes:jazz", 0.6);
  Add("User can't stand cilantro", MemoryType::kPreference, "", 0.6);
  Add("User wants to run a marathon", MemoryType::kGoal, "", 0.7);
  Add("User goes swimming every Tuesday", MemoryType::kFact, "user/routine", 0.5);
  Add("User thinks remote work is better", MemoryType::kOpinion, "", 0.5);
  // Left out: a kept turn, an event, something that expires, a deleted memory.
  Add("I'm allergic to peanuts", MemoryType::kMessage, "", 0.3, std::string(kTurnExtractor));
  Add("User went to a concert on 2026-05-01", MemoryType::kEvent, "", 0.5);
  NewMemory wish;
  wish.content = "User wants hotpot tonight";
  wish.type = MemoryType::kGoal;
  wish.expires_at = clock_.NowMs() + kDay;
  ASSERT_TRUE(engine_->Add(alice_, wish).ok());
  const MemoryItem gone = Add("User lives in Beijing", MemoryType::kFact, "user/hometown", 0.8);
  ASSERT_TRUE(engine_->Delete(alice_, gone.id).ok());

  auto sections = Sections();
  EXPECT_EQ(sections["health"], std::vector<std::string>{"User is allergic to peanuts"});
  EXPECT_EQ(sections["identity"], std::vector<std::string>{"User lives in Hangzhou"});
  EXPECT_EQ(sections["work"], std::vector<std::string>{"User works at Alibaba"});
  EXPECT_EQ(sections["family"], std::vector<std::string>{"用户的女儿叫小雨"});
  EXPECT_EQ(sections["likes"], std::vector<std::string>{"User likes jazz"});
  EXPECT_EQ(sections["dislikes"], std::vector<std::string>{"User can't stand cilantro"});
  EXPECT_EQ(sections["goals"], std::vector<std::string>{"User wants to run a marathon"});
  EXPECT_EQ(sections["habits"], std::vector<std::string>{"User goes swimming every Tuesday"});
  EXPECT_EQ(sections["other"], std::vector<std::string>{"User thinks remote work is better"});
  EXPECT_EQ(sections.size(), 9u);

  auto profile = engine_->GetProfile(alice_);
  ASSERT_TRUE(profile.ok());
  EXPECT_EQ(profile->sections.front().kind, "identity");  // the documented order
  EXPECT_EQ(profile->items, 9);
  for (const ProfileSection& s : profile->sections) {
    if (s.kind != "health") continue;
    EXPECT_EQ(s.lines.front().item_ids, std::vector<std::string>{allergy.id});
    EXPECT_EQ(s.lines.front().slot, "user/allergy:peanut");
  }
}

TEST_F(ProfileTest, FollowsTheMemoriesAsTheyChange) {
  const MemoryItem city = Add("User lives in Hangzhou", MemoryType::kFact, "user/location", 0.8);
  auto first = engine_->GetProfile(alice_);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->inputs_updated_at, city.updated_at);
  MemoryPatch moved;
  moved.content = "User lives in Shanghai";
  clock_.Advance(kDay);
  ASSERT_TRUE(engine_->Update(alice_, city.id, moved).ok());
  auto second = engine_->GetProfile(alice_);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->sections.at(0).lines.at(0).text, "User lives in Shanghai");
  EXPECT_EQ(second->inputs_updated_at, clock_.NowMs());
  MemoryPatch archived;
  archived.status = ItemStatus::kArchived;
  ASSERT_TRUE(engine_->Update(alice_, city.id, archived).ok());
  auto third = engine_->GetProfile(alice_);
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(third->sections.empty());
  EXPECT_EQ(third->inputs_updated_at, 0);
  // Another user's memories never enter it.
  NewMemory other;
  other.content = "Bob likes tea";
  other.type = MemoryType::kPreference;
  ASSERT_TRUE(engine_->Add(Scope{"default", "bob", "", ""}, other).ok());
  EXPECT_TRUE(engine_->GetProfile(alice_)->sections.empty());
}

TEST_F(ProfileTest, MostImportantFirstAndCapped) {
  for (int i = 0; i < 20; ++i) {
    Add("User likes band " + std::to_string(i), MemoryType::kPreference,
        "user/likes:band" + std::to_string(i), 0.3 + 0.01 * i);
  }
  ProfileOptions options;
  options.max_lines_per_section = 5;
  auto profile = engine_->GetProfile(alice_, options);
  ASSERT_TRUE(profile.ok());
  ASSERT_EQ(profile->sections.size(), 1u);
  ASSERT_EQ(profile->sections[0].lines.size(), 5u);
  EXPECT_EQ(profile->sections[0].lines[0].text, "User likes band 19");
  EXPECT_EQ(profile->sections[0].lines[4].text, "User likes band 15");
  options.max_lines_per_section = 0;
  EXPECT_EQ(engine_->GetProfile(alice_, options).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ProfileTest, TextKeepsTheMostImportantLinesWithinTheBudget) {
  Add("User is allergic to peanuts", MemoryType::kFact, "user/allergy:peanut", 0.9);
  Add("User likes jazz", MemoryType::kPreference, "user/likes:jazz", 0.4);
  Add("User works at Alibaba as a frontend engineer in the Hangzhou office", MemoryType::kFact,
      "user/employer", 0.8);
  auto profile = engine_->GetProfile(alice_);
  ASSERT_TRUE(profile.ok());
  const std::string all = ProfileText(*profile, 1000);
  EXPECT_EQ(all,
            "User profile:\n- work: User works at Alibaba as a frontend engineer in the Hangzhou "
            "office\n- health: User is allergic to peanuts\n- likes: User likes jazz\n");
  const int budget = CountTokens("User profile:\n- health: User is allergic to peanuts\n") + 2;
  const std::string small = ProfileText(*profile, budget);
  EXPECT_LE(CountTokens(small), budget);
  EXPECT_NE(small.find("peanuts"), std::string::npos);  // the most important line survives
  EXPECT_EQ(small.find("jazz"), std::string::npos);
  EXPECT_EQ(ProfileText(*profile, 2), "");
  EXPECT_EQ(ProfileText(Profile{}, 1000), "");
}

TEST_F(ProfileTest, LeadsTheContextWhenAsked) {
  Add("User is allergic to peanuts", MemoryType::kFact, "user/allergy:peanut", 0.9);
  Add("User booked a table at Din Tai Fung", MemoryType::kFact, "", 0.5);
  auto profile = engine_->GetProfile(alice_);
  ASSERT_TRUE(profile.ok());
  ContextRequest request;
  request.search.text = "dinner reservation";
  request.token_budget = 200;
  request.profile = ProfileText(*profile, 60);
  auto context = engine_->BuildContext(alice_, request);
  ASSERT_TRUE(context.ok());
  EXPECT_TRUE(context->profile);
  EXPECT_EQ(context->text.rfind("User profile:\n- health: User is allergic to peanuts\n", 0), 0u)
      << context->text;
  EXPECT_LE(context->tokens, 200);
  request.profile.clear();
  auto plain = engine_->BuildContext(alice_, request);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->profile);
  EXPECT_EQ(plain->text.find("User profile:"), std::string::npos);
}

TEST(ProfileBuilderTest, OneSetOfMemoriesGivesOneProfileWhateverTheOrder) {
  auto memory = [](std::string id, std::string content, std::string slot, TimestampMs at) {
    MemoryItem m;
    m.id = std::move(id);
    m.content = std::move(content);
    m.slot = std::move(slot);
    m.type = MemoryType::kFact;
    m.importance = 0.6;  // ties: the order comes from the time, then the id
    m.confidence = 1;
    m.status = ItemStatus::kActive;
    m.created_at = m.updated_at = at;
    return m;
  };
  const std::vector<MemoryItem> items = {
      memory("a1", "User likes hiking", "user/likes:hiking", kT0),
      memory("b2", "User likes tea", "user/likes:tea", kT0),
      memory("c3", "User works at Acme", "user/employer", kT0 + kDay)};
  ProfileBuilder forward({}), backward({});
  for (const MemoryItem& m : items) forward.Add(m);
  for (auto it = items.rbegin(); it != items.rend(); ++it) backward.Add(*it);
  const Profile a = forward.Finish(), b = backward.Finish();
  ASSERT_EQ(a.sections.size(), 2u);
  EXPECT_EQ(a.sections[1].lines[0].text, "User likes hiking");  // same time: by id
  EXPECT_EQ(ProfileFingerprint(a), ProfileFingerprint(b));
  EXPECT_EQ(ProfileFingerprint(a).size(), 16u);
  // A new version of one memory, or one memory fewer, is another profile.
  std::vector<MemoryItem> changed = items;
  changed[2].updated_at += 1000;
  ProfileBuilder c({});
  for (const MemoryItem& m : changed) c.Add(m);
  EXPECT_NE(ProfileFingerprint(c.Finish()), ProfileFingerprint(a));
  ProfileBuilder d({});
  d.Add(items[0]);
  d.Add(items[1]);
  EXPECT_NE(ProfileFingerprint(d.Finish()), ProfileFingerprint(a));
}

TEST(ProfileTextTest, ACurrentSummaryLeadsAndAStaleOneIsLeftOut) {
  Profile profile;
  profile.sections.push_back(ProfileSection{
      "health",
      {ProfileLine{
          "User is allergic to peanuts", {"m1"}, "user/allergy", MemoryType::kFact, 0.9, kT0}}});
  profile.summary = ProfileSummary{
      "The user has a peanut allergy.", {"m1"}, "f", "m", "profile-v1", kT0, /*current=*/true};
  EXPECT_EQ(ProfileText(profile, 1000),
            "User profile:\nSummary: The user has a peanut allergy.\n- health: User is allergic "
            "to peanuts\n");
  // No room for it next to the lines it cites: the lines alone.
  EXPECT_EQ(ProfileText(profile, 20), "User profile:\n- health: User is allergic to peanuts\n");
  profile.summary->current = false;
  EXPECT_EQ(ProfileText(profile, 1000), "User profile:\n- health: User is allergic to peanuts\n");
}

}  // namespace
}  // namespace engram
