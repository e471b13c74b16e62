// Corrections that give only the new value ("sorry, I meant Dallas", "wait no, Ellie", "no
// wait, $700", "不对，是无锡"): the value read from such a clause, and the corrected statement
// made from the one it corrects. Used by the rule extractor within a message and by the write
// path across messages. Stateless and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace engram::extract {

// The new value of a clause that is nothing but a corrected value, said after a correction
// marker: "Dallas", "I meant Dutch", "Honda Accord", "$700", "5th", "June 18", "是无锡", "八岁了",
// "her name is Miso"; nullopt for anything longer or with a verb of its own.
std::optional<std::string> BareCorrectionValue(std::string_view clause, bool zh);

// `content` with `old_value` replaced by `new_value`; when old_value is empty or not in it, the
// span that has the new value's shape: a number ("34" → "43", "$500" → "$700", "七岁" →
// "八岁"), a date, or a capitalized name sharing the new value's first word ("Honda Civic" →
// "Honda Accord") or else the last one. nullopt when nothing fits.
std::optional<std::string> ReplaceValue(std::string_view content, std::string_view old_value,
                                        std::string_view new_value);

}  // namespace engram::extract
