// The extraction bench's scoring and loader, on fixtures written here (never the dataset).
#include "evaluation/extraction_bench.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace engram {
namespace {

const ExtractionRow& Row(const std::vector<ExtractionRow>& rows, std::string_view type) {
  for (const ExtractionRow& r : rows) {
    if (r.type == type) return r;
  }
  static const ExtractionRow kMissing;
  ADD_FAILURE() << "no row " << type;
  return kMissing;
}

TEST(ExtractionBenchTest, TypeMapping) {
  EXPECT_EQ(LabelTypeOf(MemoryType::kPreference), "preference");
  EXPECT_EQ(LabelTypeOf(MemoryType::kGoal), "commitment");
  EXPECT_EQ(LabelTypeOf(MemoryType::kFact), "fact");
  EXPECT_EQ(LabelTypeOf(MemoryType::kEvent), "fact");
  EXPECT_EQ(LabelTypeOf(MemoryType::kSkill), "fact");
}

TEST(ExtractionBenchTest, MultisetScoring) {
  ExtractionScore s;
  s.Add({"fact", "fact", "preference"}, {"fact", "decision"});  // 1 fact matched, 1 extra fact
  s.Add({}, {"opinion"});                                       // missed
  s.Add({"commitment"}, {"commitment", "commitment"});          // 1 of 2
  s.Add({"fact"}, {});                                          // a false positive snippet
  s.Add({}, {});
  EXPECT_EQ(s.snippets, 5);
  EXPECT_EQ(s.labelled_snippets, 3);
  EXPECT_EQ(s.detected_snippets, 2);
  EXPECT_EQ(s.unlabelled_snippets, 2);
  EXPECT_EQ(s.false_positive_snippets, 1);
  auto rows = ExtractionRows(s);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows.back().type, "overall");
  const ExtractionRow& fact = Row(rows, "fact");
  EXPECT_EQ(fact.counts.predicted, 3);
  EXPECT_EQ(fact.counts.labelled, 1);
  EXPECT_EQ(fact.counts.matched, 1);
  EXPECT_DOUBLE_EQ(fact.precision, 1.0 / 3);
  EXPECT_DOUBLE_EQ(fact.recall, 1.0);
  EXPECT_DOUBLE_EQ(fact.f1, 0.5);
  const ExtractionRow& decision = Row(rows, "decision");
  EXPECT_TRUE(std::isnan(decision.precision));  // never predicted
  EXPECT_DOUBLE_EQ(decision.recall, 0);
  EXPECT_TRUE(std::isnan(decision.f1));
  const ExtractionRow& preference = Row(rows, "preference");
  EXPECT_DOUBLE_EQ(preference.precision, 0);
  EXPECT_TRUE(std::isnan(preference.recall));  // never labelled
  const ExtractionRow& overall = rows.back();
  EXPECT_EQ(overall.counts.predicted, 5);
  EXPECT_EQ(overall.counts.labelled, 5);
  EXPECT_EQ(overall.counts.matched, 2);
  EXPECT_DOUBLE_EQ(overall.precision, 0.4);
  EXPECT_DOUBLE_EQ(overall.recall, 0.4);
}

class ExtractionBenchFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("engram-extraction-bench-" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::create_directories(dir_);
    Write("dataset.jsonl", R"({"id": "a", "text": "I live in Oslo and I love skiing."})"
                           "\n"
                           R"({"id": "b", "text": "Thanks, see you!"})"
                           "\n"
                           R"({"id": "c", "text": "We decided to ship on Monday."})"
                           "\n");
    Write("dataset.zh.jsonl", R"({"id": "a", "text": "我住在奥斯陆，我喜欢滑雪。"})"
                              "\n"
                              R"({"id": "b", "text": "谢谢，再见！"})"
                              "\n"
                              R"({"id": "c", "text": "我们决定周一发布。"})"
                              "\n");
    Write(
        "labels.jsonl",
        R"({"id": "a", "memories": [{"type": "fact", "content": "Lives in Oslo."}, {"type": "preference", "content": "Loves skiing."}]})"
        "\n"
        R"({"id": "b", "memories": []})"
        "\n"
        R"({"id": "c", "memories": [{"type": "decision", "content": "Ship on Monday."}]})"
        "\n");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::filesystem::path dir_;
};

TEST_F(ExtractionBenchFilesTest, ScoresBothLanguages) {
  for (const char* lang : {"en", "zh"}) {
    ExtractionBenchOptions options;
    options.data_path = dir_.string();
    options.language = lang;
    options.min_seconds = 0.01;
    auto r = RunExtractionBench(options);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->extractor, "rules-v2");
    EXPECT_EQ(r->score.snippets, 3) << lang;
    EXPECT_EQ(r->score.labelled_snippets, 2) << lang;
    EXPECT_EQ(r->score.detected_snippets, 2) << lang;  // the decision is read as one
    EXPECT_EQ(r->score.unlabelled_snippets, 1) << lang;
    EXPECT_EQ(r->score.false_positive_snippets, 0) << lang;
    EXPECT_EQ(Row(r->rows, "fact").counts.matched, 1) << lang;
    EXPECT_EQ(Row(r->rows, "preference").counts.matched, 1) << lang;
    EXPECT_EQ(Row(r->rows, "decision").counts.matched, 1) << lang;
    EXPECT_GT(r->extract.per_cpu_second, 0);
    EXPECT_GT(r->extract_embed.per_wall_second, 0);
  }
}

// Fails on the snippet "Thanks, see you!" and calls everything else a fact.
class FlakyExtractor : public Extractor {
 public:
  const std::string& name() const override { return name_; }
  Result<ExtractionResult> Extract(const ExtractionInput& input) override {
    ++calls;
    if (input.turns[0].content.find("Thanks") != std::string::npos) {
      return Status::Unavailable("provider down");
    }
    Candidate c;
    c.content = input.turns[0].content;
    c.type = MemoryType::kFact;
    return ExtractionResult{{c}, name_, "v1"};
  }
  int calls = 0;

 private:
  std::string name_ = "llm:fake";
};

TEST_F(ExtractionBenchFilesTest, AFailingSnippetIsCountedAndThroughputCanBeSkipped) {
  auto extractor = std::make_shared<FlakyExtractor>();
  ExtractionBenchOptions options;
  options.data_path = dir_.string();
  options.extractor = extractor;
  options.measure_throughput = false;
  std::vector<int64_t> progress;
  options.progress = [&](int64_t done, int64_t total) {
    EXPECT_EQ(total, 3);
    progress.push_back(done);
  };
  auto r = RunExtractionBench(options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->extractor, "llm:fake");
  EXPECT_EQ(r->failed, 1);
  EXPECT_NE(r->first_error.find("provider down"), std::string::npos);
  EXPECT_EQ(progress, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(extractor->calls, 3);  // once per snippet: no throughput loop
  EXPECT_EQ(r->extract.per_wall_second, 0);
  EXPECT_EQ(r->score.snippets, 3);
  EXPECT_EQ(r->score.false_positive_snippets, 0);  // the failed snippet predicted nothing
  EXPECT_EQ(Row(r->rows, "fact").counts.predicted, 2);
  EXPECT_EQ(Row(r->rows, "fact").counts.matched, 1);
}

TEST_F(ExtractionBenchFilesTest, ReportsMissingFilesAndBadLanguages) {
  ExtractionBenchOptions options;
  options.data_path = (dir_ / "nowhere").string();
  EXPECT_EQ(RunExtractionBench(options).status().code(), StatusCode::kNotFound);
  options.data_path = dir_.string();
  options.language = "fr";
  EXPECT_EQ(RunExtractionBench(options).status().code(), StatusCode::kInvalidArgument);
  Write("labels.jsonl", "not json\n");
  options.language = "en";
  EXPECT_EQ(RunExtractionBench(options).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace engram
