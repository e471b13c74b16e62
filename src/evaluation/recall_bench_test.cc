// The proactive-recall corpus (bench/data/recall, in the repository) through the real write path
// and Recall: the right memory in the top 3 for at least 90% of the cases that need one, and
// nothing raised for at least 90% of the others; and malformed cases are named.
#include "evaluation/recall_bench.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testing/test_support.h"

namespace engram {
namespace {

TEST(RecallCorpusTest, RaisesWhatMattersAndStaysQuietOtherwise) {
  testing::TempDir work;
  RecallBenchOptions options;
  options.data_dir = std::string(ENGRAM_SOURCE_DIR) + "/bench/data/recall";
  options.work_dir = work.path();
  auto report = RunRecallBench(options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  std::string failed;
  for (const RecallCaseResult& c : report->cases) {
    if (c.passed) continue;
    failed += "\n" + c.id + ":";
    for (const std::string& r : c.raised) failed += "\n  " + r;
  }
  for (const char* lang : {"en", "zh"}) {
    ASSERT_EQ(report->by_language.count(lang), 1u) << lang;
    const RecallRates& r = report->by_language.at(lang);
    EXPECT_GE(r.should_surface, 25) << lang;  // the corpus is not silently cut short
    EXPECT_GE(r.should_be_silent, 25) << lang;
  }
  EXPECT_GE(report->all.should_surface + report->all.should_be_silent, 100);
  EXPECT_GE(report->all.SurfaceRate(), 0.90) << failed;
  EXPECT_GE(report->all.SilenceRate(), 0.90) << failed;
}

TEST(RecallCorpusTest, MalformedCasesAndMissingFilesAreNamed) {
  testing::TempDir work;
  RecallBenchOptions options;
  options.data_dir = work.path();
  options.work_dir = work.path();
  EXPECT_EQ(RunRecallBench(options).status().code(), StatusCode::kNotFound);
  std::ofstream(work.File("en.jsonl")) << R"({"id": "a", "memories": [], "turns": []})"
                                       << "\n";
  std::ofstream(work.File("zh.jsonl")) << "";
  auto bad = RunRecallBench(options);
  ASSERT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("en.jsonl:1"), std::string::npos)
      << bad.status().ToString();
}

}  // namespace
}  // namespace engram
