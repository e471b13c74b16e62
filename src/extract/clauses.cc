#include "extract/clauses.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "extract/changes.h"
#include "extract/corrections.h"
#include "extract/english_words.h"
#include "extract/lexicon.h"
#include "extract/speech_acts.h"
#include "text/find.h"
#include "text/lexicon_data.h"
#include "text/utf8.h"

namespace engram::extract {

static bool IsAbbreviation(std::string_view text, size_t dot) {
  size_t b = dot;
  while (b > 0 && std::isalpha(static_cast<unsigned char>(text[b - 1]))) --b;
  // "the 21st.", "on the 3rd.": an ordinal's ending, not "St." or "Dr."
  if (b > 0 && std::isdigit(static_cast<unsigned char>(text[b - 1]))) return false;
  std::string w(text.substr(b, dot - b));
  for (char& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return w == "mr" || w == "mrs" || w == "ms" || w == "dr" || w == "st" || w == "jr" || w == "sr" ||
         w == "vs" || w == "etc" || w == "e" || w == "i" || w == "g" || w == "prof";
}

// Sentences ending at 。！？!?；;… or a newline, or "." before a space (not "Dr.", not "3.5").
std::vector<Sentence> SplitSentences(std::string_view text) {
  std::vector<Sentence> out;
  std::string cur;
  auto flush = [&](bool question) {
    size_t b = cur.find_first_not_of(" \t\r");
    if (b != std::string::npos) out.push_back({cur.substr(b), question});
    cur.clear();
  };
  for (size_t i = 0; i < text.size();) {
    std::string_view rest = text.substr(i);
    bool matched = false;
    for (std::string_view t : {"。", "！", "？", "；", "…", "\n", "!", "?", ";"}) {
      if (rest.starts_with(t)) {
        flush(t == "？" || t == "?");
        i += t.size();
        matched = true;
        break;
      }
    }
    if (matched) continue;
    // "first week done ✅ my badge photo is cursed": an emoji between a statement and a new
    // subject ends the sentence as a full stop would ("my dog 🐶 is sick" stays one)
    if (static_cast<unsigned char>(text[i]) >= 0xE2 && i > 0 && text[i - 1] == ' ') {
      size_t j = i;
      const char32_t c = NextCodepoint(text, &j);
      const bool emoji = (c >= 0x1F300 && c <= 0x1FAFF) || (c >= 0x2600 && c <= 0x27BF);
      while (j < text.size() && static_cast<unsigned char>(text[j]) >= 0x80) {
        size_t k = j;
        const char32_t more = NextCodepoint(text, &k);
        if (!((more >= 0x1F300 && more <= 0x1FAFF) || (more >= 0x2600 && more <= 0x27BF) ||
              more == 0xFE0F || more == 0x200D || (more >= 0x1F3FB && more <= 0x1F3FF))) {
          break;
        }
        j = k;
      }
      if (emoji && j < text.size() && text[j] == ' ') {
        const std::string next = LowerAscii(text.substr(j + 1, 6));
        if (StartsWithWord(next, "my") || StartsWithWord(next, "i") ||
            StartsWithWord(next, "i'm") || StartsWithWord(next, "im") ||
            StartsWithWord(next, "we")) {
          flush(false);
          i = j;
          continue;
        }
      }
    }
    if (text[i] == '.' &&
        (i + 1 == text.size() || text[i + 1] == ' ' ||
         static_cast<unsigned char>(text[i + 1]) >= 0x80) &&
        !IsAbbreviation(text, i)) {
      flush(false);
      ++i;
      continue;
    }
    cur += text[i];
    ++i;
  }
  flush(false);
  return out;
}

bool StartsWithWord(std::string_view s, std::string_view word) {
  if (s.size() < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != word[i]) return false;
  }
  return s.size() == word.size() || !std::isalpha(static_cast<unsigned char>(s[word.size()]));
}

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& ch : out) {
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch + ('a' - 'A'));  // no locale look-up
  }
  return out;
}

bool IsValueFirstCorrection(std::string_view sentence, bool zh) {
  if (zh) {
    // "是美短，不是英短", "三只，不是两只": a short value with no subject, then the one it is not
    // ("dbq，175，…": after an interjection)
    sentence = WithoutInterjections(sentence, true);
    const size_t comma = sentence.find("，");
    if (comma == std::string_view::npos || comma > 18) return false;
    // "王建华，打错字了", "张炜*，火字旁，输入法的锅": the value, then the slip named
    const std::string_view rest = sentence.substr(comma + 3);
    const std::string_view first = sentence.substr(0, comma);
    const bool slip = rest.size() <= 36 && (ContainsText(rest, "错") || NamesSlipWord(rest, true));
    // "三只，忘了算上新来的小黑": a count, then the one it forgot
    static constexpr std::string_view kNumerals = "0123456789一二两三四五六七八九十";
    const bool count =
        !first.empty() && first.size() <= 12 &&
        kNumerals.find(first.substr(0, CodepointLength(first, 0))) != std::string_view::npos;
    const bool forgot = count && (ContainsText(rest, "忘") || ContainsText(rest, "漏") ||
                                  ContainsText(rest, "少算") || ContainsText(rest, "多算"));
    // "是育才小学，实验小学是他表哥那个": the value, then where the other one belongs
    const bool elsewhere = first.starts_with("是") && first.size() > 3 && first != "是的" &&
                           first != "是啊" && first != "是吗" &&
                           SubjectValue(rest.substr(0, rest.find("，")), true).has_value();
    if (!rest.starts_with("不是") && !slip && !forgot && !elsewhere) return false;
    const std::string_view value = sentence.substr(0, comma);
    for (std::string_view subject : {"我", "你", "他", "她", "它", "这", "那"}) {
      if (ContainsText(value, subject)) return false;
    }
    return !value.empty();
  }
  // "fabia not octavia lol, the small one": the same without the comma
  if (const std::string_view first = sentence.substr(0, sentence.find(','));
      first.find(" not ") != std::string_view::npos && ValueNotOld(first)) {
    return true;
  }
  // "Lincoln High, not Roosevelt": a short value, then the one it is not
  const std::string low = LowerAscii(sentence);
  const size_t comma = low.find(", not ");
  if (comma == std::string::npos || comma == 0 ||
      std::count(low.begin(), low.begin() + static_cast<std::ptrdiff_t>(comma), ' ') > 2) {
    return false;
  }
  const std::string lead = low.substr(0, std::min(low.find(' '), comma));
  static constexpr std::array<std::string_view, 14> kSubjects = {"i",    "i'm",  "he", "she", "it",
                                                                 "it's", "they", "we", "you", "my",
                                                                 "that", "this", "so", "and"};
  return std::find(kSubjects.begin(), kSubjects.end(), lead) == kSubjects.end();
}

static bool StartsWithSubjectEn(std::string_view s);

namespace {

// data/lexicon/{en,zh}/corrections.tsv
struct CorrectionLists {
  std::vector<std::string> interjection, after_value, lead, anywhere, slip;
};

const CorrectionLists& CorrectionListsFor(bool zh) {
  auto load = [](const char* file) {
    CorrectionLists l;
    for (const auto& [key, words] : LexiconEntries(file)) {
      if (key == "interjection") l.interjection = words;
      if (key == "after_value") l.after_value = words;
      if (key == "lead") l.lead = words;
      if (key == "anywhere") l.anywhere = words;
      if (key == "slip") l.slip = words;
    }
    // longest first: "emmmm" before "emm", "well technically" before "well"
    for (auto* v : {&l.interjection, &l.lead}) {
      std::stable_sort(v->begin(), v->end(), [](const std::string& a, const std::string& b) {
        return a.size() > b.size();
      });
    }
    return l;
  };
  static const CorrectionLists en = load("en/corrections.tsv");
  static const CorrectionLists zh_lists = load("zh/corrections.tsv");
  return zh ? zh_lists : en;
}

}  // namespace

std::string_view WithoutInterjections(std::string_view s, bool zh) {
  for (bool moved = true; moved;) {
    moved = false;
    while (!s.empty() && (s.front() == ' ' || s.front() == '.' || s.front() == ',')) {
      s.remove_prefix(1);
    }
    for (std::string_view p : {"，", "。", "！", "…"}) {
      while (s.starts_with(p)) s.remove_prefix(p.size());
    }
    for (const std::string& w : CorrectionListsFor(zh).interjection) {
      if (zh ? s.starts_with(w) && s.size() > w.size() : StartsWithWord(s, w)) {
        s.remove_prefix(w.size());
        moved = true;
        break;
      }
    }
  }
  return s;
}

bool IsCorrectionLead(std::string_view text) {
  std::string low = LowerAscii(text);
  while (!low.empty() &&
         (std::ispunct(static_cast<unsigned char>(low.back())) || low.back() == ' '))
    low.pop_back();
  size_t b = 0;
  while (b < low.size() && (std::ispunct(static_cast<unsigned char>(low[b])) || low[b] == ' ')) ++b;
  const std::string_view core = std::string_view(low).substr(b);
  const auto& lead = CorrectionListsFor(false).lead;
  return std::find(lead.begin(), lead.end(), core) != lead.end();
}

bool NamesSlipWord(std::string_view sentence, bool zh) {
  const std::string low = zh ? std::string(sentence) : LowerAscii(sentence);
  for (const std::string& w : CorrectionListsFor(zh).slip) {
    if (zh ? ContainsText(low, w) : HasWord(low, w)) return true;
  }
  return false;
}

bool IsCorrection(std::string_view sentence, bool zh) {
  if (zh) {
    for (std::string_view m : {"不对", "我是说", "更正",   "纠正",  "应该是", "我的意思是", "说错",
                               "搞错", "打错",   "记错",   "写错",  "弄错",   "看错",       "听错",
                               "哦不", "啊不",   "不是，", "不是,", "口误",   "搞混"}) {
      if (ContainsText(sentence, m)) return true;
    }
    for (const std::string& m : CorrectionListsFor(true).anywhere) {
      if (ContainsText(sentence, m)) return true;
    }
    // "emmm其实是通州": after an interjection
    const std::string_view bare = WithoutInterjections(sentence, true);
    // "啊不好意思 是65", "抱歉，是周三": an apology, then the value
    for (std::string_view sorry : {"不好意思", "抱歉", "对不起", "sorry", "sry", "dbq"}) {
      if (!bare.starts_with(sorry)) continue;
      std::string_view rest = bare.substr(sorry.size());
      while (rest.starts_with(" ") || rest.starts_with(",")) rest.remove_prefix(1);
      while (rest.starts_with("，")) rest.remove_prefix(3);
      // (the apology alone is the marker of a sentence whose value follows in another piece)
      if (rest.empty() || (rest.starts_with("是") && rest.size() > 3 && rest.size() <= 30)) {
        return true;
      }
    }
    return bare.starts_with("其实") || bare.starts_with("不是") ||
           IsValueFirstCorrection(sentence, zh);
  }
  std::string low = LowerAscii(sentence);
  {
    // "lol autocorrect", "well technically legal assistant", "ugh no sorry the 15th": a marker
    // after an interjection; "O+ sorry, …", "priya nair sorry": a short value, then the marker
    const CorrectionLists& l = CorrectionListsFor(false);
    const std::string_view bare = WithoutInterjections(low, false);
    for (const std::string& m : l.lead) {
      if (StartsWithWord(bare, m)) return true;
    }
    if (bare.size() < low.size()) {
      for (std::string_view m : {"actually", "correction", "i meant", "sorry", "oops", "wait no",
                                 "no wait", "no sorry", "no,"}) {
        if (StartsWithWord(bare, m)) return true;
      }
    }
    // the second to fourth words of the first comma piece, without building any string
    const std::string_view first = bare.substr(0, bare.find(','));
    size_t i = first.find(' ');
    for (int k = 1; i != std::string_view::npos && k <= 3; ++k) {
      const size_t b = i + 1;
      const size_t e = std::min(first.find(' ', b), first.size());
      std::string_view w = first.substr(b, e - b);
      while (!w.empty() && std::ispunct(static_cast<unsigned char>(w.back()))) w.remove_suffix(1);
      if (!w.empty() &&
          std::find(l.after_value.begin(), l.after_value.end(), w) != l.after_value.end() &&
          !StartsWithSubjectEn(first)) {
        return true;
      }
      i = e < first.size() ? e : std::string_view::npos;
    }
  }
  for (std::string_view m : {"actually", "correction", "i meant", "sorry, i", "oops", "to correct",
                             "wait no", "no wait", "sorry,", "sorry not", "sorry no"}) {
    if (StartsWithWord(low, m)) return true;
  }
  // "corolla* not mazda", "*Dennis": a starred word is the chat convention for a fixed one
  if (StarCorrection(sentence)) return true;
  // "30 actually, birthday was last week": a value with "actually" after it opens the sentence
  {
    const std::string first = low.substr(0, low.find(','));
    if (first.ends_with(" actually") && std::count(first.begin(), first.end(), ' ') <= 3) {
      return true;
    }
    // "4 actually forgot one", "97215 sorry fat fingers": a number with a marker right after it
    const size_t sp = low.find(' ');
    if (sp != std::string::npos && sp > 0 && std::isdigit(static_cast<unsigned char>(low[0]))) {
      for (std::string_view m : {"actually", "sorry", "oops", "whoops", "typo", "my bad"}) {
        if (StartsWithWord(std::string_view(low).substr(sp + 1), m)) return true;
      }
    }
  }
  if (IsValueFirstCorrection(sentence, zh)) return true;
  // "jefferson elementary i mean": the marker after the value ends the clause
  for (std::string_view m : {" i mean", " i meant", " my bad"}) {
    if (low.ends_with(m)) return true;
  }
  if (low.size() <= 16) {
    // a clause that is only a marker: "sorry", "no", "wait", "oops"
    std::string bare;
    for (char c : low) {
      if (std::isalpha(static_cast<unsigned char>(c)) || c == ' ') bare += c;
    }
    while (!bare.empty() && bare.front() == ' ') bare.erase(0, 1);
    while (!bare.empty() && bare.back() == ' ') bare.pop_back();
    // "ugh sorry", "oh wait": an interjection before the marker
    for (std::string_view lead : {"ugh ", "oh ", "ah ", "argh ", "hmm ", "ok ", "okay ", "well "}) {
      if (bare.starts_with(lead)) bare.erase(0, lead.size());
    }
    for (std::string_view m : {"sorry", "no", "wait", "oops", "no sorry", "sorry no", "nope",
                               "whoops", "err", "i mean", "or rather", "rather"}) {
      if (bare == m) return true;
    }
  }
  for (std::string_view m :
       {"i meant",        "i mean,",  "i mean ",    ", actually",    "actually no",
        "no wait",        "wait no",  "sorry, ",    "sorry i ",      "— sorry",
        "- sorry",        "my bad",   "mixed up",   "mixed them up", "typo",
        "got that wrong", "no sorry", "brain fart", "scratch that",  "correction:",
        "autocorrect"}) {
    if (ContainsText(low, m)) return true;
  }
  return false;
}

// "我不是住在北京，而是住在上海" → "我是住在上海" (the correction is flagged by the caller).
// A verb after 而是 needs no copula: "我不是在北京工作，而是在上海工作" → "我在上海工作".
std::string RewriteNotButZh(const std::string& s) {
  size_t no = s.find("不是");
  if (no == std::string::npos) return s;
  size_t but = s.find("而是", no);
  if (but == std::string::npos) return s;
  std::string rest = s.substr(but + 6);
  bool verb = false;
  for (std::string_view v :
       {"在", "住", "搬", "喜欢", "爱", "养", "想", "有", "对", "去", "来自", "叫"}) {
    verb = verb || rest.starts_with(v);
  }
  return s.substr(0, no) + (verb ? "" : "是") + rest;
}

// ---- clauses ----

static bool HasZhSubject(std::string_view s) {
  for (size_t k = s.find("我"); k != std::string_view::npos; k = s.find("我", k + 3)) {
    if (s.substr(k + 3, 3) != "们") return true;
  }
  return false;
}

static bool StartsWithOtherSubjectZh(std::string_view s) {
  for (std::string_view o :
       {"他", "她", "它", "你", "我们", "大家", "别人", "这", "那", "天气", "叫", "名叫", "名字"}) {
    if (s.starts_with(o)) return true;
  }
  return false;
}

// Where a statement typed (or dictated) with no stop runs on into a question or request
// ("我换了苹果十六了用的不太习惯怎么把通讯录导过来"): `rest` opens one (zh/asks.tsv `inline`) and
// `before`, the speaker's (我) in four characters or more, does not lead into it ("我不知道怎么办":
// `leads_in`).
static bool InlineAskZh(std::string_view before, std::string_view rest) {
  static const std::vector<std::string> kAsks = LexiconWords("zh/asks.tsv", "inline");
  static const std::vector<std::string> kLeadsIn = LexiconWords("zh/asks.tsv", "leads_in");
  // (the speaker's own statement: "中午附近有啥好吃的", "年夜饭菜单帮我避开海鲜" are one request)
  if (CountCodepoints(before) < 4 || before.find("我") == std::string_view::npos) return false;
  if (std::none_of(kAsks.begin(), kAsks.end(),
                   [&](const std::string& a) { return rest.starts_with(a); })) {
    return false;
  }
  return std::none_of(kLeadsIn.begin(), kLeadsIn.end(),
                      [&](const std::string& w) { return before.ends_with(w); });
}

std::vector<Piece> SplitClausesZh(const std::string& sentence) {
  std::vector<Piece> raw;
  std::string cur;
  std::string_view s = sentence;
  for (size_t i = 0; i < s.size();) {
    bool split = false;
    if (static_cast<unsigned char>(s[i]) >= 0xE0 && InlineAskZh(cur, s.substr(i))) {
      raw.push_back({cur});
      cur.clear();
    }
    // Every separator starts with ',' or one of the lead bytes of "，但可不而并然、".
    const bool maybe = s[i] == ',' || static_cast<unsigned char>(s[i]) >= 0xE0;
    for (std::string_view sep :
         {"，", ",", "但是", "可是", "不过", "而且", "并且", "然后", "、也"}) {
      if (!maybe) break;
      if (s.substr(i).starts_with(sep)) {
        std::string_view next = s.substr(i + sep.size());
        bool name_follows = next.starts_with("叫") || next.starts_with("名叫") ||
                            next.starts_with("名字叫") || next.starts_with("它叫");
        if (name_follows && (sep == "，" || sep == ",")) break;
        raw.push_back({cur});
        cur.clear();
        i += sep.size();
        split = true;
        break;
      }
    }
    if (split) continue;
    cur += s[i];
    ++i;
  }
  raw.push_back({cur});
  std::vector<Piece> out;
  bool prev_has_subject = false;
  for (Piece& p : raw) {
    if (p.text.empty()) continue;
    // Correction markers and corrected values ("不对", "是无锡", "八岁了") take no subject.
    const bool marker = IsCorrection(p.text, true) || p.text.starts_with("是") ||
                        p.text.starts_with("哦") || p.text.starts_with("啊");
    if (HasZhSubject(p.text)) {
      prev_has_subject = true;
    } else if (prev_has_subject && !StartsWithOtherSubjectZh(p.text) && !marker) {
      p.text = "我" + p.text;
      p.inherited = true;
    } else {
      prev_has_subject = false;
    }
    out.push_back(std::move(p));
  }
  return out;
}

static bool IsPredicateHeadEn(std::string_view low) {
  static const std::vector<std::string_view> kHeads = {
      "live",    "work",   "love",     "have",      "moved", "want",    "plan",    "hate",
      "enjoy",   "prefer", "speak",    "am",        "got",   "started", "joined",  "just",
      "also",    "really", "recently", "currently", "now",   "own",     "adopted", "hope",
      "grew",    "can",    "play",     "don't",     "do",    "never",   "still",   "recently",
      "dislike", "adore",  "need",     "intend",    "was",   "usually"};
  return std::find(kHeads.begin(), kHeads.end(), low) != kHeads.end();
}

// After "<someone> and": "i broke up …", "I have gone our separate ways", a relationship's end
// (endings.tsv `with_me`; defined with the other endings below)
static bool EndsWithMeEn(std::string_view after_and);

static std::string FirstWordLower(std::string_view s) {
  size_t b = s.find_first_not_of(" ");
  if (b == std::string_view::npos) return "";
  size_t e = b;
  while (e < s.size() && (std::isalpha(static_cast<unsigned char>(s[e])) || s[e] == '\'')) ++e;
  return LowerAscii(s.substr(b, e - b));
}

// What follows "if" makes the condition one on the listener or on the talk (asks.tsv
// `if_listener`): "if ur looking at shoes", "if that matters".
static bool IfListenerEn(std::string_view after_if) {
  static const std::set<std::string> kWords = [] {
    const std::vector<std::string> words = LexiconWords("en/asks.tsv", "if_listener");
    return std::set<std::string>(words.begin(), words.end());
  }();
  const size_t e = std::min(after_if.find(' '), after_if.size());
  std::string first = LowerAscii(after_if.substr(0, e));
  while (!first.empty() && std::ispunct(static_cast<unsigned char>(first.back()))) first.pop_back();
  return kWords.contains(first);
}

// A state people say of themselves with no subject, with what it is of ("allergic to latex",
// "intolerant of lactose"): a "be" word of predicates.tsv, then "to" or "of". After a comma it
// starts a clause of its own, not a list item ("vegetarian for years now" goes on the one before).
static bool StartsStateClauseEn(std::string_view piece) {
  static const std::set<std::string> kStates = [] {
    std::set<std::string> out;
    for (const auto& [key, words] : LexiconEntries("en/predicates.tsv")) {
      if (key == "be") out.insert(words.begin(), words.end());
    }
    return out;
  }();
  const std::string low = LowerAscii(piece);
  const size_t sp = low.find(' ');
  if (sp == std::string::npos || !kStates.contains(low.substr(0, sp))) return false;
  return low.compare(sp, 4, " to ") == 0 || low.compare(sp, 4, " of ") == 0;
}

static bool StartsWithSubjectEn(std::string_view s) {
  std::string w = FirstWordLower(s);
  return w == "i" || w == "i'm" || w == "i've" || w == "i'd" || w == "i'll" || w == "im" ||
         w == "my" || w == "we" || w == "we're" || w == "we've" || w == "we'll" || w == "our";
}

// A comma piece that continues a list ("coffee and juice"): a few words, no verb of its own.
static bool IsListContinuation(std::string_view piece) {
  std::string low = " " + LowerAscii(piece) + " ";
  // "sorry", "no wait", "I meant Dallas", "long day": a new clause, never a list item
  for (std::string_view m :
       {" sorry", " no ",  " wait",   " actually",    " i mean",  " oops",     " typo",
        " like ", " so ",  " which ", " especially ", " my bad",  " long day", " brain fart",
        " lol",   " haha", " ugh",    " honestly",    " i meant", " not ",     " rather"}) {
    if (ContainsText(low, m)) return false;
  }
  // "…, carry an epipen", "…, always have snacks": a verb first is the next clause, its
  // subject left out (words that are also common nouns, "watch", "drink", are not read so)
  static const std::vector<std::string_view> kVerbs = {
      "carry",   "keep", "take",  "need",   "use",      "bring", "avoid",  "eat",
      "go",      "make", "get",   "try",    "know",     "want",  "love",   "hate",
      "have",    "see",  "call",  "check",  "remember", "tend",  "always", "never",
      "usually", "also", "can't", "cannot", "don't",    "won't"};
  const std::string first = FirstWordLower(piece);
  if (std::find(kVerbs.begin(), kVerbs.end(), first) != kVerbs.end()) return false;
  // "…for his bday, ideas?": what is asked of the assistant is the question, not a list item
  static const std::vector<std::string> kAsks = [] {
    std::vector<std::string> out;
    for (const auto& [key, words] : LexiconEntries("en/asks.tsv")) {
      if (key == "ask") out = words;
    }
    return out;
  }();
  {
    std::string ask = std::string(TrimCodepoints(LowerAscii(piece), U" ?!.", U" ?!."));
    if (std::find(kAsks.begin(), kAsks.end(), ask) != kAsks.end()) return false;
  }
  int words = 0;
  for (size_t i = 1; i < low.size(); ++i) words += low[i] == ' ' && low[i - 1] != ' ';
  for (std::string_view verb : {" is ", " are ", " was ", " were ", "'s ", " it ", " has "}) {
    if (ContainsText(low, verb)) return false;
  }
  return words <= 5;
}

// `rest` opens the speaker's statement ("i'm …", "i've been …", "my number is …") and `before`
// is a question or request to the assistant that has ended; or `rest` is a new subject with its
// verb after a statement ("… penicillin it gave me hives"). Either way `before` does not lead
// into `rest` with a word that makes it part of it ("what i'm supposed to", "if i'm vegan",
// "think i've", "so it was").
static bool StatementAfterAskEn(std::string_view before, std::string_view rest) {
  static constexpr std::string_view kOpeners[] = {
      "i'm ",         "im ",         "i am ",     "i've been ",  "ive been ", "i have been ",
      "i've got ",    "ive got ",    "i have a ", "i have two ", "i have 2 ", "my number is ",
      "my email is ", "my name is ", "i got my ", "i live ",     "i work "};
  // "allergic to penicillin it gave me hives": a new subject with its verb ends the statement
  // before it, whatever that was
  static constexpr std::string_view kRunOn[] = {"it gave ", "it gives ", "it made ", "it makes ",
                                                "it was ",  "it is ",    "it's "};
  bool opens = false, run_on = false;
  for (std::string_view o : kOpeners) opens = opens || rest.starts_with(o);
  for (std::string_view r : kRunOn) run_on = run_on || rest.starts_with(r);
  if (!opens && !run_on) return false;
  const std::string low = LowerAscii(before);
  const std::string last = low.substr(low.rfind(' ') + 1);
  static const std::set<std::string> kLeadsIn = {
      "what", "how", "where", "when", "why", "who", "which", "if", "whether", "that", "because",
      "cause", "cuz", "so", "and", "but", "or", "since", "think", "know", "tell", "say", "guess",
      "wonder", "sure", "whatever", "as", "than", "like", "while", "until", "unless", "though",
      "although", "once", "cos", "coz", "bc", "the", "a", "an", "my", "your", "to",
      // what someone says or thinks leads into it: "my doctor said i'm prediabetic"
      "said", "says", "told", "tells", "thinks", "thought", "reckons", "mentioned", "explained",
      "claims", "noticed", "found", "realized", "realised", "feel", "feels", "felt", "believe",
      "hope", "heard", "means", "meant", "suggests", "shows", "showed", "confirmed"};
  if (kLeadsIn.contains(last)) return false;
  if (run_on) return std::count(low.begin(), low.end(), ' ') >= 2;
  static constexpr std::string_view kAsks[] = {"quick question", "question", "hey",     "hi",
                                               "hello",          "ok so",    "okay so", "so about",
                                               "ok about"};
  bool asks = IsQuestionEn(std::string(before));
  for (std::string_view a : kAsks) asks = asks || StartsWithWord(low, a);
  return asks;
}

// What starts a request run on after a statement with no comma before it ("… full time now need
// help w/ an invoice", "… every day lol how do i stop this"): `s` is lower-case.
static bool StartsInlineRequestEn(std::string_view s) {
  // (called at every space of a sentence: the first letter rules out most places at once)
  if (s.empty() || std::string_view("nahpcwrt").find(s[0]) == std::string_view::npos) {
    return false;
  }
  for (std::string_view w : {"need help",
                             "need tips",
                             "need ideas",
                             "need advice",
                             "need suggestions",
                             "need recs",
                             "any ideas",
                             "any tips",
                             "any suggestions",
                             "any recs",
                             "any advice",
                             "help me ",
                             "pls ",
                             "please ",
                             "plz ",
                             "can u ",
                             "can you ",
                             "could u ",
                             "could you ",
                             "how do i ",
                             "how do we ",
                             "how can i ",
                             "how should i ",
                             "what should i ",
                             "what should we ",
                             "what should he ",
                             "what should she ",
                             "what should they ",
                             "redo ",
                             "thoughts?"}) {
    if (s.starts_with(w)) return true;
  }
  return false;
}

// "my dad" for "my dad's 68", "my older sister lives in Austin": the relative a clause that
// starts with "my" is about (a family word within its first three words); "" for the speaker.
static std::string RelativeSubjectEn(std::string_view clause) {
  const std::string low = LowerAscii(clause);
  if (!low.starts_with("my ")) return "";
  size_t b = 3;
  for (int words = 0; words < 3 && b < low.size(); ++words) {
    size_t e = b;
    while (e < low.size() && (std::isalpha(static_cast<unsigned char>(low[e])))) ++e;
    if (e == b) return "";
    if (en::Relations().contains(low.substr(b, e - b))) return std::string(clause.substr(0, e));
    if (e >= low.size() || low[e] != ' ') return "";
    b = e + 1;
  }
  return "";
}

std::string RelationNamedFirstEn(const std::string& clause) {
  const std::string low = LowerAscii(clause);
  size_t is = std::string::npos;
  size_t after = 0;
  for (std::string_view verb : {" is my ", "'s my ", " was my "}) {
    if (const size_t at = low.find(verb); at != std::string::npos) {
      is = at;
      after = at + verb.size();
      break;
    }
  }
  if (is == std::string::npos || is == 0) return clause;
  const std::string who = clause.substr(0, is);
  const std::string who_low = low.substr(0, is);
  // a name of up to three words ("the groom ben"), not a pronoun or a thing: "he is my
  // brother", "this is my sister", "what is my cousin's name"
  if (std::count(who.begin(), who.end(), ' ') > 2) return clause;
  for (std::string_view not_a_name :
       {"he", "she", "they", "it", "this", "that", "who", "what", "which", "there", "here", "where",
        "why", "how", "mine", "everyone", "nobody", "someone", "one"}) {
    if (who_low == not_a_name || who_low.ends_with(" " + std::string(not_a_name))) return clause;
  }
  // a place is where the relative is, not their name: "tucson is my aunt('s)"
  if (IsKnownCity(who_low, false)) return clause;
  // the relation, after at most one word that says which ("older", "little", "step"), ends the
  // clause: "ben is my brother's friend" is about someone else
  std::string rest = low.substr(after);
  // what follows in the same breath stays after it: "… is my sister and she's marrying a pilot"
  std::string tail;
  for (std::string_view joint : {" and ", " but ", " who "}) {
    if (const size_t at = rest.find(joint); at != std::string::npos) {
      tail = clause.substr(after + at);
      rest.resize(at);
    }
  }
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '.' || rest.back() == '!')) {
    rest.pop_back();
  }
  const size_t sp = rest.find(' ');
  const std::string said_first = clause.substr(after, rest.size());  // as typed
  {
    // "portuguese is my first language", "khruangbin is my fav band": an attribute of the
    // speaker's, its value said first (data/lexicon/en/predicates.tsv)
    static const auto lists = [] {
      std::pair<std::vector<std::string>, std::vector<std::string>> out;
      for (const auto& [key, words] : LexiconEntries("en/predicates.tsv")) {
        if (key == "named_first") out.first = words;
        if (key == "named_first_which") out.second = words;
      }
      return out;
    }();
    const bool noun = std::find(lists.first.begin(), lists.first.end(), rest) != lists.first.end();
    bool which = false;
    for (const std::string& w : lists.second) {
      // one noun after it: "fav band", "favorite food"
      if (rest.starts_with(w + " ") && rest.find(' ', w.size() + 1) == std::string::npos) {
        which = true;
      }
    }
    if (noun || which) return "my " + said_first + " is " + who + tail;
  }
  if (sp != std::string::npos && rest.find(' ', sp + 1) != std::string::npos) return clause;
  const std::string relation = sp == std::string::npos ? rest : rest.substr(sp + 1);
  if (RelationKey(relation).empty()) return clause;
  if (sp != std::string::npos) {
    static constexpr std::string_view kWhich[] = {
        "older", "younger", "big",    "little",   "baby", "twin", "half", "step",     "best",
        "elder", "eldest",  "oldest", "youngest", "new",  "ex",   "late", "favorite", "favourite"};
    const std::string_view which = std::string_view(rest).substr(0, sp);
    if (std::find(std::begin(kWhich), std::end(kWhich), which) == std::end(kWhich)) return clause;
  }
  const std::string said = clause.substr(after, rest.size());  // as typed
  return "my " + said + " is " + who + tail;
}

// Splits at commas and at "and"/"but"/"so"/"because" before a new subject or verb.
std::vector<Piece> SplitClausesEn(const std::string& sentence, bool question) {
  std::vector<std::string> raw;
  // raw pieces that follow a colon: what comes after "some context:" is not a list of what the
  // clause before it says
  std::vector<bool> after_colon(1, false);
  std::string cur;
  const std::string low = LowerAscii(sentence);
  for (size_t i = 0; i < sentence.size();) {
    const bool digit_comma = sentence[i] == ',' && i > 0 && i + 1 < sentence.size() &&
                             std::isdigit(static_cast<unsigned char>(sentence[i - 1])) &&
                             std::isdigit(static_cast<unsigned char>(sentence[i + 1]));
    const bool time_colon = sentence[i] == ':' && i > 0 && i + 1 < sentence.size() &&
                            std::isdigit(static_cast<unsigned char>(sentence[i - 1])) &&
                            std::isdigit(static_cast<unsigned char>(sentence[i + 1]));
    if ((sentence[i] == ',' && !digit_comma) || (sentence[i] == ':' && !time_colon) ||
        sentence[i] == '(' || sentence[i] == ')') {
      raw.push_back(cur);
      after_colon.push_back(sentence[i] == ':');
      cur.clear();
      ++i;
      continue;
    }
    // dashes between clauses: " - ", "—", "–"
    std::string_view rest = std::string_view(sentence).substr(i);
    if (rest.starts_with(" - ") || rest.starts_with("—") || rest.starts_with("–")) {
      raw.push_back(cur);
      after_colon.push_back(false);
      cur.clear();
      i += 3;  // " - ", and "—", "–" are 3 bytes in UTF-8
      continue;
    }
    bool split = false;
    // ("rip Nugget anyway i have a bearded dragon now": a turn of the talk ends a clause too;
    // every one starts with a space, and most bytes are none)
    for (std::string_view conj : {" and ", " but ", " so ", " because ", " while ", " though ",
                                  " anyway ", " anyways ", " btw "}) {
      if (sentence[i] != ' ') break;
      if (std::string_view(low).substr(i).starts_with(conj)) {
        std::string_view next = std::string_view(sentence).substr(i + conj.size());
        // "jake and I broke up", "my wife and I": one subject, not two clauses; so is "…that
        // Harold and I have gone our separate ways" (a relationship's end, endings.tsv)
        const bool compound = conj == " and " && FirstWordLower(next) == "i" && !cur.empty() &&
                              (!ContainsText(cur, ' ') || EndsWithMeEn(next));
        // "i'm vegan so no butter in it pls": what the user asks for because of the statement
        const std::string_view tail = std::string_view(low).substr(
            i + conj.size(), std::string_view(low).substr(i + conj.size()).find(','));
        // "… is my first language so sorry if my english is weird": an apology is its own clause
        const bool request_after =
            conj == " so " && (IsRequestEn(std::string(tail)) || StartsInlineRequestEn(tail) ||
                               StartsWithWord(tail, "sorry") || StartsWithWord(tail, "excuse") ||
                               StartsWithWord(tail, "forgive") || StartsWithWord(tail, "pardon"));
        if (!compound && (StartsWithSubjectEn(next) || IsPredicateHeadEn(FirstWordLower(next)) ||
                          request_after)) {
          raw.push_back(cur);
          after_colon.push_back(false);
          cur.clear();
          i += conj.size() - 1;
          split = true;
        }
        break;
      }
    }
    if (split) continue;
    // "shoe size is 10 if ur looking at running shoes", "i'm vegan if that matters": a condition
    // on the listener or on the talk ends the statement before it, which holds either way (a
    // condition on the speaker, "i'd move if i got the job", keeps the whole hypothetical)
    if (sentence[i] == ' ' && std::string_view(low).substr(i).starts_with(" if ") && !cur.empty() &&
        ContainsText(cur, ' ') && IfListenerEn(std::string_view(low).substr(i + 4))) {
      // (the condition itself says nothing of the user: it goes, up to the next comma; the kept
      // turn has it)
      const size_t comma = sentence.find(',', i);
      i = comma == std::string::npos ? sentence.size() : comma;
      continue;
    }
    // "can you give me dinner ideas i'm type 1 diabetic so …", "quick question before the
    // pharmacy closes i'm allergic to penicillin …": typed (or dictated) with no stop, a
    // question or request, then the speaker's statement
    if (sentence[i] == ' ' && std::count(cur.begin(), cur.end(), ' ') >= 2 &&
        StatementAfterAskEn(cur, std::string_view(low).substr(i + 1))) {
      raw.push_back(cur);
      after_colon.push_back(false);
      cur.clear();
      ++i;
      continue;
    }
    if (sentence[i] == ' ' && std::count(cur.begin(), cur.end(), ' ') >= 2 &&
        StartsInlineRequestEn(std::string_view(low).substr(i + 1))) {
      raw.push_back(cur);
      after_colon.push_back(false);
      cur.clear();
      ++i;
      continue;
    }
    cur += sentence[i];
    ++i;
  }
  raw.push_back(cur);
  std::vector<Piece> out;
  bool prev_has_subject = false;
  bool prev_correction = false;
  std::string prev_subject;  // "my dad" when the clause before was about him, else ""
  for (size_t r = 0; r < raw.size(); ++r) {
    std::string& text = raw[r];
    // (a short label before the colon, "my gym days: monday, friday", is what the list is of)
    if (after_colon[r] && r > 0 && std::count(raw[r - 1].begin(), raw[r - 1].end(), ' ') > 3) {
      prev_has_subject = false;
    }
    // "some context: 34, paralegal in columbus, 2 kids", "34, live in austin": a lone number
    // first in a list about the speaker (after a colon, or opening the sentence) is their age
    if ((after_colon[r] || r == 0) && r + 1 < raw.size()) {
      const std::string n = std::string(TrimCodepoints(text, U" ", U" "));
      const std::string& next = raw[r + 1];
      const bool words_next = std::any_of(next.begin(), next.end(), [](char c) {
        return std::isalpha(static_cast<unsigned char>(c));
      });
      // (opening the sentence, only before what the speaker says of themselves: not "12, that's
      // how many I ate")
      const bool about_speaker =
          after_colon[r] || StartsWithSubjectEn(next) || IsPredicateHeadEn(FirstWordLower(next));
      if (n.size() == 2 && std::isdigit(static_cast<unsigned char>(n[0])) &&
          std::isdigit(static_cast<unsigned char>(n[1])) && n[0] >= '1' && words_next &&
          about_speaker) {
        out.push_back({"I am " + n, false});
        prev_has_subject = false;  // the list goes on with what else the speaker is
        prev_correction = false;
        continue;
      }
    }
    if (text.find_first_not_of(" ") == std::string::npos) continue;
    const bool correction = IsCorrection(text, false);
    std::string_view trimmed = std::string_view(text).substr(text.find_first_not_of(" "));
    std::string first = FirstWordLower(trimmed);
    if (first == "and" || first == "but" || first == "also") {
      trimmed.remove_prefix(first.size());
      trimmed.remove_prefix(std::min(trimmed.find_first_not_of(" "), trimmed.size()));
      first = FirstWordLower(trimmed);
    }
    bool subject = StartsWithSubjectEn(trimmed) ||
                   LowerAscii(trimmed).find(" i ") != std::string::npos ||
                   LowerAscii(trimmed).find(" i'm ") != std::string::npos;
    if (subject) {
      out.push_back({std::string(trimmed), false});
      prev_has_subject = true;
      prev_subject = RelativeSubjectEn(trimmed);
    } else if (prev_has_subject && IsPredicateHeadEn(first)) {
      // "my dad's 68 and just got diagnosed with …": the relative goes on, not the speaker
      out.push_back({(prev_subject.empty() ? "I" : prev_subject) + " " + std::string(trimmed),
                     prev_subject.empty()});
    } else if (!out.empty() && prev_has_subject && !prev_correction &&
               !(question && r + 1 == raw.size()) && IsListContinuation(trimmed) &&
               !IsQuestionEn(std::string(trimmed)) && !StartsStateClauseEn(trimmed)) {
      out.back().text += ", " + std::string(trimmed);  // "I like tea, coffee and juice"
    } else {
      out.push_back({std::string(trimmed), false});
      prev_has_subject = false;
    }
    prev_correction = correction;
  }
  return out;
}

namespace {

bool StartsWithAt(std::string_view low, size_t i, std::string_view word) {
  if (low.substr(i, word.size()) != word) return false;
  size_t e = i + word.size();
  return e == low.size() || !std::isalnum(static_cast<unsigned char>(low[e]));
}

// Spaces, commas and dashes off both ends; a period off the front only.
std::string Trim(std::string_view s) {
  return std::string(TrimCodepoints(s, U" \t,:;.-—–", U" \t,:;-—–"));
}

// Emoji, pictographs and dingbats, with the joiners and variation selectors that build emoji
// sequences. Not every 4-byte character: CJK Extension B and later (U+20000 on) are words,
// as in names (𠮷).
bool IsSymbolCodepoint(char32_t c) {
  return (c >= 0x1F000 && c <= 0x1FAFF) || (c >= 0x2600 && c <= 0x27BF) ||
         (c >= 0xE0000 && c <= 0xE007F) || c == 0x200D || (c >= 0xFE00 && c <= 0xFE0F);
}

bool IsAsciiAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Emoji and other symbols end a clause's text but say nothing a pattern reads. One between two
// letters or digits leaves a space: "s🐱fish" is not the word "sfish".
std::string DropSymbols(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t n = CodepointLength(s, i);
    if (IsSymbolCodepoint(CodepointAt(s, i))) {
      i += n;
      if (!out.empty() && IsAsciiAlnum(out.back()) && i < s.size() && IsAsciiAlnum(s[i])) {
        out += ' ';
      }
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace

std::string StripMarkersEn(std::string_view clause) {
  static const std::vector<std::string_view> kLead = {"oh no",
                                                      "oh man",
                                                      "omg",
                                                      "oh btw",
                                                      "ok btw",
                                                      "btw",
                                                      "by the way",
                                                      "oh and",
                                                      "oh yeah",
                                                      "oh",
                                                      "and",
                                                      "but",
                                                      "ok so",
                                                      "okay so",
                                                      "so yeah",
                                                      "so",
                                                      "ok",
                                                      "okay",
                                                      "ugh",
                                                      "well",
                                                      "um",
                                                      "uh",
                                                      "hmm",
                                                      "yeah",
                                                      "yep",
                                                      "also",
                                                      "plus",
                                                      "update",
                                                      "fyi",
                                                      "just fyi",
                                                      "heads up",
                                                      "honestly",
                                                      "haha",
                                                      "lol",
                                                      "anyway",
                                                      "anyways",
                                                      "big news",
                                                      "good news",
                                                      "bad news",
                                                      "quick one",
                                                      "quick update",
                                                      "guess what",
                                                      "omg",
                                                      "wow",
                                                      "alright",
                                                      "reminder that",
                                                      "just a reminder",
                                                      "real talk",
                                                      "tbh",
                                                      "ah",
                                                      "welp",
                                                      "anyhow",
                                                      "oops",
                                                      "oops typo",
                                                      "typo",
                                                      "sorry",
                                                      "wait no",
                                                      "no wait",
                                                      "wait",
                                                      "actually no",
                                                      "no sorry",
                                                      "my bad",
                                                      "hey",
                                                      "hi",
                                                      "hello",
                                                      "then",
                                                      "now",
                                                      "for the record",
                                                      "for context",
                                                      "just so you know",
                                                      "fun fact",
                                                      "random but",
                                                      "side note",
                                                      "as you know",
                                                      "you know what",
                                                      "news",
                                                      "finally",
                                                      "sooo",
                                                      "soo",
                                                      "ok wait",
                                                      "actually",
                                                      "just confirmed",
                                                      "confirmed",
                                                      "quick fact for the file",
                                                      "quick fact",
                                                      "fact",
                                                      "note to self",
                                                      "decision made",
                                                      "two facts worth filing",
                                                      "worth noting",
                                                      "worth filing",
                                                      "for the file",
                                                      "fact",
                                                      "facts"};
  std::string s = DropSymbols(clause);
  for (bool moved = true; moved;) {
    moved = false;
    std::string t = Trim(s);
    const std::string low = LowerAscii(t);
    for (std::string_view m : kLead) {
      if (!StartsWithAt(low, 0, m)) continue;
      // "no", "yes", "now", "then" only as a word of their own: "now I live…", "no, …".
      std::string rest = Trim(std::string_view(t).substr(m.size()));
      if (rest.empty()) {
        // a clause that is only a marker ("quick fact for the file", "two facts worth filing")
        if (m.size() > 6) return "";
        break;
      }
      if ((m == "then" || m == "now" || m == "so" || m == "well") &&
          !(t.size() > m.size() && (t[m.size()] == ',' || t[m.size()] == ' '))) {
        break;
      }
      s = rest;
      moved = true;
      break;
    }
    if (moved) continue;
    s = t;
  }
  static const std::vector<std::string_view> kTrail = {"lol",
                                                       "haha",
                                                       "hahaha",
                                                       "tbh",
                                                       "honestly",
                                                       "btw",
                                                       "just fyi",
                                                       "fyi",
                                                       "tho",
                                                       "though",
                                                       "lmao",
                                                       "ugh",
                                                       "lmfao",
                                                       "xd",
                                                       "haha jk",
                                                       "jk",
                                                       "i guess",
                                                       "ya know",
                                                       "you know",
                                                       "in case that's relevant",
                                                       "if that matters",
                                                       "just so you know",
                                                       "ok",
                                                       "now",
                                                       "lolol"};
  for (bool moved = true; moved;) {
    moved = false;
    const std::string low = LowerAscii(s);
    for (std::string_view m : kTrail) {
      if (low.size() > m.size() + 1 && low.ends_with(m) &&
          !std::isalnum(static_cast<unsigned char>(low[low.size() - m.size() - 1])) && m != "now") {
        s = Trim(std::string_view(s).substr(0, s.size() - m.size()));
        moved = true;
        break;
      }
    }
  }
  return s;
}

std::string StripMarkersZh(std::string_view clause) {
  static const std::vector<std::string_view> kLead = {
      "对了",       "话说",       "跟你说",   "告诉你", "哎呀",     "哎",       "唉",
      "嗯嗯",       "嗯",         "哈哈哈",   "哈哈",   "另外",     "还有",     "然后",
      "而且",       "不过",       "所以",     "但是",   "哦",       "啊",       "噢",
      "好吧",       "顺便说一下", "顺便说下", "顺便",   "更新一下", "诶",       "呃",
      "额",         "说实话",     "老实说",   "反正",   "总之",     "记住啊",   "记住",
      "帮我记一下", "记一下",     "天哪",     "算了",   "不好意思", "抱歉",     "对不起",
      "刚才",       "哦不对",     "啊不对",   "不对",   "哦不",     "啊不",     "说错了",
      "打错了",     "我说错了",   "其实",     "就是",   "那个",     "对",       "是这样",
      "跟你讲",     "我跟你说",   "好消息",   "坏消息", "终于",     "现在的话", "……",
      "…",          "，",         ",",        "、",     "～",       "~",        " "};
  std::string s = DropSymbols(clause);
  static const std::vector<std::string_view> kTrail = {
      "哈哈", "哈", "～", "~",  "……", "…",      " ",      "啦",    "呀",
      "嘛",   "哦", "呢", "啊", "吧", "打错了", "说错了", "记错了"};
  StripLeadingWords(&s, kLead);
  StripTrailingWords(&s, kTrail);
  return s;
}

void StripLeadingWords(std::string* s, const std::vector<std::string_view>& words) {
  for (bool moved = true; moved && !s->empty();) {
    moved = false;
    for (std::string_view m : words) {
      if (s->size() > m.size() && std::string_view(*s).starts_with(m)) {
        s->erase(0, m.size());
        moved = true;
        break;
      }
    }
  }
}

void StripTrailingWords(std::string* s, const std::vector<std::string_view>& words) {
  for (bool moved = true; moved && !s->empty();) {
    moved = false;
    for (std::string_view m : words) {
      if (s->size() > m.size() && std::string_view(*s).ends_with(m)) {
        s->resize(s->size() - m.size());
        moved = true;
        break;
      }
    }
  }
}

std::optional<Reported> ReportedSpeechEn(std::string_view clause) {
  const std::string low = LowerAscii(clause);
  static const std::vector<std::string_view> kVerbs = {
      " said that ",    " says that ",   " told me that ", " tells me that ",
      " thinks that ",  " said ",        " says ",         " told me ",
      " tells me ",     " thinks ",      " mentioned ",    " confirmed ",
      " reckons ",      " warned me ",   " explained ",    " keeps telling me ",
      " keeps saying ", " always says ", " just told me ", " just said "};
  for (std::string_view v : kVerbs) {
    size_t k = low.find(v);
    if (k == std::string::npos || k == 0 || k > 40) continue;
    std::string who = Trim(std::string_view(clause).substr(0, k));
    std::string rest = Trim(std::string_view(clause).substr(k + v.size()));
    const std::string who_low = LowerAscii(who);
    if (rest.empty() || who_low == "i" || who_low == "we" || who_low.starts_with("i ") ||
        who_low.starts_with("we ") || who_low == "you" || who_low == "it" || who_low == "that") {
      return std::nullopt;
    }
    int words = 1 + static_cast<int>(std::count(who.begin(), who.end(), ' '));
    if (words > 4) return std::nullopt;
    // Only people report: "the chiller spec sheet says …" is a fact about the world.
    static const std::vector<std::string_view> kPeople = {"doctor",
                                                          "doc",
                                                          "dentist",
                                                          "vet",
                                                          "allergist",
                                                          "therapist",
                                                          "psychiatrist",
                                                          "nurse",
                                                          "boss",
                                                          "manager",
                                                          "coach",
                                                          "trainer",
                                                          "landlord",
                                                          "advisor",
                                                          "adviser",
                                                          "teacher",
                                                          "professor",
                                                          "mom",
                                                          "mum",
                                                          "mother",
                                                          "dad",
                                                          "father",
                                                          "wife",
                                                          "husband",
                                                          "partner",
                                                          "boyfriend",
                                                          "girlfriend",
                                                          "sister",
                                                          "brother",
                                                          "friend",
                                                          "roommate",
                                                          "coworker",
                                                          "colleague",
                                                          "physician",
                                                          "surgeon",
                                                          "optometrist",
                                                          "dermatologist",
                                                          "cardiologist",
                                                          "physio",
                                                          "physical therapist",
                                                          "eye doctor",
                                                          "pharmacist",
                                                          "lawyer",
                                                          "accountant",
                                                          "grandma",
                                                          "grandpa",
                                                          "son",
                                                          "daughter",
                                                          "kids",
                                                          "parents",
                                                          "neighbor",
                                                          "pediatrician",
                                                          "counselor",
                                                          "tutor",
                                                          "mentor",
                                                          "recruiter",
                                                          "hr",
                                                          "gp",
                                                          "ob",
                                                          "obgyn",
                                                          "specialist",
                                                          "nutritionist",
                                                          "dietitian",
                                                          "ophthalmologist",
                                                          "orthodontist",
                                                          "fiance",
                                                          "fiancé"};
    bool person = std::isupper(static_cast<unsigned char>(who[0])) && !ContainsText(who_low, ' ') &&
                  who_low != "she" && who_low != "he" && who_low != "they" && who_low != "it";
    for (std::string_view p : kPeople) {
      person = person || who_low == p || who_low.ends_with(" " + std::string(p));
    }
    if (!person) return std::nullopt;
    for (std::string_view det : {"my ", "the ", "our ", "his ", "her ", "their "}) {
      if (who_low.starts_with(det)) {
        who = who.substr(det.size());
        break;
      }
    }
    for (std::string_view adv : {" just", " also", " finally", " even", " always", " literally"}) {
      if (LowerAscii(who).ends_with(adv)) who.resize(who.size() - adv.size());
    }
    return Reported{who, rest, false};
  }
  return std::nullopt;
}

std::optional<Reported> ReportedSpeechZh(std::string_view clause) {
  struct Lead {
    std::string_view text;
    bool directive;
  };
  static const std::vector<Lead> kLeads = {
      {"跟我说", false}, {"告诉我", false}, {"对我说", false}, {"老说", false}, {"总说", false},
      {"总是说", false}, {"一直说", false}, {"说", false},     {"觉得", false}, {"认为", false},
      {"让我", true},    {"叫我", true},    {"建议我", true},  {"要我", true}};
  size_t best = std::string_view::npos;
  const Lead* lead = nullptr;
  for (const Lead& l : kLeads) {
    size_t k = clause.find(l.text);
    if (k == std::string_view::npos || k == 0 || k > 27) continue;
    if (k < best) best = k, lead = &l;
  }
  if (!lead) return std::nullopt;
  std::string who(clause.substr(0, best));
  if (who == "我" || who == "我们" || ContainsText(who, "你") || ContainsText(who, "他") ||
      ContainsText(who, "她") || ContainsText(who, "听") || ContainsText(who, "我觉") ||
      ContainsText(who, "我说")) {
    return std::nullopt;
  }
  // The reporter is a person or a role: "医生", "我妈", "牙医", "老板", "我们领导".
  static const std::vector<std::string_view> kRoles = {
      "医生", "大夫", "牙医",   "教练", "老师",   "领导",   "老板", "房东", "妈",
      "爸",   "老婆", "老公",   "同事", "朋友",   "闺蜜",   "女儿", "儿子", "经理",
      "主任", "护士", "营养师", "律师", "HR",     "先生",   "太太", "媳妇", "奶奶",
      "爷爷", "外婆", "姥姥",   "哥",   "姐",     "弟",     "妹",   "导师", "师傅",
      "医师", "专家", "客户",   "对象", "男朋友", "女朋友", "婆婆", "上司", "boss"};
  bool role = false;
  for (std::string_view r : kRoles) role = role || ContainsText(who, r);
  if (!role) return std::nullopt;
  std::string rest(clause.substr(best + lead->text.size()));
  while (!rest.empty() && (rest.starts_with("，") || rest.starts_with(","))) {
    rest.erase(0, rest.starts_with("，") ? 3 : 1);
  }
  if (rest.empty()) return std::nullopt;
  if (lead->directive) rest = "我" + rest;
  std::string reporter = who;
  if (reporter.starts_with("我们"))
    reporter.erase(0, 6);
  else if (reporter.starts_with("我"))
    reporter.erase(0, 3);
  return Reported{reporter, rest, lead->directive};
}

// What the clause says the user stopped, dropped or gave away: "scrapped iceland, too pricey" →
// "iceland", "we had to rehome Kiwi" → "Kiwi", "quit smoking" → "smoking"
// (the Stopped frame reads "left X": frames_en_plans.cc). The clause keeps saying it; the memory
// that states the object no longer holds. Empty when there is none.
static std::string StoppedObjectEn(std::string_view clause) {
  const std::string low = " " + LowerAscii(clause) + " ";
  // endings.tsv `stop`: the verbs, in the order they are tried (" gave up on " before " gave up ")
  static const std::vector<std::string> kStops = [] {
    std::vector<std::string> out;
    for (const std::string& w : LexiconWords("en/endings.tsv", "stop"))
      out.push_back(" " + w + " ");
    return out;
  }();
  static constexpr std::string_view kEnds[] = {
      " at ",        " to ",    " for ",     " because ",  " bc ",      " since ",
      " after ",     " and ",   " so ",      " but ",      " last ",    " this ",
      " yesterday ", " today ", " in ",      " on ",       " with ",    " lol ",
      " haha ",      " way ",   " too ",     " already ",  " now ",     " finally ",
      " again ",     " back ",  " a while ", " for good ", " recently "};
  static constexpr std::string_view kDeterminers[] = {"the ", "a ",   "an ",    "my ",   "our ",
                                                      "his ", "her ", "their ", "that ", "those "};
  static constexpr std::string_view kVague[] = {"it",   "that", "this",  "them", "him",  "her",
                                                "work", "home", "early", "late", "town", "off"};
  // "we had to put pepper down", "had to put biscuit to sleep": a pet's death, said with the
  // pet between the words (only after "had to": "put my phone down" ends nothing)
  if (const size_t k = low.find(" had to put "); k != std::string::npos) {
    const size_t b = k + 12;
    for (std::string_view tail : {" down", " to sleep"}) {
      const size_t e = low.find(tail, b);
      if (e == std::string::npos || e <= b) continue;
      std::string object = Trim(clause.substr(b - 1, e - b));
      bool owned = false;
      for (std::string_view det : kDeterminers) {
        if (LowerAscii(object).starts_with(det)) {
          object.erase(0, det.size());
          owned = true;
        }
      }
      // a name ("pepper"), or a pet of the user's ("my old cat luna"); not a thing ("my phone")
      if (!object.empty() && std::count(object.begin(), object.end(), ' ') < 3 &&
          (owned ? NamesPet(object, false) : !ContainsText(object, ' ')) &&
          std::find(std::begin(kVague), std::end(kVague), LowerAscii(object)) == std::end(kVague)) {
        // the pet's name, or the pet as the user calls it: "luna" of "old cat luna"
        return owned ? object.substr(object.rfind(' ') + 1) : object;
      }
    }
  }
  for (const std::string& stop : kStops) {
    const size_t k = low.find(stop);
    if (k == std::string::npos) continue;
    const size_t b = k + stop.size();  // in `low`; `clause` is one byte behind
    size_t e = low.size() - 1;
    for (std::string_view end : kEnds) e = std::min(e, low.find(end, b - 1));
    for (char p : std::string_view(",;.!?(")) e = std::min(e, low.find(p, b));
    if (e <= b) continue;
    std::string object = Trim(clause.substr(b - 1, e - b));
    for (std::string_view det : kDeterminers) {
      if (LowerAscii(object).starts_with(det)) object.erase(0, det.size());
    }
    // "sold the old Transit": the thing is the Transit (endings.tsv `old`)
    static const std::vector<std::string> kOld = LexiconWords("en/endings.tsv", "old");
    const std::string lowered = LowerAscii(object);
    for (const std::string& o : kOld) {
      if (object.size() > o.size() + 1 && lowered.starts_with(o + " ")) {
        object.erase(0, o.size() + 1);
        break;
      }
    }
    const std::string low_object = LowerAscii(object);
    // "lost 10 lbs", "lost my keys": an amount or a thing mislaid ends nothing ("we lost
    // biscuit in august" ends Biscuit)
    if (stop == " lost " &&
        (object.empty() || std::isdigit(static_cast<unsigned char>(object[0])) ||
         low.compare(k, 9, " lost my ") == 0 || low.compare(k, 10, " lost the ") == 0 ||
         low.compare(k, 8, " lost a ") == 0 || low_object.starts_with("weight") ||
         low_object.starts_with("track"))) {
      continue;
    }
    if (object.empty() || std::count(object.begin(), object.end(), ' ') > 3 ||
        std::find(std::begin(kVague), std::end(kVague), low_object) != std::end(kVague)) {
      continue;
    }
    return object;
  }
  return "";
}

namespace {

// The word lists of endings.tsv: what says a relationship or a plan of the user's ended when
// the ended thing is said first ("jess and i split", "bali's off", "韩语放弃了").
struct EndingLists {
  std::vector<std::string> with_me, is, kind, vague;  // en
  std::vector<std::string> after, before, trim;       // zh (vague shared by key)
};

const EndingLists& EndingsFor(bool zh) {
  auto load = [](const char* file) {
    EndingLists l;
    for (const auto& [key, words] : LexiconEntries(file)) {
      if (key == "with_me") l.with_me = words;
      if (key == "is") l.is = words;
      if (key == "kind") l.kind = words;
      if (key == "vague") l.vague = words;
      if (key == "after") l.after = words;
      if (key == "before") l.before = words;
      if (key == "trim") l.trim = words;
    }
    // longest first: "先放一放" before "放一放了", "我们" before "我"
    for (auto* v : {&l.after, &l.before, &l.trim}) {
      std::stable_sort(v->begin(), v->end(), [](const std::string& a, const std::string& b) {
        return a.size() > b.size();
      });
    }
    return l;
  };
  static const EndingLists en = load("en/endings.tsv");
  static const EndingLists zh_lists = load("zh/endings.tsv");
  return zh ? zh_lists : en;
}

bool IsIn(const std::vector<std::string>& words, std::string_view w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

// "camino idea" → "camino": the word that names an ended thing's kind is not what it was.
std::string WithoutKindEn(std::string object) {
  const std::string low = LowerAscii(object);
  for (const std::string& k : EndingsFor(false).kind) {
    if (low.size() > k.size() + 1 && low.ends_with(" " + k)) {
      return Trim(std::string_view(object).substr(0, object.size() - k.size() - 1));
    }
  }
  return object;
}

// The thing named just before `at` in `s` (lowercase `low` alongside): back over at most four
// words, stopping at punctuation, a determiner or a filler ("ok keto" → "keto", "our trip to
// japan" → "trip to japan"). Empty when none, or a pronoun or a vague word.
std::string NamedBeforeEn(const std::string& s, const std::string& low, size_t at) {
  static const std::set<std::string_view> kStopAt = {
      "the",        "my",    "our",     "a",      "an",   "his", "her",   "their",
      "ok",         "okay",  "so",      "well",   "and",  "but", "lol",   "update",
      "welp",       "yeah",  "also",    "anyway", "then", "now", "guess", "sadly",
      "officially", "i",     "we",      "me",     "he",   "she", "they",  "you",
      "it",         "that",  "this",    "just",   "btw",  "tbh", "ngl",   "haha",
      "plot",       "twist", "finally", "oh",     "ugh",  "news"};
  size_t b = at;
  int words = 0;
  while (b > 0 && words < 4) {
    size_t e = b;
    while (e > 0 && low[e - 1] == ' ') --e;
    size_t w = e;
    while (w > 0 && (std::isalnum(static_cast<unsigned char>(low[w - 1])) || low[w - 1] == '-' ||
                     static_cast<unsigned char>(low[w - 1]) >= 0x80)) {
      --w;
    }
    if (w == e) break;  // punctuation
    if (kStopAt.contains(std::string_view(low).substr(w, e - w))) break;
    b = w;
    ++words;
  }
  if (words == 0) return "";
  std::string object = Trim(std::string_view(s).substr(b, at - b));
  if (object.empty() || IsIn(EndingsFor(false).vague, LowerAscii(object))) return "";
  return WithoutKindEn(object);
}

// "jess and i split in may", "me and marco broke up", "bali's off", "keto is dead to me".
void EndedNamedFirstEn(const std::string& s, std::vector<std::string>* ends) {
  const EndingLists& l = EndingsFor(false);
  const std::string low = " " + LowerAscii(s) + " ";
  const std::string padded = " " + s + " ";
  // where the phrases are looked for: punctuation after a word ends it as a space does ("are
  // done.", "off,"); the walk back to the name still stops at it (`low`)
  std::string words = low;
  for (char& c : words) {
    if (std::ispunct(static_cast<unsigned char>(c)) && c != '\'' && c != '&') c = ' ';
  }
  auto add = [&](std::string v) {
    if (!v.empty() && !IsIn(*ends, v)) ends->push_back(std::move(v));
  };
  // the phrases looked for, built once: " and i broke up ", " is off ", "'s totally off "…
  static const auto phrases = [] {
    const EndingLists& lists = EndingsFor(false);
    std::pair<std::vector<std::string>, std::vector<std::string>> out;
    for (const std::string& verb : lists.with_me) {
      for (std::string_view pair : {" and i ", " & i "})
        out.first.push_back(std::string(pair) + verb + " ");
    }
    for (const std::string& word : lists.is) {
      for (std::string_view be : {" is ", "'s ", " s ", " is officially ", "'s officially ",
                                  " is totally ", "'s totally "}) {
        out.second.push_back(std::string(be) + word + " ");
      }
    }
    return out;
  }();
  if (words.find(" i ") != std::string::npos) {
    for (const std::string& phrase : phrases.first) {
      const size_t k = words.find(phrase);
      if (k != std::string::npos) add(NamedBeforeEn(padded, low, k));
    }
  }
  if (const size_t k = words.find(" me and "); k != std::string::npos) {
    for (const std::string& verb : l.with_me) {
      const size_t v = words.find(" " + verb + " ", k + 8);
      // "me and marco broke up": the name between, one or two words
      if (v != std::string::npos && v - (k + 8) <= 20 && v > k + 8) {
        std::string name = Trim(std::string_view(padded).substr(k + 8, v - k - 8));
        if (std::count(name.begin(), name.end(), ' ') <= 1) add(name);
      }
    }
  }
  if (words.find(" is ") != std::string::npos || words.find("'s ") != std::string::npos ||
      words.find(" s ") != std::string::npos) {
    for (const std::string& phrase : phrases.second) {
      const size_t k = words.find(phrase);
      if (k == std::string::npos || k == 0) continue;
      add(NamedBeforeEn(padded, low, k));
    }
  }
}

// The ended topic said first in Chinese ("韩语放弃了" → 韩语, "公司取消大小周了" → 大小周), trimmed
// of subjects and adverbs; empty when it is no topic (a pronoun, a vague word, too short or long).
std::string TrimTopicZh(std::string topic) {
  const EndingLists& l = EndingsFor(true);
  // only what follows the last punctuation or space belongs to this statement
  for (std::string_view p : {"，", "。", "！", "？", "、", ",", " ", "!", "?"}) {
    if (const size_t k = topic.rfind(p); k != std::string::npos) topic.erase(0, k + p.size());
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const std::string& t : l.trim) {
      if (topic.size() > t.size() && topic.starts_with(t)) {
        topic.erase(0, t.size());
        changed = true;
      }
      if (topic.size() > t.size() && topic.ends_with(t)) {
        topic.resize(topic.size() - t.size());
        changed = true;
      }
    }
  }
  const size_t n = CountCodepoints(topic);
  if (n < 2 || n > 6 || IsIn(l.vague, topic)) return "";
  // ("跟阿杰结束了" is read by the relationship frame in TakeEndsZh)
  for (std::string_view other : {"他", "她", "它", "你", "人", "谁", "跟", "和"}) {
    if (topic.starts_with(other)) return "";
  }
  for (unsigned char c : topic) {
    if (c < 0x80 && !std::isalnum(c)) return "";
  }
  return topic;
}

void EndedNamedFirstZh(const std::string& s, std::vector<std::string>* ends) {
  const EndingLists& l = EndingsFor(true);
  auto add = [&](std::string v) {
    if (!v.empty() && !IsIn(*ends, v)) ends->push_back(std::move(v));
  };
  for (const std::string& verb : l.before) {
    const size_t k = s.find(verb);
    if (k == std::string::npos) continue;
    std::string object = s.substr(k + verb.size());
    size_t e = object.size();
    for (std::string_view stop : {"了", "啦", "，", "。", "！", ",", " ", "!"}) {
      e = std::min(e, object.find(stop));
    }
    add(TrimTopicZh(object.substr(0, e)));
    break;
  }
  for (const std::string& verb : l.after) {
    const size_t k = s.find(verb);
    if (k == std::string::npos || k == 0) continue;
    // the ending is what the clause says: only particles and punctuation after it
    std::string_view rest = std::string_view(s).substr(k + verb.size());
    for (bool changed = true; changed && !rest.empty();) {
      changed = false;
      for (std::string_view p :
           {"了", "啦", "哈", "呢", "吧", "呀", "啊", "！", "。", "～", "…", "!", ".", "~", " "}) {
        if (rest.starts_with(p)) {
          rest.remove_prefix(p.size());
          changed = true;
        }
      }
    }
    if (!rest.empty()) continue;
    add(TrimTopicZh(s.substr(0, k)));
    break;
  }
}

}  // namespace

static bool EndsWithMeEn(std::string_view after_and) {
  const std::string low = LowerAscii(after_and.substr(0, 48));
  if (!low.starts_with("i ")) return false;
  const std::string_view rest = std::string_view(low).substr(2);
  for (const std::string& p : EndingsFor(false).with_me) {
    if (rest.starts_with(p)) return true;
  }
  return false;
}

std::string TakeEndsEn(std::string_view clause, std::vector<std::string>* ends) {
  std::string s(clause);
  std::string low = LowerAscii(s);
  // "switched (me) from X to Y", "moved from X to Y", "went from X to Y"
  for (size_t k = low.find(" from "); k != std::string::npos; k = low.find(" from ", k + 1)) {
    size_t to = low.find(" to ", k + 6);
    if (to == std::string::npos || to - k > 40) continue;
    bool change_verb = false;
    for (std::string_view v :
         {"switch", "moved", "move", "went", "changed", "transferred", "upgraded", "upped",
          "bumped", "raised", "cut", "dropped", "lowered", "pushed", "reduced"}) {
      size_t at = low.rfind(v, k);
      change_verb = change_verb || (at != std::string::npos && k - at < 20);
    }
    if (!change_verb) continue;
    std::string old = Trim(std::string_view(s).substr(k + 6, to - k - 6));
    for (std::string_view det : {"the ", "a ", "an ", "my ", "our "}) {
      if (LowerAscii(old).starts_with(det)) old.erase(0, det.size());
    }
    if (!old.empty()) ends->push_back(old);
    s.erase(k, to - k);
    low.erase(k, to - k);
    break;
  }
  // "Y instead of X", "instead of X, Y"
  if (size_t k = low.find("instead of "); k != std::string::npos) {
    size_t b = k + 11;
    size_t e = low.find_first_of(",;", b);
    if (e == std::string::npos) e = low.size();
    std::string old = Trim(std::string_view(s).substr(b, e - b));
    for (std::string_view det : {"the ", "a ", "an ", "my ", "our "}) {
      if (LowerAscii(old).starts_with(det)) old.erase(0, det.size());
    }
    if (!old.empty()) ends->push_back(old);
    s = Trim(std::string_view(s).substr(0, k)) + (e < s.size() ? " " + s.substr(e + 1) : "");
    s = Trim(s);
  }
  // "no more X"
  if (size_t k = LowerAscii(s).find("no more "); k != std::string::npos) {
    std::string old = Trim(std::string_view(s).substr(k + 8));
    if (!old.empty() && old.size() < 40) ends->push_back(old);
  }
  if (std::string stopped = WithoutKindEn(StoppedObjectEn(s));
      !stopped.empty() && std::find(ends->begin(), ends->end(), stopped) == ends->end()) {
    ends->push_back(stopped);
  }
  EndedNamedFirstEn(s, ends);
  return s;
}

std::string TakeEndsZh(std::string_view clause, std::vector<std::string>* ends) {
  std::string s(clause);
  EndedNamedFirstZh(s, ends);
  // 从X换成Y / 从X搬到Y / 从X转到Y
  if (size_t from = s.find("从"); from != std::string::npos) {
    for (std::string_view to : {"换成", "换到", "改成", "改到", "转到", "搬回", "搬到", "搬去",
                                "调到", "升到", "降到", "涨到", "变成"}) {
      size_t k = s.find(to, from + 3);
      if (k == std::string::npos || k - from > 30) continue;
      std::string old = s.substr(from + 3, k - from - 3);
      if (!old.empty()) ends->push_back(old);
      s.erase(from, k - from);
      return s;
    }
  }
  // 把X换成Y
  if (size_t ba = s.find("把"); ba != std::string::npos) {
    for (std::string_view to : {"换成", "改成", "换掉"}) {
      size_t k = s.find(to, ba + 3);
      if (k == std::string::npos || k - ba > 30) continue;
      std::string old = s.substr(ba + 3, k - ba - 3);
      if (!old.empty()) ends->push_back(old);
      break;
    }
  }
  // 跟X分了 / 和X分手了: the relationship with X ended
  for (std::string_view with : {"跟", "和"}) {
    const size_t w = s.find(with);
    if (w == std::string::npos) continue;
    for (std::string_view split : {"分手", "分了", "离婚", "掰了", "结束"}) {
      const size_t k = s.find(split, w + with.size());
      if (k == std::string::npos || k == w + with.size() || k - w > 24) continue;
      // "跟阿杰彻底结束了": the adverb is not the name
      std::string who = TrimTopicZh(s.substr(w + with.size(), k - w - with.size()));
      if (!who.empty() && !IsIn(*ends, who)) ends->push_back(who);
      break;
    }
  }
  // X，不是Y / 是X不是Y ("X而不是Y" is a choice of X over Y, not an ending)
  if (size_t no = s.find("不是");
      no != std::string::npos && no > 0 && !std::string_view(s).substr(0, no).ends_with("而")) {
    std::string old = s.substr(no + 6);
    while (!old.empty() && (old.ends_with("了") || old.ends_with("啊") || old.ends_with("哈"))) {
      old.resize(old.size() - 3);
    }
    if (!old.empty() && old.size() <= 18) {
      ends->push_back(old);
      s.resize(no);
      while (s.ends_with("，") || s.ends_with(",")) s.resize(s.size() - (s.ends_with(",") ? 1 : 3));
    }
  }
  return s;
}

}  // namespace engram::extract
