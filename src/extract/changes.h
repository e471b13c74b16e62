// A change of one of the user's one-valued attributes said in words no frame reads ("officially
// a Portland resident now", "got hired at Costco as a baker", "跳槽去拼多多了"): the words are
// data (data/lexicon/{en,zh}/changes.tsv). Stateless and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace engram::extract {

// The attribute ("location", "employer", "job", "partner", "school", "diet") a statement says
// is new now: it has a change cue and the words of exactly that one attribute; "" otherwise
// (no cue, no attribute, or two: "我现在住的地方离公司很近" is neither a move nor a new job).
// English is matched as whole lowercase words, Chinese as substrings.
std::string ChangedAttribute(std::string_view text, bool zh);

// The text's first word is a change cue ("officially a Portland resident now", "finally moved
// out"): a clause without a subject that leads with one speaks of the speaker.
bool LeadsWithChange(std::string_view text, bool zh);

// The first city of places.tsv the text names, as the text writes it ("Toledo" in "User grew up
// in Toledo"); "" when none. English whole words, case-insensitively; Chinese substrings.
std::string CityIn(std::string_view text, bool zh);

// `phrase` is a city of places.tsv, whole ("tucson", "salt lake city", "鞍山"; any case).
bool IsKnownCity(std::string_view phrase, bool zh);

// The text says something is new or different now (a `cue` of changes.tsv: "now", "switched",
// "现在", "不再", …), whatever it is about.
bool HasChangeCue(std::string_view text, bool zh);

// The text uses the words of `attribute` in changes.tsv ("transfer", "campus", "转学" for school).
bool SaysAttribute(std::string_view text, std::string_view attribute, bool zh);

// The text says a value of `attribute` ("language", "medication", …: `switch_families` of
// changes.tsv) was taken up in place of the one before ("switched to Spanish", "改学西班牙语了",
// "换成了…"): the attribute's other values stop holding, though it can hold several at once.
bool SwitchesWithin(std::string_view text, std::string_view attribute, bool zh);

}  // namespace engram::extract
