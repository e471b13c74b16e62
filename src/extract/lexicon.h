// Word lists the rule extractor reads clauses with (both languages): devices and their kinds,
// languages, activities, amount topics, people, and the cues that decide a statement's type and
// importance. Internal to src/extract/; immutable after first use, thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/memory.h"

namespace engram::extract {

// The kind of a device a brand or model names: "phone" (iPhone, Pixel, 小米), "laptop"
// (MacBook, ThinkPad, 戴尔), "tablet", "ereader" (Kindle, 文石), "car" (Tesla, 比亚迪), "watch",
// "console"; empty when `word` names none. English words are matched case-insensitively.
std::string_view DeviceKind(std::string_view word);
// A device kind from a generic noun: "phone", "手机" → "phone"; "laptop", "电脑" → "laptop".
std::string_view DeviceNounKind(std::string_view word);

// A language's key ("spanish", "日语") when `word` names one ("Spanish", "mandarin", "日语",
// "韩语", "粤语"); empty otherwise.
std::string_view LanguageKey(std::string_view word);

// The activity key of a scheduled thing: "lessons", "class", "day", "课", "房" dropped and
// verbs folded ("swimming" → "swim", "健身房" → "健身"). Empty when nothing is left.
std::string ActivityKey(std::string_view phrase);

// The topic of an amount, from a word near it: "rent", "salary", "savings", "weight", "price",
// "allowance", "mortgage" (en and zh: 房租, 工资, 月薪, 体重, 生活费, 房贷); empty when none.
std::string_view AmountTopic(std::string_view word);

// A person the user knows, by what the user calls them: relation words ("wife", "mom", "老公",
// "女儿", "闺蜜", "同事") → a canonical key ("wife", "mom", "husband", "daughter"); empty
// when `word` is not one.
std::string_view RelationKey(std::string_view word);
// True for relations that are the user's partner (wife, husband, girlfriend, 老公, 对象 …).
bool IsPartnerRelation(std::string_view key);

// The text names a pet or a breed (data/lexicon/{en,zh}/pets.tsv): Chinese as a substring,
// English as a whole lowercase word.
bool NamesPet(std::string_view text, bool zh);

// The word ends an organisation's name ("insurance" in "brightwell insurance", "Labs", "Inc"):
// organization_suffix of data/lexicon/en/graph_names.tsv, any case.
bool IsOrganizationSuffix(std::string_view word);

// `word` (or a phrase) stands whole in lower-case English `text`: no letter runs on into it on
// either side ("typo" in "a typo, sorry", not in "typography").
bool HasWord(std::string_view text, std::string_view word);

// A span of time said in Chinese ("两周", "三个月", "半年", "3天"): a count, then a unit of time.
// What follows 入职 or 干了 is how long, not where.
bool IsTimeSpanZh(std::string_view text);

// Health conditions and what a statement about them is keyed by: "asthma", "diabetes", "哮喘".
bool IsHealthWord(std::string_view word);
// Words about one's body or health that make a statement important: "allergic", "diagnosed",
// "medication", "过敏", "病", "药" …
bool HasHealthCue(std::string_view lower_text);

// How much a statement matters, from cues in its (lower-cased) text: health, allergy, safety,
// identity, money, family and "remember this" raise it; passing moods lower it. `base` is the
// kind's importance.
double ImportanceFromCues(std::string_view lower_text, double base);

// A message that asks to be remembered ("remember this", "don't forget", "记住", "别忘了") or
// states a safety fact ("allergic", "EpiPen", "过敏", "血型"): what it says is critical
// (include/engram/lifecycle.h: never forgotten automatically). Lower-cased text.
bool CriticalCue(std::string_view lower_text);
// A slot about health or safety, the user's or someone else's: allergies, health conditions,
// medication, blood type.
bool CriticalSlot(std::string_view slot);

// A type from cue words ("decided" → decision, "promised" → commitment, "I think" → opinion,
// "want to" → goal), or nullopt when the text has none.
std::optional<MemoryType> TypeFromCues(std::string_view lower_text, bool zh);

// True for a passing mood or reaction ("I'm so tired", "好累", "我很难过"): kept, but
// unimportant.
bool IsPassingMood(std::string_view lower_text, bool zh);

}  // namespace engram::extract
