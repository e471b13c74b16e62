// How people type to an assistant ("ive been vegetarian since i was 15", "thats why i moved",
// "ngl pottery is my whole life"), read as the rules expect it: each casual
// spelling with one reading becomes its standard form, and discourse markers that say nothing
// about the user go (data/lexicon/en/casual.tsv). Stateless and thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace engram::extract {

// `text` with every whole word the table lists replaced by its standard form ("im" → "I'm",
// "w/" → "with", "bc" → "because") or dropped ("ngl", "lol"), and the spaces and a comma a
// dropped word leaves behind closed up. Everything else is kept byte for byte. For English
// (Latin-script) text; Chinese needs none of it.
std::string NormalizeCasualEn(std::string_view text);

// Shouting read as speech: every word of a run of three or more words in capitals ("I HAVE A
// JITTERBUG FLIP PHONE", "MY SON DANIEL GOT HIS OWN APARTMENT") is lower-cased, since capitals
// there mark no name. An acronym among ordinary words ("moved to the ICU") keeps its case.
std::string UnshoutEn(std::string_view text);

// Terms of address after a courtesy ("Sorry ma, Funke", "thank you sir", "yes madam") go: they
// name no one the user speaks of, and a correction's value is what follows them.
std::string WithoutAddressTermsEn(std::string_view text);

// Chinese typed with spaces for commas ("在这待了七年 还是不习惯 推荐一下"): a run of spaces
// between two Chinese characters becomes "，", so each part is a clause of its own. Spaces
// beside a Latin word or a digit ("我在 Google 工作", "每周 3 次") stay.
std::string SpacesAsCommasZh(std::string_view text);

// A Chinese correction typed with no stop, at the start of a message or a clause: "不是浙大是浙工大
// 刚才语音识别错了" → "不是浙大，是浙工大，刚才语音识别错了" (the value taken back, the value, the
// slip's talk), as the correction reader reads it. "我不是不想去是没时间" is no correction and
// stays.
std::string CorrectionWithoutStopsZh(std::string_view text);

// A role the user says they speak from, as a statement of its own: "as a paralegal i live in
// westlaw" → "I am a paralegal. i live in westlaw"; "being a nurse in the ER is brutal" → "I am
// a nurse in the ER. being a nurse …"; "作为一个小学语文老师，我…" → "我是小学语文老师，我…".
// The role is at most five words (eight Chinese characters); anything else is kept as is.
std::string RolesAsStatements(std::string_view text, bool zh);

}  // namespace engram::extract
