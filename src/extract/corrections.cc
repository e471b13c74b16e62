#include "extract/corrections.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "extract/clauses.h"
#include "extract/lexicon.h"
#include "text/find.h"
#include "text/utf8.h"

namespace engram::extract {
namespace {

std::string Lower(std::string_view s) { return LowerAscii(s); }

std::string Trim(std::string_view s) { return std::string(TrimCodepoints(s, U" ,.!;:—–-")); }

std::vector<std::string> SplitWords(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool HasDigit(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// English number words a corrected count is said with ("three*", "no, two")
bool IsNumberWord(std::string_view w) {
  static const std::vector<std::string_view> kWords = {
      "zero",     "one",     "two",     "three",     "four",     "five",     "six",
      "seven",    "eight",   "nine",    "ten",       "eleven",   "twelve",   "thirteen",
      "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"};
  return std::find(kWords.begin(), kWords.end(), Lower(w)) != kWords.end();
}

// Weekdays as typed: whole, plural ("tuesdays"), short ("tue", "thurs")
bool IsWeekdayWord(std::string_view w) {
  std::string low = Lower(w);
  if (low.size() > 3 && low.back() == 's' && low != "tues" && low != "thurs") low.pop_back();
  static const std::vector<std::string_view> kDays = {
      "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "mon", "tue",
      "tues",   "wed",     "thu",       "thur",     "thurs",  "fri",      "sat",    "sun"};
  return std::find(kDays.begin(), kDays.end(), low) != kDays.end();
}

std::string FirstWord(std::string_view s) {
  const std::string t = Trim(s);
  return t.substr(0, t.find(' '));
}

std::optional<std::string> EnglishValue(std::string_view clause) {
  // "*Dennis", "three*": the typist's mark at a word's edge goes; one inside a word ("m*st") is
  // part of what was typed
  std::string s;
  for (size_t i = 0; i < clause.size(); ++i) {
    const bool edge =
        clause[i] == '*' && (i == 0 || clause[i - 1] == ' ' || i + 1 == clause.size() ||
                             clause[i + 1] == ' ' || clause[i + 1] == ',' || clause[i + 1] == '.');
    if (!edge) s += clause[i];
  }
  s = Trim(s);
  // "97215 sorry fat fingers": a value, the marker, then talk of the slip
  for (std::string_view m :
       {" sorry ", " oops ", " whoops ", " my bad ", " typo ", " actually ", " lol "}) {
    const size_t k = Lower(s).find(m);
    if (k != std::string::npos && k > 0 && std::count(s.begin(), s.begin() + k, ' ') <= 2) {
      s = Trim(std::string_view(s).substr(0, k));
      break;
    }
  }
  // "30 actually", "wednesdays lol": a value said with a marker after it
  for (bool moved = true; moved;) {
    moved = false;
    const std::string low = Lower(s);
    for (std::string_view m : {" actually", " sorry", " i mean", " i think", " my bad", " oops"}) {
      if (low.ends_with(m)) {
        s = Trim(std::string_view(s).substr(0, s.size() - m.size()));
        moved = true;
      }
    }
  }
  // ("is 4th floor", "is November": the subject left out, as people writing a second
  // language often do)
  static const std::vector<std::string_view> kLeads = {
      "sorry",  "no",   "wait",    "actually",  "oops",   "typo",       "i meant",
      "i mean", "it's", "it is",   "make that", "rather", "correction", "my bad",
      "ugh",    "oh",   "i mean,", "or rather", "its",    "is"};
  for (bool moved = true; moved;) {
    moved = false;
    const std::string low = Lower(s);
    for (std::string_view m : kLeads) {
      if (low.starts_with(m) &&
          (low.size() == m.size() || !std::isalpha(static_cast<unsigned char>(low[m.size()])))) {
        s = Trim(std::string_view(s).substr(m.size()));
        moved = true;
        break;
      }
    }
  }
  const std::string low = Lower(s);
  // "her name is Miso", "his name's Leo"
  for (std::string_view lead : {"her name is ", "his name is ", "its name is ", "their name is ",
                                "her name's ", "his name's ", "the name is "}) {
    if (low.starts_with(lead)) {
      std::string v = Trim(std::string_view(s).substr(lead.size()));
      if (!v.empty() && SplitWords(v).size() <= 3) return v;
    }
  }
  // "Forgive me.", "my mistake": a marker alone names no value
  if (IsCorrectionLead(s)) return std::nullopt;
  std::vector<std::string> words = SplitWords(s);
  // "O positive i always mix them up": a new subject starts the talk of the slip (not "gluten
  // i can't have", which says what the value is)
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string w = Lower(words[i]);
    if (w != "i" && w != "i'm" && w != "im" && w != "i've") continue;
    std::string rest;
    for (size_t k = i; k < words.size(); ++k) rest += (rest.empty() ? "" : " ") + words[k];
    if (NamesSlipWord(rest, false)) {
      words.resize(i);
      std::string cut;
      for (const std::string& x : words) cut += (cut.empty() ? "" : " ") + x;
      s = Trim(cut);
      break;
    }
  }
  // "sorry, my aunt": the person corrected, by what the user calls them
  if (words.size() == 2 && Lower(words[0]) == "my") {
    std::string who = words[1];
    while (!who.empty() && std::ispunct(static_cast<unsigned char>(who.back()))) who.pop_back();
    if (!RelationKey(Lower(who)).empty()) return who;
  }
  if (words.empty() || words.size() > 4) return std::nullopt;
  static const std::vector<std::string_view> kVerbs = {
      "i",      "i'm",  "is",   "am",  "are",         "was",   "were", "have",  "has",
      "live",   "work", "my",   "we",  "you",         "it",    "that", "this",  "he",
      "she",    "they", "do",   "did", "got",         "keep",  "get",  "go",    "the",
      "lol",    "haha", "long", "day", "autocorrect", "brain", "fart", "again", "strikes",
      "thanks", "ok",   "okay", "yes", "yeah"};
  for (const std::string& w : words) {
    if (std::find(kVerbs.begin(), kVerbs.end(), Lower(w)) != kVerbs.end()) return std::nullopt;
  }
  // a value is a name, a number or a short noun phrase; a bare common word is not ("first")
  const bool capital = std::isupper(static_cast<unsigned char>(words[0][0]));
  if (!capital && !HasDigit(s) && words.size() > 2) return std::nullopt;
  return s;
}

std::optional<std::string> ChineseValue(std::string_view clause) {
  // "张炜*": the typist's mark for a fixed word; a star between two letters or digits stays, or
  // it would join them into a word nobody typed ("baby*chi10")
  std::string s;
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (size_t i = 0; i < clause.size(); ++i) {
    const char c = clause[i];
    if (c == '*' &&
        !(i > 0 && i + 1 < clause.size() && alnum(clause[i - 1]) && alnum(clause[i + 1]))) {
      continue;
    }
    s += c;
  }
  static const std::vector<std::string_view> kLeads = {
      "哦不对", "啊不对", "不对",   "哦不是",     "啊不是",   "不是",   "说错了",   "哦不",
      "啊不",   "应该是", "我是说", "我的意思是", "我说的是", "是",     "哦",       "啊",
      "嗯",     "，",     ",",      " ",          "刚才",     "打错了", "不好意思", "抱歉"};
  static const std::vector<std::string_view> kTrails = {"了",   "啊", "哈", "吧", "呀",
                                                        "才对", "。", "！", " "};
  StripLeadingWords(&s, kLeads);
  // "哦不对" alone: the marker, no value (the leads never strip a clause to nothing)
  if (std::find(kLeads.begin(), kLeads.end(), s) != kLeads.end() || s == "不" || s == "不不" ||
      s == "不不不") {
    return std::nullopt;
  }
  // "65 刚才看错了", "iPhone 12 不是13": a number or Latin value, then what the user says about it
  if (const size_t sp = s.find(' ');
      sp != std::string::npos && sp > 0 &&
      std::all_of(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(sp),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    size_t end = sp;
    // "iPhone 12": Latin words run on; the value ends before the first Chinese character
    while (end < s.size() && static_cast<unsigned char>(s[end]) < 0x80) ++end;
    std::string value = Trim(s.substr(0, end));
    if (!value.empty() && end < s.size()) s = value;
  }
  StripTrailingWords(&s, kTrails);
  // "是我爸 不是我妈": the person corrected, by what the user calls them
  if (s.starts_with("我") && !RelationKey(std::string_view(s).substr(3)).empty()) s.erase(0, 3);
  if (s.empty() || s.size() > 24) return std::nullopt;
  for (std::string_view bad : {"我", "你", "他", "她", "说", "打错", "记", "搞", "糊涂", "错"}) {
    if (ContainsText(s, bad)) return std::nullopt;
  }
  return s;
}

// The byte span of the first number-like token of `s` (digits, or Chinese numerals with a unit).
std::optional<std::pair<size_t, size_t>> NumberSpan(std::string_view s, bool want_zh) {
  static const std::string_view kNumerals = "零一二两三四五六七八九十百千万";
  for (size_t i = 0; i < s.size();) {
    auto b = static_cast<unsigned char>(s[i]);
    const size_t n = CodepointLength(s, i);
    const bool digit = std::isdigit(b) || (s[i] == '$' && i + 1 < s.size() &&
                                           std::isdigit(static_cast<unsigned char>(s[i + 1])));
    const bool numeral = n == 3 && kNumerals.find(s.substr(i, 3)) != std::string_view::npos;
    if ((digit && !want_zh) || (want_zh && (numeral || digit))) {
      size_t e = i;
      while (e < s.size()) {
        auto c = static_cast<unsigned char>(s[e]);
        const size_t m = CodepointLength(s, e);
        if (c < 0x80 && (std::isalnum(c) || c == '$' || c == ',' || c == '.')) {
          if ((c == ',' || c == '.') &&
              !(e + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[e + 1]))))
            break;
          ++e;
          continue;
        }
        if (m == 3 &&
            (kNumerals.find(s.substr(e, 3)) != std::string_view::npos || s.substr(e, 3) == "岁" ||
             s.substr(e, 3) == "块" || s.substr(e, 3) == "元")) {
          e += 3;
          continue;
        }
        break;
      }
      return std::pair{i, e};
    }
    i += n;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> BareCorrectionValue(std::string_view clause, bool zh) {
  return zh ? ChineseValue(clause) : EnglishValue(clause);
}

namespace {

// [b, e) of `s` is a whole word: no ASCII letter or digit runs on into it from either side
// ("9" in "Sunday9" is not one). A Chinese neighbour is a boundary: Chinese has no spaces.
bool Whole(std::string_view s, size_t b, size_t e) {
  auto alnum = [&](size_t i) { return std::isalnum(static_cast<unsigned char>(s[i])) != 0; };
  return (b == 0 || !alnum(b - 1) || !alnum(b)) && (e >= s.size() || !alnum(e) || !alnum(e - 1));
}

// The first occurrence of `word` in `s` that is a whole word, or npos.
size_t FindWhole(std::string_view s, std::string_view word) {
  if (word.empty()) return std::string_view::npos;
  for (size_t k = s.find(word); k != std::string_view::npos; k = s.find(word, k + 1)) {
    if (Whole(s, k, k + word.size())) return k;
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<StarredCorrection> StarCorrection(std::string_view clause) {
  if (clause.find('*') == std::string_view::npos) return std::nullopt;
  const std::string s = Trim(clause);
  if (s.find("**") != std::string::npos) return std::nullopt;
  const std::vector<std::string> words = SplitWords(s);
  size_t starred = words.size();
  for (size_t i = 0; i < words.size(); ++i) {
    std::string w = words[i];
    while (!w.empty() && (w.back() == '.' || w.back() == ',' || w.back() == '!')) w.pop_back();
    const bool lead = w.size() > 1 && w.front() == '*' && w.back() != '*';
    const bool trail = w.size() > 1 && w.back() == '*' && w.front() != '*';
    if (!lead && !trail) continue;
    if (starred != words.size()) return std::nullopt;  // two starred words: emphasis, not a fix
    starred = i;
  }
  if (starred == words.size()) return std::nullopt;
  StarredCorrection out;
  out.value = Trim(words[starred]);
  while (!out.value.empty() && out.value.front() == '*') out.value.erase(0, 1);
  while (!out.value.empty() && out.value.back() == '*') out.value.pop_back();
  if (out.value.find('*') != std::string::npos) return std::nullopt;  // "m*st*": no word
  if (out.value.empty() || !std::isalnum(static_cast<unsigned char>(out.value[0]))) {
    return std::nullopt;
  }
  // "corolla* not mazda lol": the word after "not" is the value taken back
  for (size_t i = starred + 1; i + 1 < words.size(); ++i) {
    if (Lower(words[i]) == "not") {
      out.old_value = Trim(words[i + 1]);
      break;
    }
  }
  return out;
}

std::optional<StarredCorrection> ValueNotOld(std::string_view clause) {
  const std::string s = Trim(clause);
  const std::string low = Lower(s);
  const size_t k = low.find(" not ");
  if (k == std::string::npos || k == 0) return std::nullopt;
  std::vector<std::string> before = SplitWords(std::string_view(s).substr(0, k));
  std::vector<std::string> after = SplitWords(std::string_view(s).substr(k + 5));
  // what follows the taken-back value is talk of the slip ("lol", "sorry", "my bad")
  static const std::vector<std::string_view> kTalk = {"lol", "lmao", "haha", "sorry", "oops",
                                                      "my",  "bad",  "ugh",  "typo",  "idk"};
  while (!after.empty() &&
         std::find(kTalk.begin(), kTalk.end(), Lower(Trim(after.back()))) != kTalk.end()) {
    after.pop_back();
  }
  if (before.empty() || before.size() > 3 || after.empty() || after.size() > 3) return std::nullopt;
  static const std::vector<std::string_view> kNotValues = {
      "i",    "i'm", "im",  "we",  "we're", "you", "it",   "it's", "its",  "he",  "she",  "they",
      "is",   "am",  "are", "was", "were",  "do",  "did",  "does", "have", "has", "that", "this",
      "just", "so",  "and", "but", "or",    "if",  "like", "went", "go",   "can", "will", "would"};
  for (const auto* words : {&before, &after}) {
    for (const std::string& w : *words) {
      if (std::find(kNotValues.begin(), kNotValues.end(), Lower(w)) != kNotValues.end()) {
        return std::nullopt;
      }
    }
  }
  auto join = [](const std::vector<std::string>& w) {
    std::string out;
    for (const std::string& x : w) out += (out.empty() ? "" : " ") + x;
    return Trim(out);
  };
  StarredCorrection out;
  out.value = join(before);
  out.old_value = join(after);
  if (out.value.empty() || out.old_value.empty() || Lower(out.value) == Lower(out.old_value))
    return std::nullopt;
  return out;
}

std::optional<std::string> SubjectValue(std::string_view clause, bool zh) {
  const std::string s = Trim(clause);
  // "青霉素没事", "mom's fine": the value taken back is fine, it was not the one meant
  if (zh) {
    for (std::string_view fine : {"没事", "没问题", "还好", "好好的", "没关系"}) {
      if (s.ends_with(fine) && s.size() > fine.size() && s.size() - fine.size() <= 12) {
        std::string subject = s.substr(0, s.size() - fine.size());
        if (subject.starts_with("我")) subject.erase(0, 3);
        if (!subject.empty() && !ContainsText(subject, "你") && !ContainsText(subject, "他") &&
            !ContainsText(subject, "她")) {
          return subject;
        }
      }
    }
  } else {
    const std::string low = Lower(s);
    for (std::string_view fine :
         {"'s fine", " is fine", "'s ok", " is ok", "'s okay", " is okay", " was fine"}) {
      if (low.ends_with(fine) && low.size() > fine.size()) {
        std::string subject = s.substr(0, s.size() - fine.size());
        if (Lower(subject).starts_with("my ")) subject.erase(0, 3);
        const std::string ls = Lower(subject);
        if (!subject.empty() && SplitWords(subject).size() <= 2 && ls != "it" && ls != "that" &&
            ls != "this" && ls != "everything" && ls != "i" && ls != "all") {
          return subject;
        }
      }
    }
  }
  if (zh) {
    const size_t k = s.find("是");
    if (k == std::string::npos || k == 0 || k > 18) return std::nullopt;
    const std::string subject = s.substr(0, k);
    for (std::string_view bad :
         {"我", "你", "他", "她", "它", "这", "那", "就", "不", "也", "都", "还"}) {
      if (ContainsText(subject, bad)) return std::nullopt;
    }
    return subject;
  }
  const std::vector<std::string> words = SplitWords(s);
  for (size_t i = 1; i < words.size() && i <= 2; ++i) {
    const std::string w = Lower(words[i]);
    if (w != "is" && w != "was") continue;
    std::string subject = words[0];
    if (i == 2) subject += " " + words[1];
    static const std::vector<std::string_view> kNot = {
        "i",     "it",   "that",  "this", "he", "she", "they", "we",     "you",
        "there", "what", "which", "who",  "my", "the", "it's", "that's", "mine"};
    if (std::find(kNot.begin(), kNot.end(), Lower(words[0])) != kNot.end()) return std::nullopt;
    return subject;
  }
  return std::nullopt;
}

namespace {

// The numbers of `s` written in digits ("1,600", "3.5", "21st" → 21), with their byte spans.
std::vector<std::pair<double, std::pair<size_t, size_t>>> DigitNumbers(std::string_view s) {
  std::vector<std::pair<double, std::pair<size_t, size_t>>> out;
  for (size_t i = 0; i < s.size();) {
    if (!std::isdigit(static_cast<unsigned char>(s[i])) ||
        (i > 0 && std::isalnum(static_cast<unsigned char>(s[i - 1])))) {
      ++i;
      continue;
    }
    size_t e = i;
    std::string digits;
    while (e < s.size()) {
      const char c = s[e];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        digits += c;
      } else if ((c == ',' || c == '.') && e + 1 < s.size() &&
                 std::isdigit(static_cast<unsigned char>(s[e + 1]))) {
        if (c == '.') digits += c;
      } else {
        break;
      }
      ++e;
    }
    // ("3rd", "90kg": the word's letters are in its span, as NumberSpan reads it)
    while (e < s.size() && std::isalnum(static_cast<unsigned char>(s[e]))) ++e;
    out.push_back({std::strtod(digits.c_str(), nullptr), {i, e}});
    i = e;
  }
  return out;
}

// The number of `content` written in digits that is nearest the leading number of `value`
// (|log(a / b)|, the first of equals): its distance and its span. Nothing when either has none.
struct Nearest {
  double distance;
  std::pair<size_t, size_t> span;
};
// Whether the number at `span` of `s` ends in an ordinal's letters ("15th", "21st").
bool Ordinal(std::string_view s, std::pair<size_t, size_t> span) {
  std::string tail;
  for (size_t i = span.first; i < span.second; ++i) {
    if (std::isalpha(static_cast<unsigned char>(s[i])))
      tail += static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
  }
  return tail == "st" || tail == "nd" || tail == "rd" || tail == "th";
}

// Whether the number at `span` of `s` is a day of a month: an ordinal, a number beside a month's
// name ("14 Sep", "June 12"), or the day of an ISO date ("2026-06-12").
bool DayOfMonth(std::string_view s, std::pair<size_t, size_t> span) {
  if (Ordinal(s, span)) return true;
  if (span.first >= 8 && s[span.first - 1] == '-' && s[span.first - 4] == '-') return true;
  auto word_at = [&](size_t b, bool forward) {
    std::string w;
    if (forward) {
      while (b < s.size() && s[b] == ' ') ++b;
      while (b < s.size() && std::isalpha(static_cast<unsigned char>(s[b]))) w += s[b++];
    } else {
      while (b > 0 && s[b - 1] == ' ') --b;
      size_t e = b;
      while (b > 0 && std::isalpha(static_cast<unsigned char>(s[b - 1]))) --b;
      w = std::string(s.substr(b, e - b));
    }
    return Lower(w);
  };
  static constexpr std::string_view kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                                 "jul", "aug", "sep", "oct", "nov", "dec"};
  for (const std::string& w : {word_at(span.second, true), word_at(span.first, false)}) {
    for (std::string_view m : kMonths) {
      if (w.size() >= 3 && w.starts_with(m)) return true;
    }
  }
  return false;
}

std::optional<Nearest> NearestNumber(std::string_view content, std::string_view value) {
  const auto fresh = DigitNumbers(value);
  if (fresh.empty() || fresh.front().first <= 0) return std::nullopt;
  // "Correction: 15th.": an ordinal corrects a day of a month, not a count ("3 nights")
  const bool day = Ordinal(value, fresh.front().second);
  std::optional<Nearest> best;
  for (const auto& [n, span] : DigitNumbers(content)) {
    if (n <= 0) continue;
    if (day && !DayOfMonth(content, span)) continue;
    const double d = std::abs(std::log(n / fresh.front().first));
    if (!best || d < best->distance) best = Nearest{d, span};
  }
  return best;
}

}  // namespace

std::optional<double> NumberDistance(std::string_view content, std::string_view value) {
  const auto nearest = NearestNumber(content, value);
  if (!nearest) return std::nullopt;
  return nearest->distance;
}

namespace {

// A word of `text` that is a weekday, with the punctuation after it ("Sunday,") left off.
bool HasWeekdayWord(std::string_view text) {
  for (const std::string& w : SplitWords(text)) {
    std::string core = Lower(w);
    while (!core.empty() && std::ispunct(static_cast<unsigned char>(core.back()))) core.pop_back();
    if (IsWeekdayWord(core)) return true;
  }
  return false;
}

}  // namespace

bool NamesADay(std::string_view value) {
  if (HasWeekdayWord(value)) return true;
  const auto numbers = DigitNumbers(value);
  return !numbers.empty() && Ordinal(value, numbers.front().second);
}

bool HoldsADate(std::string_view content) {
  for (const auto& [n, span] : DigitNumbers(content)) {
    if (DayOfMonth(content, span)) return true;
  }
  return HasWeekdayWord(content);
}

bool HasSearchableShape(std::string_view value) {
  const std::string first = FirstWord(value);
  // ("June 8th": a date is found by its number)
  return HasDigit(first) || IsNumberWord(first) || IsWeekdayWord(first) ||
         (HasDigit(value) && SplitWords(value).size() <= 3);
}

namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string NearSpelling(std::string_view content, std::string_view value) {
  const std::string v = Lower(Trim(value));
  if (v.empty()) return "";
  if (static_cast<unsigned char>(v[0]) >= 0x80) {
    // Chinese: a window of as many characters, one of them changed
    std::vector<size_t> vs, cs;
    for (size_t i = 0; i < v.size(); i += CodepointLength(v, i)) vs.push_back(i);
    // (a two-character name, "张炜" for "张伟": said as a name (after 叫), the surname the same,
    // the given name's character changed; with another first character it is another name)
    const bool two = vs.size() == 2;
    if (vs.size() < 2) return "";
    for (size_t i = 0; i < content.size(); i += CodepointLength(content, i)) cs.push_back(i);
    cs.push_back(content.size());
    vs.push_back(v.size());
    const size_t k = vs.size() - 1;
    for (size_t a = 0; a + k < cs.size(); ++a) {
      size_t changed = 0;
      for (size_t j = 0; j < k && changed <= 1; ++j) {
        changed += content.substr(cs[a + j], cs[a + j + 1] - cs[a + j]) !=
                   std::string_view(v).substr(vs[j], vs[j + 1] - vs[j]);
      }
      if (changed == 1 && (!two || (content.substr(cs[a], cs[a + 1] - cs[a]) ==
                                        std::string_view(v).substr(0, vs[1]) &&
                                    cs[a] >= 3 && content.substr(cs[a] - 3, 3) == "叫")))
        return std::string(content.substr(cs[a], cs[a + k] - cs[a]));
    }
    return "";
  }
  const size_t n = SplitWords(v).size();
  if (v.size() < 5 || n == 0) return "";
  // the content's words with their spans
  std::vector<std::pair<size_t, size_t>> words;
  for (size_t i = 0; i < content.size();) {
    if (!std::isalnum(static_cast<unsigned char>(content[i]))) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < content.size() && (std::isalnum(static_cast<unsigned char>(content[e])) ||
                                  content[e] == '\'' || content[e] == '-')) {
      ++e;
    }
    words.emplace_back(i, e);
    i = e;
  }
  for (size_t w = 0; w + n <= words.size(); ++w) {
    const size_t b = words[w].first, e = words[w + n - 1].second;
    const std::string candidate = Lower(content.substr(b, e - b));
    if (candidate == v || candidate[0] != v[0]) continue;
    if (EditDistance(candidate, v) * 3 <= std::max(candidate.size(), v.size())) {
      return std::string(content.substr(b, e - b));
    }
  }
  return "";
}

// `value` to put at [b, e) of `s`, with a space where a Latin letter or digit of it would meet
// one of `s` ("老公" → "d" before "d410": "d d410", not the word "dd410")
std::string Spaced(std::string_view s, size_t b, size_t e, std::string_view value) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  std::string out(value);
  if (out.empty()) return out;
  if (b > 0 && word(s[b - 1]) && word(out.front())) out.insert(out.begin(), ' ');
  if (e < s.size() && word(s[e]) && word(out.back())) out.push_back(' ');
  return out;
}

std::optional<std::string> ReplaceValue(std::string_view content, std::string_view old_value,
                                        std::string_view new_value) {
  // A value is its words: punctuation a reading left at its edges (", a") is not replaced
  while (!old_value.empty() && static_cast<unsigned char>(old_value.front()) < 0x80 &&
         !std::isalnum(static_cast<unsigned char>(old_value.front()))) {
    old_value.remove_prefix(1);
  }
  while (!old_value.empty() && static_cast<unsigned char>(old_value.back()) < 0x80 &&
         !std::isalnum(static_cast<unsigned char>(old_value.back()))) {
    old_value.remove_suffix(1);
  }
  // "75" for "72公斤", "45" for "44 EU": a bare number replaces the old value's number, and its
  // unit stays
  if (!new_value.empty() && std::all_of(new_value.begin(), new_value.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
      })) {
    size_t n = 0;
    while (n < old_value.size() && (std::isdigit(static_cast<unsigned char>(old_value[n])) ||
                                    old_value[n] == '.' || old_value[n] == ',')) {
      ++n;
    }
    if (n > 0 && n < old_value.size()) old_value = old_value.substr(0, n);
  }
  std::string out(content);
  // An old value of another shape than the new one is not what is corrected: "son" is not
  // what "5th" replaces in "my son's in 4th grade".
  const bool new_digits = HasDigit(new_value);
  const bool old_digits = HasDigit(old_value);
  // "15th" corrects a day of a month, never a count ("3 nights")
  const auto new_numbers = DigitNumbers(new_value);
  const bool new_day = !new_numbers.empty() && Ordinal(new_value, new_numbers.front().second);
  if (!old_value.empty() && new_digits == old_digits) {
    if (size_t k = FindWhole(out, old_value);
        k != std::string::npos && (!new_day || DayOfMonth(out, {k, k + old_value.size()}))) {
      size_t len = old_value.size();
      // "Portland, Oregon" → "Portland Maine": the qualifier after the value goes with it
      if (out.compare(k + len, 2, ", ") == 0 && k + len + 2 < out.size() &&
          std::isupper(static_cast<unsigned char>(out[k + len + 2])) &&
          Lower(new_value).starts_with(Lower(old_value))) {
        size_t e = k + len + 2;
        while (e < out.size() && std::isalpha(static_cast<unsigned char>(out[e]))) ++e;
        len = e - k;
      }
      // "jefferson elementary" for "lincoln" in "at lincoln elementary": the words after the
      // value that the new one ends with are said once
      if (const size_t sp = new_value.find(' '); sp != std::string_view::npos) {
        const std::string tail = Lower(new_value.substr(sp));  // " elementary"
        if (Lower(std::string_view(out).substr(k + len)).starts_with(tail) &&
            Whole(out, k, k + len + tail.size())) {
          len += tail.size();
        }
      }
      out.replace(k, len, Spaced(out, k, k + len, new_value));
      return out;
    }
    const std::string low = Lower(out);
    if (size_t k = FindWhole(low, Lower(old_value));
        k != std::string::npos && (!new_day || DayOfMonth(out, {k, k + old_value.size()}))) {
      out.replace(k, old_value.size(), Spaced(out, k, k + old_value.size(), new_value));
      return out;
    }
  }
  const bool zh_value = !new_value.empty() && static_cast<unsigned char>(new_value[0]) >= 0x80;
  // A weekday or an English number word replaces the content's first word of its kind
  // ("mondays" → "wednesdays", "two dogs" → "three dogs").
  const std::string new_first = FirstWord(new_value);
  if (!zh_value && (IsWeekdayWord(new_first) || IsNumberWord(new_first))) {
    const bool weekday = IsWeekdayWord(new_first);
    const std::vector<std::string> words = SplitWords(content);
    std::string rebuilt;
    bool done = false;
    for (const std::string& w : words) {
      std::string core = w;
      std::string tail;
      while (!core.empty() && (core.back() == ',' || core.back() == '.' || core.back() == ';')) {
        tail.insert(tail.begin(), core.back());
        core.pop_back();
      }
      const bool fits = weekday
                            ? IsWeekdayWord(core)
                            : (IsNumberWord(core) ||
                               (!core.empty() && std::all_of(core.begin(), core.end(), [](char c) {
                                 return std::isdigit(static_cast<unsigned char>(c));
                               })));
      if (!rebuilt.empty()) rebuilt += ' ';
      if (!done && fits) {
        rebuilt += std::string(new_value) + tail;
        done = true;
      } else {
        rebuilt += w;
      }
    }
    if (done) return rebuilt;
    if (weekday) return std::nullopt;
  }
  const bool numeric = HasDigit(new_value) || (zh_value && NumberSpan(new_value, true));
  if (numeric) {
    auto span = NumberSpan(content, zh_value || !HasDigit(new_value));
    if (!span) span = NumberSpan(content, false);
    // of several numbers in digits, the one nearest the new value ("体重68，身高180" and "66"),
    // read as NumberSpan reads it from there ("3岁" with its unit)
    const auto nearest = NearestNumber(content, new_value);
    if (new_day && !nearest) return std::nullopt;
    if (nearest) {
      span = nearest->span;
      if (auto whole = NumberSpan(content.substr(span->first), zh_value || !HasDigit(new_value));
          whole && whole->first == 0) {
        span->second = std::max(span->second, span->first + whole->second);
      }
    }
    if (!span || !Whole(content, span->first, span->second)) return std::nullopt;
    size_t end = span->second;
    // "June 8th" for the "3rd" of "married on June 3rd": the words before the new number that
    // the content says right before its number are the value's, not said twice
    if (auto own = NumberSpan(new_value, zh_value); own && own->first > 0) {
      const std::string lead = Lower(new_value.substr(0, own->first));  // "june "
      if (span->first >= lead.size() &&
          Lower(content.substr(span->first - lead.size(), lead.size())) == lead) {
        span->first -= lead.size();
      }
    }
    // "6th floor" for "the 3rd floor": the words after the number that the content says too
    // are the value's, not said twice
    if (auto own = NumberSpan(new_value, zh_value)) {
      const std::string rest = Lower(std::string_view(new_value).substr(own->second));
      if (!rest.empty() && Lower(std::string_view(content).substr(end)).starts_with(rest)) {
        end += rest.size();
      }
    }
    out.replace(span->first, end - span->first, new_value);
    return out;
  }
  if (zh_value) return std::nullopt;
  // A capitalized span: one sharing the new value's first word, else the last one.
  std::vector<std::string> words = SplitWords(content);
  const std::vector<std::string> fresh = SplitWords(new_value);
  if (fresh.empty()) return std::nullopt;
  auto capital = [&](size_t i) {
    const std::string w = Trim(words[i]);
    return !w.empty() && std::isupper(static_cast<unsigned char>(w[0])) && Lower(w) != "user" &&
           Lower(w) != "user's" && i > 0;
  };
  size_t best = words.size();
  for (size_t i = 0; i < words.size(); ++i) {
    if (capital(i) && Lower(Trim(words[i])) == Lower(fresh[0])) best = i;
  }
  if (best == words.size()) {
    for (size_t i = 0; i < words.size(); ++i) {
      if (capital(i)) best = i;
    }
    while (best > 0 && best < words.size() && capital(best - 1)) --best;
  }
  if (best == words.size()) return std::nullopt;
  size_t end = best;
  while (end < words.size() && end < best + std::max<size_t>(fresh.size(), 1) && capital(end))
    ++end;
  // "O positive" for the "A" of "A positive": the words after the span that the new value
  // ends with are said once
  for (size_t k = end - best;
       k < fresh.size() && end < words.size() && Lower(Trim(words[end])) == Lower(Trim(fresh[k]));
       ++k) {
    ++end;
  }
  std::string rebuilt;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > best && i < end) continue;
    if (!rebuilt.empty()) rebuilt += ' ';
    if (i == best) {
      std::string tail;  // keep punctuation that ended the replaced span ("Oregon," → ",")
      const std::string& last = words[end - 1];
      if (!last.empty() && (last.back() == ',' || last.back() == '.')) tail = last.back();
      rebuilt += std::string(new_value) + tail;
    } else {
      rebuilt += words[i];
    }
  }
  return rebuilt;
}

}  // namespace engram::extract
