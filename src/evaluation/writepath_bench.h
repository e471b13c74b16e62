// The write-path corpus bench (`engram bench writepath`): conversation cases written for Engram
// (bench/data/writepath, format in its README) are played through the real write path —
// MemoryWriter over an Engine on a temporary SQLite file, with a clock set to each message's
// time — and what the store holds afterwards is checked against each case's expectations
// (active, superseded and absent memories, counts, dates, nothing stored, kept turns, search
// results). Pass rates by category and language.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engram/clock.h"
#include "engram/embedder.h"
#include "engram/extraction.h"
#include "engram/status.h"

namespace engram {

struct WritePathBenchOptions {
  std::string data_dir;                  // holds en.jsonl and zh.jsonl
  std::string language = "all";          // "en", "zh" or "all"
  std::string work_dir;                  // the temporary database goes here
  std::shared_ptr<Extractor> extractor;  // default: the rules
  // Makes the extractor from the bench's clock (an LLM extractor's "now"); used over
  // `extractor` when set.
  std::function<std::shared_ptr<Extractor>(const Clock*)> make_extractor;
  std::shared_ptr<ConflictResolver> resolver;  // default: the rules, with these thresholds
  RuleResolverOptions rules;
  std::shared_ptr<Embedder> embedder;  // default: hash, 384
  std::string only;                    // run the cases whose id contains this (empty: all)
  std::function<void(int64_t done, int64_t total)> progress;
};

struct WritePathCaseResult {
  std::string id;
  std::string lang;
  std::string category;
  bool added_after_failure = false;
  bool passed = false;
  std::vector<std::string> failures;  // what did not hold, one line each
  std::vector<std::string> stored;    // what the case's user holds afterwards, for reading
  // Messages whose extraction failed ("message 2: unavailable: …"); their turns are kept.
  std::vector<std::string> extraction_errors;
  int64_t kept_turns = 0;  // turns the write path kept for this case
  // Facts written (ADD, UPDATE, SUPERSEDE) holding a word or character the user never said in
  // this case (extract::UnsaidWords): text made by splicing. Not part of passing.
  int64_t splices = 0;
  // Sentences a fact was drawn from whose names or numbers (extract::KeyTokens) are in none of
  // the facts their message gave: a fact that lost the word that makes it useful.
  int64_t fragments = 0;
  std::vector<std::string> provenance;  // one line per splice or fragment, for reading
};

struct PassCount {
  int64_t passed = 0;
  int64_t total = 0;
  double Rate() const { return total == 0 ? 0 : static_cast<double>(passed) / total; }
};

struct WritePathReport {
  std::vector<WritePathCaseResult> cases;
  std::map<std::string, std::map<std::string, PassCount>> by_category;  // category → lang → n
  std::map<std::string, PassCount> by_language;
  std::map<std::string, int64_t> splices_by_language, fragments_by_language;
  int64_t added_after_failure = 0;
  double seconds = 0;
  int64_t messages = 0;
};

// InvalidArgument naming the file and line for a malformed case; NotFound for a missing file.
Result<WritePathReport> RunWritePathBench(const WritePathBenchOptions& options);

}  // namespace engram
