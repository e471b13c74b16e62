// Shared helpers of the rule extractor tests: one turn at a fixed instant, and lookups.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engram/extraction.h"
#include "text/time_expressions.h"

namespace engram::testing_extract {

constexpr TimestampMs kDay = 86'400'000;
// Monday 2026-11-30, 10:00 UTC: every relative date in the tests resolves from here.
inline const TimestampMs kAt = DaysFromCivil(2026, 11, 30) * kDay + 10 * 3'600'000;

inline TimestampMs Date(int y, unsigned m, unsigned d) { return DaysFromCivil(y, m, d) * kDay; }

inline std::vector<Candidate> Extract(const std::string& text, const std::string& role = "user",
                                      std::vector<Turn> context = {}) {
  static const auto extractor = MakeRuleExtractor();
  ExtractionInput in;
  in.turns.push_back(Turn{role, text, kAt, ""});
  in.context = std::move(context);
  auto r = extractor->Extract(in);
  EXPECT_TRUE(r.ok());
  return r.ok() ? r->candidates : std::vector<Candidate>{};
}

// The only candidate of `text`; fails the test when there is not exactly one.
inline Candidate One(const std::string& text) {
  auto c = Extract(text);
  EXPECT_EQ(c.size(), 1u) << text;
  return c.empty() ? Candidate{} : c.front();
}

}  // namespace engram::testing_extract
