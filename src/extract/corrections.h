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

// A correction typed with an asterisk ("corolla* not mazda", "*Dennis", "three*"): the starred
// word is the new value; "not …" after it names the old one. nullopt when no word is starred
// (or a pair of asterisks marks emphasis: "*so* good").
struct StarredCorrection {
  std::string value;
  std::string old_value;  // empty when not said
};
std::optional<StarredCorrection> StarCorrection(std::string_view clause);
// "fabia not octavia lol", "tuesday not monday", "8am not 7": a short value, "not", and the
// value taken back, with nothing else said (an interjection or a marker after it aside). Not
// a statement ("i'm vegan not vegetarian", "we went to the lake not the beach").
std::optional<StarredCorrection> ValueNotOld(std::string_view clause);

// The short subject of a "X is …" / "X是…" clause ("monday is gym" → "monday", "大连是我读研的
// 地方" → "大连", "7点是我老公出门" → "7点"): said after a correction's value, it is the value
// taken back. nullopt when the subject is a pronoun, the speaker, or longer than a value.
std::optional<std::string> SubjectValue(std::string_view clause, bool zh);

// True when `value` has a shape a memory's text can be searched for: a number (digits or an
// English number word) or a weekday. Such a correction fixes the newest memory holding a value
// of that shape, not merely the newest memory.
bool HasSearchableShape(std::string_view value);
// True when `value` names a day ("15th", "the 21st", "Sunday", "June 8th"): it corrects a date,
// and a memory that holds none is not what it corrects.
bool NamesADay(std::string_view value);
// True when `content` holds a date: a month's name beside a number, an ISO date, or a weekday.
bool HoldsADate(std::string_view content);
// How far the number of `content` nearest to the leading number of `value` is from it, as
// |log(a / b)| (0: the same number); nullopt when either has no number. "66 刚才手滑了" after
// "体重68 身高180" corrects the 68: a slip changes a number a little, not into another quantity.
std::optional<double> NumberDistance(std::string_view content, std::string_view value);

// The words of `content` that a typo correction to `value` fixes, as written there, or "": as
// many words as the value has, spelled almost alike and not the same ("whitfield" for
// "whitford": same first letter, at most a third of the letters changed; "王建国" for "王建华":
// three or more Chinese characters, one of them changed).
std::string NearSpelling(std::string_view content, std::string_view value);

// `content` with `old_value` replaced by `new_value`; when old_value is empty or not in it, the
// span that has the new value's shape: a number ("34" → "43", "$500" → "$700", "七岁" →
// "八岁", "two" → "three", "3rd floor" → "6th floor"), a weekday ("Mondays" → "Wednesdays"), a
// date, or a capitalized name sharing the new value's first word ("Honda Civic" → "Honda Accord")
// or else the last one. nullopt when nothing fits.
std::optional<std::string> ReplaceValue(std::string_view content, std::string_view old_value,
                                        std::string_view new_value);

}  // namespace engram::extract
