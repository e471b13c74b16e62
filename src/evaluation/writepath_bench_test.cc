// The write-path corpus (bench/data/writepath, in the repository) played through the real write
// path: the built-in rules must keep what users say in at least 90% of the cases in each
// language, and the bench must report malformed cases and missing files.
#include "evaluation/writepath_bench.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/test_support.h"

namespace engram {
namespace {

TEST(WritePathCorpusTest, TheRulesKeepWhatUsersSayInBothLanguages) {
  testing::TempDir work;
  WritePathBenchOptions options;
  options.data_dir = std::string(ENGRAM_SOURCE_DIR) + "/bench/data/writepath";
  options.work_dir = work.path();
  auto report = RunWritePathBench(options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->by_language.count("en"), 1u);
  ASSERT_EQ(report->by_language.count("zh"), 1u);
  std::string failed;
  for (const WritePathCaseResult& c : report->cases) {
    if (c.passed) continue;
    failed += "\n" + c.id + ":";
    for (const std::string& f : c.failures) failed += "\n  " + f;
  }
  for (const char* lang : {"en", "zh"}) {
    const PassCount& n = report->by_language.at(lang);
    EXPECT_GE(n.total, 150) << lang;  // the corpus is not silently cut short
    EXPECT_GE(n.Rate(), 0.90) << lang << ": " << n.passed << "/" << n.total << failed;
  }
  // every category is represented in both languages
  for (const char* category :
       {"new_fact", "change", "correction", "chitchat", "relative_date", "paraphrase_duplicate",
        "multi_clause", "third_person", "plan", "reported_speech", "pii"}) {
    ASSERT_EQ(report->by_category.count(category), 1u) << category;
    EXPECT_GT(report->by_category.at(category).at("en").total, 0) << category;
    EXPECT_GT(report->by_category.at(category).at("zh").total, 0) << category;
  }
}

TEST(WritePathCorpusTest, MalformedCasesAndMissingFilesAreNamed) {
  testing::TempDir data, work;
  WritePathBenchOptions options;
  options.data_dir = data.path();
  options.work_dir = work.path();
  options.language = "en";
  auto missing = RunWritePathBench(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  std::ofstream(data.File("en.jsonl"))
      << R"({"id": "ok-1", "lang": "en", "category": "new_fact", "messages": [{"text": "I live in Oslo", "at": "2026-06-15T10:00:00Z"}], "expect": {"active": [{"all": ["Oslo"]}]}})"
      << "\n"
      << R"({"id": "bad-1", "lang": "en", "category": "new_fact", "messages": [{"text": "x", "at": "yesterday"}], "expect": {}})"
      << "\n";
  auto bad = RunWritePathBench(options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("en.jsonl"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("2"), std::string::npos) << bad.status().message();
  // one good case, and one expectation that does not hold, counted as such
  std::ofstream(data.File("en.jsonl"), std::ios::trunc)
      << R"({"id": "ok-1", "lang": "en", "category": "new_fact", "messages": [{"text": "I live in Oslo", "at": "2026-06-15T10:00:00Z"}], "expect": {"active": [{"all": ["Oslo"]}], "dates": [{"all": ["Oslo"], "valid_from": "2026-06-15"}]}})"
      << "\n"
      << R"({"id": "no-1", "lang": "en", "category": "new_fact", "messages": [{"text": "I live in Oslo", "at": "2026-06-15T10:00:00Z"}], "expect": {"active": [{"all": ["Bergen"]}]}})"
      << "\n";
  auto run = RunWritePathBench(options);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->cases.size(), 2u);
  EXPECT_TRUE(run->cases[0].passed);
  EXPECT_FALSE(run->cases[1].passed);
  ASSERT_FALSE(run->cases[1].failures.empty());
  EXPECT_NE(run->cases[1].failures[0].find("all[bergen]"), std::string::npos)
      << run->cases[1].failures[0];
  EXPECT_EQ(run->by_language.at("en").passed, 1);
  EXPECT_EQ(run->by_language.at("en").total, 2);
}

TEST(WritePathCorpusTest, AFolderThatHoldsARunIsRefused) {
  // A case's id is its user: a second run on the first one's store would mix the cases.
  testing::TempDir data, work;
  WritePathBenchOptions options;
  options.data_dir = data.path();
  options.work_dir = work.path();
  options.language = "en";
  std::ofstream(data.File("en.jsonl"))
      << R"({"id": "ok-1", "lang": "en", "category": "new_fact", "messages": [{"text": "I live in Oslo", "at": "2026-06-15T10:00:00Z"}], "expect": {"active": [{"all": ["Oslo"]}]}})"
      << "\n";
  auto first = RunWritePathBench(options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->cases.at(0).passed);
  auto second = RunWritePathBench(options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(second.status().message().find("already holds a run"), std::string::npos)
      << second.status().message();
}

}  // namespace
}  // namespace engram
