// Proactive recall: from the conversation's latest turns and no question, the few memories worth
// raising unasked ("我明天要去爬山" → the pollen allergy; "book a table for Friday" → the peanut
// allergy and the partner's name), and nothing otherwise.
//
// Two kinds of evidence, both in Chinese and English:
//  - direct: the turns name what a memory that matters is about ("I bought peanut butter" and a
//    peanut allergy): its allergen, medication, condition or person;
//  - situational: the turns describe a situation (going outdoors, eating out or cooking,
//    travelling, drinking, exercising, a date or a gift, a doctor's visit, meeting animals) and
//    the user has a memory of a kind that situation puts at stake (an outdoor allergy, a food
//    allergy or diet, a passport or medication, a partner's name or likes...).
// A memory the turns themselves state is not raised (the user just said it). Only active
// memories are looked at; critical ones (include/engram/lifecycle.h) weigh most. The score is
// high only with evidence, and the threshold is high, so that it stays quiet otherwise.
#pragma once

#include <string>
#include <vector>

#include "engram/engine.h"

namespace engram {

struct RecallRequest {
  std::vector<std::string> turns;  // the latest turns, oldest first; the last one matters most
  int k = 3;                       // 1..20
  double min_score = 0.6;          // 0..1: below it nothing is raised
};

struct RecallHit {
  MemoryItem item;
  double score = 0;    // 0..1
  std::string reason;  // why it is worth raising: "the turns mention peanuts", "outdoors: …"
};

// The memories worth raising for `scope`'s user, best first (empty: stay quiet).
Result<std::vector<RecallHit>> Recall(Engine& engine, const Scope& scope,
                                      const RecallRequest& request);

}  // namespace engram
