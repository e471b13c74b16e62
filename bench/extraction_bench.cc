// Write-path extraction throughput (issue 5 target: rule extraction + hash embedder
// ≥ 5,000 messages/s in-process, one core):
//   BM_RuleExtract          — MakeRuleExtractor on a mix of chat messages (zh and en)
//   BM_RuleExtractAndEmbed  — the same, plus hash-embedding each message and its candidates
// The messages are written here: self-statements, chit-chat, questions and longer turns.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "engram/embedder.h"
#include "engram/extraction.h"

namespace engram {
namespace {

const std::vector<std::string>& Messages() {
  static const std::vector<std::string> k = {
      "Hi! I'm Maya, I just moved to Lisbon last month and I work at a small design studio.",
      "I love hiking and swimming, but I can't stand crowded beaches.",
      "thanks, that helps",
      "What should I cook tonight?",
      "I'm allergic to shellfish, so please keep that in mind.",
      "My daughter Emma starts school next Monday.",
      "Next Friday I have a dentist appointment at 3pm.",
      "Actually, I live in Porto, not Lisbon.",
      "I want to learn Portuguese this year and run a half marathon.",
      "ok",
      "I have a dog named Biscuit and two cats.",
      "Every Wednesday I go to a pottery class after work.",
      "我叫王磊，去年搬到了杭州，现在在一家互联网公司上班。",
      "我喜欢喝咖啡，但是不喜欢香菜。",
      "哈哈，好的",
      "明天天气怎么样？",
      "我对花生过敏，还有点高血压。",
      "我养了一只猫，叫咪咪。",
      "下周五我要去看牙医。",
      "其实我不是在北京工作，而是在上海工作。",
      "我打算明年去日本旅游，顺便学点日语。",
      "我每周三晚上去游泳。",
      "The meeting notes are attached; let me know if anything is missing from the summary.",
      "我老婆是护士，我们有两个孩子。",
  };
  return k;
}

void BM_RuleExtract(benchmark::State& state) {
  auto extractor = MakeRuleExtractor();
  int64_t n = 0;
  for (auto _ : state) {
    for (const std::string& m : Messages()) {
      ExtractionInput in;
      in.turns.push_back(Turn{"user", m, 1'764'000'000'000, ""});
      auto r = extractor->Extract(in);
      benchmark::DoNotOptimize(r);
      ++n;
    }
  }
  state.counters["messages/s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RuleExtract)->Unit(benchmark::kMicrosecond);

void BM_RuleExtractAndEmbed(benchmark::State& state) {
  auto extractor = MakeRuleExtractor();
  auto embedder = std::move(MakeHashEmbedder({})).value();
  int64_t n = 0;
  for (auto _ : state) {
    for (const std::string& m : Messages()) {
      ExtractionInput in;
      in.turns.push_back(Turn{"user", m, 1'764'000'000'000, ""});
      auto r = extractor->Extract(in);
      std::vector<std::string> batch{m};
      for (const Candidate& c : r->candidates) batch.push_back(c.content);
      auto v = embedder->Embed(batch);
      benchmark::DoNotOptimize(v);
      ++n;
    }
  }
  state.counters["messages/s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RuleExtractAndEmbed)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace engram

BENCHMARK_MAIN();
