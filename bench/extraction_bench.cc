// Write-path extraction throughput (issue 5 target: rule extraction + hash embedder
// ≥ 5,000 messages/s in-process, one core):
//   BM_RuleExtract          — MakeRuleExtractor on a mix of chat messages (zh and en)
//   BM_RuleExtractAndEmbed  — the same, plus hash-embedding each message and its candidates
//   BM_Remember             — the whole write path (MemoryWriter::Remember: privacy, rules,
//                             neighbours, decision, one committed transaction per decision) into
//                             one user's memories, synchronous=FULL as deployed
//   BM_AsyncSubmit          — what an async add costs its caller: persisting the job (JobQueue::
//                             Submit, one fsync'd transaction); reports p50/p99 in microseconds
// The messages are written here: self-statements, chit-chat, questions and longer turns.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "engram/embedder.h"
#include "engram/engine.h"
#include "engram/extraction.h"
#include "engram/jobs.h"
#include "engram/write_path.h"

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

// A fresh database under $TMPDIR for one benchmark, removed afterwards.
struct BenchDb {
  std::filesystem::path dir;
  std::unique_ptr<Engine> engine;
  BenchDb() {
    dir = std::filesystem::temp_directory_path() /
          ("engram-write-bench-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    EngineOptions o;
    o.path = (dir / "w.db").string();
    engine = std::move(Engine::Open(o)).value();
  }
  ~BenchDb() {
    engine.reset();
    std::filesystem::remove_all(dir);
  }
};

void BM_Remember(benchmark::State& state) {
  BenchDb db;
  MemoryWriter writer(db.engine.get(), WriterOptions{});
  const Scope scope{"default", "bench-user", "", ""};
  int64_t n = 0, stored = 0;
  for (auto _ : state) {
    for (const std::string& m : Messages()) {
      auto r = writer.Remember(scope, {Turn{"user", m, 0, ""}});
      if (!r.ok())
        state.SkipWithError(r.status().ToString().c_str());
      else
        stored += static_cast<int64_t>(r->writes.size());
      ++n;
    }
  }
  state.counters["messages/s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
  state.counters["writes/message"] = static_cast<double>(stored) / static_cast<double>(n);
}
BENCHMARK(BM_Remember)->Unit(benchmark::kMicrosecond)->MinTime(3.0);

void BM_AsyncSubmit(benchmark::State& state) {
  BenchDb db;
  auto queue = std::move(JobQueue::Open(db.engine.get(), JobQueueOptions{})).value();
  queue->Handle("remember", [](const Scope&, const std::string&, bool) -> Result<std::string> {
    return std::string();
  });  // not started: only the caller's side is measured
  const Scope scope{"default", "bench-user", "", ""};
  const std::string payload =
      R"({"user_id":"bench-user","agent_id":"","session_id":"","items":[{"turns":[{"role":"user",)"
      R"("content":"I just moved to Lisbon and I work at a design studio.","at":0,"id":""}],)"
      R"("tags":[],"metadata":{}}]})";
  std::vector<double> us;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    auto id = queue->Submit(scope, "remember", payload);
    auto t1 = std::chrono::steady_clock::now();
    if (!id.ok()) state.SkipWithError(id.status().ToString().c_str());
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  if (!us.empty()) {
    state.counters["p50_us"] = us[us.size() / 2];
    state.counters["p99_us"] = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  }
}
BENCHMARK(BM_AsyncSubmit)->Unit(benchmark::kMicrosecond)->Iterations(3000);

}  // namespace
}  // namespace engram

BENCHMARK_MAIN();
