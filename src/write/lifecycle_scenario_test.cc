// The lifecycle end to end: 180 simulated days of one user's conversations, in English and in
// Chinese, through the real write path (rules) with a maintenance run at the end of every day,
// on a clock set to real 2026 dates. At checkpoints: what is active, archived and purged.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "engram/profile.h"
#include "write/writer_test_util.h"

namespace engram {
namespace {

using namespace testing_write;

// What the user says: on which day (0 = Monday 2026-06-15), at 10:00 UTC.
struct Said {
  int day;
  std::string text;
};

// One language's script and the words that find each memory in it.
struct Script {
  std::string name;
  std::vector<Said> said;
  std::string allergy, daughter, job, wish, trip, passport, jazz, weather;
  std::string jazz_query;
};

Script English() {
  Script s;
  s.name = "en";
  s.said = {{0, "I'm allergic to peanuts"},
            {0, "My daughter is called Emma"},
            {0, "I work as a nurse at St. Mary's hospital"},
            {1, "Today I want to eat Sichuan food"},
            {2, "This week I'm in Tokyo for work"},
            {3, "The weather was nice on my walk this morning"},
            {10, "Remember this: my passport number ends in 42"},
            {30, "I like jazz"}};
  s.allergy = "allergic to peanuts";
  s.daughter = "Emma";
  s.job = "nurse";
  s.wish = "Sichuan food";
  s.trip = "Tokyo";
  s.passport = "passport";
  s.jazz = "jazz";
  s.weather = "weather was nice";
  s.jazz_query = "what music does she like, jazz?";
  return s;
}

Script Chinese() {
  Script s;
  s.name = "zh";
  s.said = {{0, "我对花生过敏"},
            {0, "我女儿叫小雨"},
            {0, "我在协和医院当护士"},
            {1, "今天想吃川菜"},
            {2, "我这周在东京出差"},
            {3, "今天早上散步，天气很好"},
            {10, "记住，我的护照号最后两位是42"},
            {30, "我喜欢爵士乐"}};
  s.allergy = "花生过敏";
  s.daughter = "小雨";
  s.job = "护士";
  s.wish = "川菜";
  s.trip = "东京";
  s.passport = "护照";
  s.jazz = "爵士乐";
  s.weather = "天气很好";
  s.jazz_query = "爵士乐";
  return s;
}

class LifecycleScenarioTest : public WriterTest, public ::testing::WithParamInterface<Script> {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.maintenance.purge_after_days = 30;  // so that purges happen within the 180 days
    engine_ = testing::OpenEngine(dir_.File("life.db"), &clock_, options);
    writer_ = std::make_unique<MemoryWriter>(engine_.get(), WriterOptions{});
  }

  // The items (any status) whose content contains `needle`, kept turns apart (and summaries
  // left out).
  std::vector<MemoryItem> Find(const std::string& needle, bool turns) {
    ListQuery q;
    q.statuses = {};
    std::vector<MemoryItem> out;
    for (MemoryItem& m : List(q, alice_)) {
      if (m.type == MemoryType::kSummary) continue;
      if (m.content.find(needle) != std::string::npos && IsKeptTurn(m) == turns) {
        out.push_back(std::move(m));
      }
    }
    return out;
  }
  // The status of the one memory (not turn) mentioning `needle`; kDeleted when none is left.
  ItemStatus MemoryStatus(const std::string& needle) {
    auto found = Find(needle, false);
    EXPECT_LE(found.size(), 1u) << needle;
    return found.empty() ? ItemStatus::kDeleted : found.front().status;
  }
  ItemStatus TurnStatus(const std::string& needle) {
    auto found = Find(needle, true);
    EXPECT_LE(found.size(), 1u) << needle;
    return found.empty() ? ItemStatus::kDeleted : found.front().status;
  }

  std::unique_ptr<MemoryWriter> writer_;
};

TEST_P(LifecycleScenarioTest, OneHundredEightyDays) {
  const Script& s = GetParam();
  std::map<int, std::function<void()>> checkpoints;
  checkpoints[0] = [&] {
    EXPECT_EQ(MemoryStatus(s.allergy), ItemStatus::kActive);
    const MemoryItem allergy = Find(s.allergy, false).front();
    EXPECT_NE(std::find(allergy.tags.begin(), allergy.tags.end(), kCriticalTag),
              allergy.tags.end());
    EXPECT_FALSE(allergy.expires_at.has_value());  // an allergy never lapses
  };
  checkpoints[1] = [&] {
    // Said on day 1 for that day: it lapsed at midnight and maintenance archived it.
    EXPECT_EQ(MemoryStatus(s.wish), ItemStatus::kArchived);
    const MemoryItem wish = Find(s.wish, false).front();
    ASSERT_TRUE(wish.expires_at.has_value());
    EXPECT_EQ(*wish.expires_at, Day(2026, 6, 17));
  };
  checkpoints[2] = [&] {
    // "This week": still current until the week ends (Monday 2026-06-22 00:00).
    EXPECT_EQ(MemoryStatus(s.trip), ItemStatus::kActive);
    EXPECT_EQ(*Find(s.trip, false).front().expires_at, Day(2026, 6, 22));
  };
  checkpoints[7] = [&] { EXPECT_EQ(MemoryStatus(s.trip), ItemStatus::kArchived); };
  checkpoints[10] = [&] {
    const MemoryItem passport = Find(s.passport, false).front();
    EXPECT_NE(std::find(passport.tags.begin(), passport.tags.end(), kCriticalTag),
              passport.tags.end());  // "remember this": critical
  };
  checkpoints[40] = [&] {
    // The expired wish was archived on day 1; 30 days of grace later it is gone.
    EXPECT_EQ(MemoryStatus(s.wish), ItemStatus::kDeleted);
    EXPECT_EQ(TurnStatus(s.weather), ItemStatus::kActive);
  };
  checkpoints[120] = [&] {
    // A kept turn (importance 0.3, half-life 30 days) fades below 0.05 after ~111 days: alone
    // on its day it is archived; the three turns of day 0 became one summary they point to.
    EXPECT_EQ(TurnStatus(s.weather), ItemStatus::kArchived);
    ListQuery q;
    q.types = {MemoryType::kSummary};
    std::vector<MemoryItem> summaries = List(q, alice_);
    ASSERT_EQ(summaries.size(), 1u);
    EXPECT_NE(summaries[0].content.find(s.allergy), std::string::npos) << summaries[0].content;
    EXPECT_NE(summaries[0].content.find(s.daughter), std::string::npos) << summaries[0].content;
    EXPECT_EQ(summaries[0].source.turn_ids.size(), 3u);
    for (const std::string& id : summaries[0].source.turn_ids) {
      auto turn = engine_->Get(alice_, id);
      ASSERT_TRUE(turn.ok());
      EXPECT_EQ(turn->status, ItemStatus::kArchived);
      EXPECT_EQ(turn->superseded_by, summaries[0].id);
    }
  };
  checkpoints[179] = [&] {
    EXPECT_EQ(TurnStatus(s.weather), ItemStatus::kDeleted);  // purged 30 days later
    // What matters stays: critical facts, lasting facts, and a preference kept in use.
    EXPECT_EQ(MemoryStatus(s.allergy), ItemStatus::kActive);
    EXPECT_EQ(MemoryStatus(s.passport), ItemStatus::kActive);
    EXPECT_EQ(MemoryStatus(s.daughter), ItemStatus::kActive);
    EXPECT_EQ(MemoryStatus(s.jazz), ItemStatus::kActive);
    EXPECT_FALSE(Find(s.job, false).empty());
    for (const MemoryItem& m : Find(s.job, false)) EXPECT_EQ(m.status, ItemStatus::kActive);
    // The profile: what lasts, by kind; nothing that lapsed or faded.
    auto profile = engine_->GetProfile(alice_);
    ASSERT_TRUE(profile.ok());
    std::map<std::string, std::string> sections;
    for (const ProfileSection& section : profile->sections) {
      for (const ProfileLine& line : section.lines) sections[section.kind] += line.text + "\n";
    }
    EXPECT_NE(sections["health"].find(s.allergy), std::string::npos) << sections["health"];
    EXPECT_NE(sections["work"].find(s.job), std::string::npos) << sections["work"];
    EXPECT_NE(sections["likes"].find(s.jazz), std::string::npos) << sections["likes"];
    for (const auto& [kind, text] : sections) {
      EXPECT_EQ(text.find(s.wish), std::string::npos) << kind;
      EXPECT_EQ(text.find(s.trip), std::string::npos) << kind;
    }
    // Every archive and purge is in the log with a reason.
    auto log = engine_->MaintenanceLog(alice_);
    ASSERT_TRUE(log.ok());
    int purges = 0;
    for (const MaintenanceLogEntry& e : *log) {
      EXPECT_FALSE(e.reason.empty());
      EXPECT_GE(e.at, kT0);
      purges += e.action == MaintenanceAction::kPurge;
    }
    EXPECT_GE(purges, 2);
  };

  size_t next = 0;
  for (int day = 0; day < 180; ++day) {
    const TimestampMs morning = kT0 + day * kDay;  // 10:00 UTC
    for (; next < s.said.size() && s.said[next].day == day; ++next) {
      clock_.Set(morning);
      auto r = writer_->Remember(alice_, {UserTurn(s.said[next].text, morning)});
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
    // From day 30 on, the user asks about music every ten days: a use of the preference.
    if (day >= 30 && day % 10 == 0) {
      clock_.Set(morning + 3'600'000);
      SearchQuery q;
      q.text = s.jazz_query;
      q.k = 1;
      auto hits = engine_->Search(alice_, q);
      ASSERT_TRUE(hits.ok());
      ASSERT_FALSE(hits->empty());
    }
    clock_.Set(kT0 + (day + 1) * kDay - 60'000);  // 09:59 the next day: that day's run
    auto report = engine_->Maintain(MaintenanceRequest{});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    if (auto c = checkpoints.find(day); c != checkpoints.end()) {
      SCOPED_TRACE(s.name + " day " + std::to_string(day));
      c->second();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Languages, LifecycleScenarioTest, ::testing::Values(English(), Chinese()),
                         [](const ::testing::TestParamInfo<Script>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace engram
