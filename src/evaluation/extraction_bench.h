// Extraction quality on the memory_extraction fixtures (../shared/datasets/README.md,
// "extraction"): each snippet is one user turn given to an extractor; the types of what it
// extracts are compared with the labelled memory types, and throughput is measured.
//
// The fixtures label memories as decision, preference, fact, opinion or commitment. Engram's
// types map onto them as: preference, opinion, decision and commitment → the same; goal →
// commitment (an intention the user undertakes); fact, event, skill (and any other type) → fact.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/embedder.h"
#include "engram/extraction.h"
#include "engram/memory.h"
#include "engram/status.h"

namespace engram {

inline constexpr std::array<std::string_view, 5> kExtractionLabelTypes = {
    "decision", "preference", "fact", "opinion", "commitment"};

// The label type an Engram memory type counts as.
std::string_view LabelTypeOf(MemoryType type);

struct TypeCounts {
  int64_t labelled = 0;
  int64_t predicted = 0;
  int64_t matched = 0;  // per snippet, min(predicted, labelled) of the type
};

// Item-level scoring: per snippet, the multiset of predicted label types against the
// multiset of labelled ones.
struct ExtractionScore {
  std::map<std::string, TypeCounts> by_type;
  int64_t snippets = 0;
  int64_t labelled_snippets = 0;        // with at least one label
  int64_t detected_snippets = 0;        // ... where at least one memory was extracted
  int64_t unlabelled_snippets = 0;      // with no label
  int64_t false_positive_snippets = 0;  // ... where something was extracted anyway

  void Add(const std::vector<std::string>& predicted, const std::vector<std::string>& labelled);
};

struct ExtractionRow {
  std::string type;  // a label type or "overall"
  TypeCounts counts;
  double precision = 0;  // NaN when nothing was predicted
  double recall = 0;     // NaN when nothing is labelled
  double f1 = 0;         // NaN when either is undefined
};

// Rows per label type, then "overall" (micro-averaged over all types).
std::vector<ExtractionRow> ExtractionRows(const ExtractionScore& score);

struct ExtractionBenchOptions {
  std::string data_path;                 // the memory_extraction folder
  std::string language = "en";           // "en" (dataset.jsonl) or "zh" (dataset.zh.jsonl)
  std::shared_ptr<Extractor> extractor;  // default: MakeRuleExtractor()
  std::shared_ptr<Embedder> embedder;    // for the throughput figure; default: hash, 384
  double min_seconds = 1.0;              // how long to measure throughput
  // Off for a remote model: its speed is the provider's, and measuring would resend every
  // snippet for min_seconds.
  bool measure_throughput = true;
  std::function<void(int64_t done, int64_t total)> progress;  // after each snippet, if set
};

// Messages per second on one thread, per second of that thread's CPU time (what the code costs,
// independent of other load on the machine) and per second of wall time.
struct Rate {
  double per_cpu_second = 0;
  double per_wall_second = 0;
};

struct ExtractionReport {
  std::string language;
  std::string extractor;
  std::string embedder;
  ExtractionScore score;
  std::vector<ExtractionRow> rows;
  int64_t candidates = 0;
  // Snippets whose extraction failed (a provider error): scored as predicting nothing.
  int64_t failed = 0;
  std::string first_error;
  // Extraction alone, and extraction plus embedding the message and its candidates (what the
  // write path does before it compares with stored memories).
  Rate extract;  // zero when not measured
  Rate extract_embed;
};

// NotFound when a file is missing; InvalidArgument for a malformed line or language.
Result<ExtractionReport> RunExtractionBench(const ExtractionBenchOptions& options);

}  // namespace engram
