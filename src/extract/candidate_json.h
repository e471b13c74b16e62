// A candidate memory as a JSON object of the extraction contract (prompts/extract-v4.txt): the
// shape an LLM extractor must reply with, also printed by `engram extract` (so what the rules
// read can be inspected, or replayed as a model's reply in tests).
#pragma once

#include <nlohmann/json.hpp>

#include "engram/extraction.h"

namespace engram {

// {"type", "content", "importance", "confidence", "entities", "slot", "exclusive",
//  "correction", "valid_from" ("YYYY-MM-DD" of the users' local day, or null), "turn",
//  "value", "ends"}; keys in this order.
nlohmann::ordered_json CandidateToJson(const Candidate& c, int utc_offset_minutes = 0);

}  // namespace engram
