#include "extract/candidate_json.h"

#include "engram/clock.h"

namespace engram {

nlohmann::ordered_json CandidateToJson(const Candidate& c, int utc_offset_minutes) {
  using ordered_json = nlohmann::ordered_json;
  ordered_json valid_from;  // null
  if (c.valid_from) {
    valid_from =
        FormatTimestamp(*c.valid_from + int64_t{utc_offset_minutes} * 60'000).substr(0, 10);
  }
  ordered_json expires;  // null: never; else the last day it holds
  if (c.expires_at) {
    expires =
        FormatTimestamp(*c.expires_at - 1 + int64_t{utc_offset_minutes} * 60'000).substr(0, 10);
  }
  return {{"type", std::string(ToString(c.type))},
          {"content", c.content},
          {"importance", c.importance},
          {"confidence", c.confidence},
          {"entities", c.entities},
          {"slot", c.slot},
          {"exclusive", c.exclusive},
          {"correction", c.correction},
          {"valid_from", valid_from},
          {"turn", c.turn_indexes.empty() ? 0 : c.turn_indexes.front()},
          {"value", c.value},
          {"ends", c.ends},
          {"expires", expires},
          {"critical", c.critical}};
}

}  // namespace engram
