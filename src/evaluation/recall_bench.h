// The proactive-recall corpus bench (`engram bench recall`): turn sequences written for Engram
// (bench/data/recall, format in its README), each with what its user said before, told through
// the real write path (rules) on a clock set to a real date, then the latest turns given to
// Recall (include/engram/recall.h). A case that expects a memory passes when a memory holding
// the expected words is among the top 3; a case that expects nothing passes when nothing is
// raised.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram {

struct RecallBenchOptions {
  std::string data_dir;          // holds en.jsonl and zh.jsonl
  std::string language = "all";  // "en", "zh" or "all"
  std::string work_dir;          // the temporary database goes here
};

struct RecallCaseResult {
  std::string id;
  std::string lang;
  bool expects = false;  // the case expects a memory to be raised
  bool passed = false;
  bool added_after_failure = false;
  std::vector<std::string> raised;  // what was raised, best first: "0.85 content (reason)"
};

struct RecallRates {
  int64_t surfaced = 0, should_surface = 0;  // the right memory in the top 3
  int64_t silent = 0, should_be_silent = 0;  // nothing raised
  double SurfaceRate() const {
    return should_surface == 0 ? 0 : static_cast<double>(surfaced) / should_surface;
  }
  double SilenceRate() const {
    return should_be_silent == 0 ? 0 : static_cast<double>(silent) / should_be_silent;
  }
};

struct RecallBenchReport {
  std::vector<RecallCaseResult> cases;
  std::map<std::string, RecallRates> by_language;
  RecallRates all;
};

// InvalidArgument naming the file and line for a malformed case; NotFound for a missing file.
Result<RecallBenchReport> RunRecallBench(const RecallBenchOptions& options);

}  // namespace engram
