// Retrieval quality harnesses: LoCoMo (evidence recall over dialogue turns) and MADial-Bench
// (memory recall), following the protocols in ../shared/datasets/README.md. Each run ingests the
// data into a fresh temporary database through the public Engine API and searches with the
// given options, so the figures measure exactly what users get.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engram/embedder.h"
#include "engram/search.h"
#include "engram/status.h"

namespace engram {

struct BenchOptions {
  std::string data_path;  // locomo10.json, or the madial-bench folder
  std::string work_dir;   // where the temporary database goes
  int k = 10;
  SearchQuery search;                  // fusion, weights, diversity (text and k are set per query)
  std::shared_ptr<Embedder> embedder;  // default: hash
  std::string language = "zh";         // madial: zh or en
  // madial: the last dialogue line is the query text and the earlier ones its recent turns;
  // false joins every line into one query text.
  bool split_turns = true;
  std::function<void(int64_t done, int64_t total)> progress;
};

// One row of a report: a category (or "overall") and its metrics by name.
struct BenchRow {
  std::string name;
  int64_t count = 0;
  std::map<std::string, double> metrics;
};

struct BenchReport {
  std::string dataset;
  std::string configuration;
  std::vector<std::string> metric_names;  // column order
  std::vector<BenchRow> rows;             // categories, then "overall"
  double ms_per_query = 0;
  int64_t memories = 0;
};

Result<BenchReport> RunLocomoBench(const BenchOptions& options);
Result<BenchReport> RunMadialBench(const BenchOptions& options);

}  // namespace engram
