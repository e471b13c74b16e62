// Shared by the write-path tests: a scripted extractor, an engine on a realistic clock, and
// lookups that tell kept conversation turns from extracted memories.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engram/write_path.h"
#include "testing/test_support.h"
#include "text/time_expressions.h"

namespace engram::testing_write {

constexpr TimestampMs kDay = 86'400'000;
constexpr TimestampMs kMinute = 60'000;
// Monday 2026-06-15, 10:00 UTC: relative dates in these tests resolve from a real date.
inline const TimestampMs kT0 = DaysFromCivil(2026, 6, 15) * kDay + 10 * 3'600'000;
// 2000-01-01: no stored date may come out earlier (a 1970 date is a missing time).
inline const TimestampMs kY2k = DaysFromCivil(2000, 1, 1) * kDay;

inline TimestampMs Day(int y, unsigned m, unsigned d) { return DaysFromCivil(y, m, d) * kDay; }

// Replays a fixed list of results, one per call; remembers what it was given.
class ScriptedExtractor : public Extractor {
 public:
  explicit ScriptedExtractor(std::vector<Result<ExtractionResult>> script)
      : script_(std::move(script)) {}
  const std::string& name() const override { return name_; }
  Result<ExtractionResult> Extract(const ExtractionInput& input) override {
    seen.push_back(input);
    if (calls_ >= script_.size()) return ExtractionResult{{}, "scripted", ""};
    return script_[calls_++];
  }
  std::vector<ExtractionInput> seen;

 private:
  std::string name_ = "scripted";
  std::vector<Result<ExtractionResult>> script_;
  size_t calls_ = 0;
};

inline Candidate Cand(std::string content, std::string slot = "", bool exclusive = false) {
  Candidate c;
  c.content = std::move(content);
  c.slot = std::move(slot);
  c.exclusive = exclusive;
  c.turn_indexes = {0};
  return c;
}

inline Turn UserTurn(std::string content, TimestampMs at, std::string id = "") {
  return Turn{"user", std::move(content), at, std::move(id)};
}

// The writes of a result that are memories, not kept turns.
inline std::vector<WriteOutcome> Memories(const RememberResult& r) {
  std::vector<WriteOutcome> out;
  for (const WriteOutcome& w : r.writes) {
    if (!w.turn) out.push_back(w);
  }
  return out;
}
inline std::vector<WriteOutcome> Turns(const RememberResult& r) {
  std::vector<WriteOutcome> out;
  for (const WriteOutcome& w : r.writes) {
    if (w.turn) out.push_back(w);
  }
  return out;
}

class WriterTest : public ::testing::Test {
 protected:
  void SetUp() override { engine_ = testing::OpenEngine(dir_.File("w.db"), &clock_); }

  std::vector<MemoryItem> List(ListQuery q, const Scope& scope) {
    q.limit = 1000;
    auto page = engine_->List(scope, q);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    return page.ok() ? page->items : std::vector<MemoryItem>{};
  }
  // Active items, kept turns included.
  std::vector<MemoryItem> Active() { return List(ListQuery{}, alice_); }
  // Active extracted (or given) memories: no kept turns.
  std::vector<MemoryItem> ActiveMemories(const Scope& scope) {
    std::vector<MemoryItem> out;
    for (MemoryItem& m : List(ListQuery{}, scope)) {
      if (!IsKeptTurn(m)) out.push_back(std::move(m));
    }
    return out;
  }
  std::vector<MemoryItem> ActiveMemories() { return ActiveMemories(alice_); }
  std::vector<MemoryItem> KeptTurns() {
    std::vector<MemoryItem> out;
    for (MemoryItem& m : List(ListQuery{}, alice_)) {
      if (IsKeptTurn(m)) out.push_back(std::move(m));
    }
    return out;
  }
  std::vector<std::string> ActiveContents() {
    std::vector<std::string> out;
    for (const MemoryItem& m : Active()) out.push_back(m.content);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<MemoryItem> WithStatus(ItemStatus s) {
    ListQuery q;
    q.statuses = {s};
    return List(q, alice_);
  }
  bool MemoryMentions(const std::string& needle) {
    for (const MemoryItem& m : ActiveMemories()) {
      if (m.content.find(needle) != std::string::npos) return true;
    }
    return false;
  }

  testing::TempDir dir_;
  ManualClock clock_{kT0};
  std::unique_ptr<Engine> engine_;
  Scope alice_{"default", "alice", "", ""};
};

}  // namespace engram::testing_write
