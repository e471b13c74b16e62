// The built-in rule extractor ("rules-v1"): splits each user turn into sentences and clauses,
// resolves time expressions, and reads self-statements with the per-language pattern tables
// (rule_patterns_en.cc, rule_patterns_zh.cc). See README.md for what it covers.
#include <algorithm>
#include <string>

#include "engram/extraction.h"
#include "extract/rule_patterns.h"
#include "text/time_expressions.h"
#include "text/language.h"
#include "text/normalizer.h"

namespace engram {
namespace extract {

const KindTraits& TraitsOf(Kind kind) {
  using T = MemoryType;
  static const KindTraits kTraits[] = {
      /* kName */ {T::kFact, "user/name", false, true, 0.9},
      /* kLocation */ {T::kFact, "user/location", false, true, 0.8},
      /* kHometown */ {T::kFact, "user/hometown", false, true, 0.7},
      /* kEmployer */ {T::kFact, "user/employer", false, true, 0.75},
      /* kWorkPlace */ {T::kFact, "user/work_location", false, true, 0.6},
      /* kJob */ {T::kFact, "user/job", false, true, 0.75},
      /* kLike */ {T::kPreference, "user/likes", true, false, 0.6},
      /* kDislike */ {T::kPreference, "user/likes", true, false, 0.6},
      /* kAllergy */ {T::kFact, "user/allergy", true, false, 0.9},
      /* kHealth */ {T::kFact, "user/health", true, false, 0.85},
      /* kDiet */ {T::kPreference, "user/diet", false, true, 0.7},
      /* kMarital */ {T::kFact, "user/marital_status", false, true, 0.7},
      /* kPet */ {T::kFact, "user/pet", true, false, 0.6},
      /* kFamily */ {T::kFact, "user/family", true, false, 0.7},
      /* kGoal */ {T::kGoal, "user/goal", true, false, 0.7},
      /* kSkill */ {T::kSkill, "user/skill", true, false, 0.6},
      /* kRoutine */ {T::kFact, "user/routine", true, false, 0.5},
      /* kAppointment */ {T::kEvent, "", false, false, 0.7},
      /* kEvent */ {T::kEvent, "", false, false, 0.5},
      /* kFavorite */ {T::kPreference, "user/favorite", true, true, 0.6},
      /* kAttribute */ {T::kFact, "user", true, true, 0.6},
  };
  return kTraits[static_cast<int>(kind)];
}

std::string SlotKey(std::string_view object) {
  std::string s = NormalizeForMatching(object);
  std::string out;
  bool space = false;
  for (char ch : s) {
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '"' || ch == '\'' || ch == '.' ||
        ch == '!') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
  }
  for (std::string_view article : {"a ", "an ", "the ", "my ", "some ", "their "}) {
    if (out.starts_with(article)) out.erase(0, article.size());
  }
  for (std::string_view measure : {"一只", "一条", "一个", "一位", "只", "条"}) {
    if (out.starts_with(measure) && out.size() > measure.size()) out.erase(0, measure.size());
  }
  if (out.size() > 40) {
    size_t n = 40;
    while (n > 0 && (static_cast<unsigned char>(out[n]) & 0xC0) == 0x80) --n;
    out.resize(n);
  }
  return out;
}

}  // namespace extract

namespace {

using extract::ClauseInput;
using extract::Kind;
using extract::Statement;

constexpr TimestampMs kDayMs = 86'400'000;

bool IsUserRole(std::string_view role) {
  return role != "assistant" && role != "system" && role != "tool" && role != "function";
}

struct Sentence {
  std::string text;
  bool question = false;
};

bool IsAbbreviation(std::string_view text, size_t dot) {
  size_t b = dot;
  while (b > 0 && std::isalpha(static_cast<unsigned char>(text[b - 1]))) --b;
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
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

bool IsCorrection(std::string_view sentence, bool zh) {
  if (zh) {
    for (std::string_view m : {"其实", "不对", "说错了", "我是说", "更正", "纠正", "应该是",
                               "我的意思是", "说错", "不是", "搞错了"}) {
      if (sentence.find(m) != std::string_view::npos) return true;
    }
    return false;
  }
  std::string low = LowerAscii(sentence);
  for (std::string_view m :
       {"actually", "correction", "i meant", "sorry, i", "oops", "to correct"}) {
    if (StartsWithWord(low, m)) return true;
  }
  return low.find("i meant") != std::string::npos || low.find("i mean,") != std::string::npos ||
         low.find(", actually") != std::string::npos;
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

struct Piece {
  std::string text;
  bool inherited = false;
};

bool HasZhSubject(std::string_view s) {
  for (size_t k = s.find("我"); k != std::string_view::npos; k = s.find("我", k + 3)) {
    if (s.substr(k + 3, 3) != "们") return true;
  }
  return false;
}

bool StartsWithOtherSubjectZh(std::string_view s) {
  for (std::string_view o :
       {"他", "她", "它", "你", "我们", "大家", "别人", "这", "那", "天气", "叫", "名叫", "名字"}) {
    if (s.starts_with(o)) return true;
  }
  return false;
}

std::vector<Piece> SplitClausesZh(const std::string& sentence) {
  std::vector<Piece> raw;
  std::string cur;
  std::string_view s = sentence;
  for (size_t i = 0; i < s.size();) {
    bool split = false;
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
    if (HasZhSubject(p.text)) {
      prev_has_subject = true;
    } else if (prev_has_subject && !StartsWithOtherSubjectZh(p.text)) {
      p.text = "我" + p.text;
      p.inherited = true;
    } else {
      prev_has_subject = false;
    }
    out.push_back(std::move(p));
  }
  return out;
}

bool IsPredicateHeadEn(std::string_view low) {
  static const std::vector<std::string_view> kHeads = {
      "live",    "work",   "love",     "have",      "moved", "want",    "plan",    "hate",
      "enjoy",   "prefer", "speak",    "am",        "got",   "started", "joined",  "just",
      "also",    "really", "recently", "currently", "now",   "own",     "adopted", "hope",
      "grew",    "can",    "play",     "don't",     "do",    "never",   "still",   "recently",
      "dislike", "adore",  "need",     "intend",    "was",   "usually"};
  return std::find(kHeads.begin(), kHeads.end(), low) != kHeads.end();
}

std::string FirstWordLower(std::string_view s) {
  size_t b = s.find_first_not_of(" ");
  if (b == std::string_view::npos) return "";
  size_t e = b;
  while (e < s.size() && (std::isalpha(static_cast<unsigned char>(s[e])) || s[e] == '\'')) ++e;
  return LowerAscii(s.substr(b, e - b));
}

bool StartsWithSubjectEn(std::string_view s) {
  std::string w = FirstWordLower(s);
  return w == "i" || w == "i'm" || w == "i've" || w == "i'd" || w == "i'll" || w == "im" ||
         w == "my";
}

// A comma piece that continues a list ("coffee and juice"): a few words, no verb of its own.
bool IsListContinuation(std::string_view piece) {
  std::string low = " " + LowerAscii(piece) + " ";
  int words = 0;
  for (size_t i = 1; i < low.size(); ++i) words += low[i] == ' ' && low[i - 1] != ' ';
  for (std::string_view verb : {" is ", " are ", " was ", " were ", "'s ", " it ", " has "}) {
    if (low.find(verb) != std::string::npos) return false;
  }
  return words <= 5;
}

// Splits at commas and at "and"/"but"/"so"/"because" before a new subject or verb.
std::vector<Piece> SplitClausesEn(const std::string& sentence) {
  std::vector<std::string> raw;
  std::string cur;
  const std::string low = LowerAscii(sentence);
  for (size_t i = 0; i < sentence.size();) {
    if (sentence[i] == ',' || sentence[i] == ':' || sentence[i] == '(' || sentence[i] == ')') {
      raw.push_back(cur);
      cur.clear();
      ++i;
      continue;
    }
    // dashes between clauses: " - ", "—", "–"
    std::string_view rest = std::string_view(sentence).substr(i);
    if (rest.starts_with(" - ") || rest.starts_with("—") || rest.starts_with("–")) {
      raw.push_back(cur);
      cur.clear();
      i += 3;  // " - ", and "—", "–" are 3 bytes in UTF-8
      continue;
    }
    bool split = false;
    for (std::string_view conj : {" and ", " but ", " so ", " because ", " while ", " though "}) {
      if (std::string_view(low).substr(i).starts_with(conj)) {
        std::string_view next = std::string_view(sentence).substr(i + conj.size());
        if (StartsWithSubjectEn(next) || IsPredicateHeadEn(FirstWordLower(next))) {
          raw.push_back(cur);
          cur.clear();
          i += conj.size() - 1;
          split = true;
        }
        break;
      }
    }
    if (split) continue;
    cur += sentence[i];
    ++i;
  }
  raw.push_back(cur);
  std::vector<Piece> out;
  bool prev_has_subject = false;
  for (std::string& text : raw) {
    if (text.find_first_not_of(" ") == std::string::npos) continue;
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
    } else if (prev_has_subject && IsPredicateHeadEn(first)) {
      out.push_back({"I " + std::string(trimmed), true});
    } else if (!out.empty() && prev_has_subject && IsListContinuation(trimmed)) {
      out.back().text += ", " + std::string(trimmed);  // "I like tea, coffee and juice"
    } else {
      out.push_back({std::string(trimmed), false});
      prev_has_subject = false;
    }
  }
  return out;
}

// The clause with its first time expression removed, and that expression.
ClauseInput WithoutTime(const std::string& clause, bool zh, TimestampMs now, std::string* storage) {
  ClauseInput in;
  auto times =
      zh ? FindChineseTimeExpressions(clause, now) : FindEnglishTimeExpressions(clause, now);
  *storage = clause;
  if (!times.empty()) {
    // "Wednesday and Thursday", "周三和周四": the connector goes with the dates.
    for (size_t k = 1; k < times.size(); ++k) {
      std::string gap =
          LowerAscii(clause.substr(times[k - 1].end, times[k].begin - times[k - 1].end));
      std::string bare;
      for (char ch : gap) {
        if (ch != ' ' && ch != ',') bare += ch;
      }
      if (bare.empty() || bare == "and" || bare == "or" || bare == "&" || bare == "和" ||
          bare == "、" || bare == "或" || bare == "到" || bare == "至" || bare == "to") {
        times[k].begin = times[k - 1].end;
      }
    }
    for (auto it = times.rbegin(); it != times.rend(); ++it) {
      storage->erase(it->begin, it->end - it->begin);
    }
    const TimeExpression& t = times.front();
    in.has_time = true;
    in.future_time = t.at >= (now / kDayMs) * kDayMs;
    in.date = FormatTimeExpression(t);
    in.date_is_day =
        t.granularity == TimeGranularity::kDay || t.granularity == TimeGranularity::kWeek;
    in.time_at = t.at;
  }
  in.text = *storage;
  return in;
}

class RuleExtractor final : public Extractor {
 public:
  explicit RuleExtractor(const RuleExtractorOptions& options) : options_(options) {}
  const std::string& name() const override { return name_; }

  Result<ExtractionResult> Extract(const ExtractionInput& input) override {
    ExtractionResult result;
    result.extractor = name_;
    Memory memory;
    for (size_t i = 0; i < input.turns.size(); ++i) {
      const Turn& turn = input.turns[i];
      if (!IsUserRole(turn.role)) continue;
      ExtractTurn(turn, i, input, &memory, &result.candidates);
    }
    return result;
  }

 private:
  // What an earlier statement said, for "I meant X" / "我是说X".
  struct Memory {
    std::optional<Statement> last_exclusive;
    bool context_read = false;
  };

  void ExtractTurn(const Turn& turn, size_t index, const ExtractionInput& input, Memory* memory,
                   std::vector<Candidate>* out) {
    std::string text = turn.content;
    for (size_t k = text.find("’"); k != std::string::npos; k = text.find("’", k))
      text.replace(k, 3, "'");
    const Language lang = DetectLanguage(text);
    if (lang != Language::kChinese && lang != Language::kLatin) return;
    const bool zh = lang == Language::kChinese;
    for (Sentence& sentence : SplitSentences(text)) {
      if (sentence.question) continue;
      const bool correction = IsCorrection(sentence.text, zh);
      std::string s = zh ? RewriteNotButZh(sentence.text) : sentence.text;
      std::vector<Piece> pieces = zh ? SplitClausesZh(s) : SplitClausesEn(s);
      std::optional<ClauseInput> pending_time;
      for (const Piece& piece : pieces) {
        std::string storage;
        ClauseInput in = WithoutTime(piece.text, zh, turn.at, &storage);
        in.inherited_subject = piece.inherited;
        if (!in.has_time && pending_time) {
          in.has_time = true;
          in.future_time = pending_time->future_time;
          in.date = pending_time->date;
          in.date_is_day = pending_time->date_is_day;
          in.time_at = pending_time->time_at;
        }
        std::vector<Statement> statements =
            zh ? extract::MatchChineseClause(in) : extract::MatchEnglishClause(in);
        if (statements.empty() && correction) {
          if (auto bare = BareCorrection(piece.text, zh, input, memory); bare)
            statements.push_back(*bare);
        }
        if (statements.empty()) {
          // A clause that is only a time ("In 2019, I moved…", "去年，我…") dates the next one.
          pending_time = in.has_time ? std::optional<ClauseInput>(in) : std::nullopt;
          if (pending_time) pending_time->text = {};
          continue;
        }
        pending_time.reset();
        for (Statement& st : statements) {
          if (extract::TraitsOf(st.kind).exclusive) memory->last_exclusive = st;
          Add(st, in, correction, index, out);
        }
      }
    }
  }

  std::optional<Statement> BareCorrection(const std::string& clause, bool zh,
                                          const ExtractionInput& input, Memory* memory) {
    std::optional<std::string> value =
        zh ? extract::ChineseBareCorrection(clause) : extract::EnglishBareCorrection(clause);
    if (!value) return std::nullopt;
    if (!memory->last_exclusive && !memory->context_read) {
      memory->context_read = true;
      ExtractionInput context;
      for (const Turn& t : input.context) {
        if (IsUserRole(t.role)) context.turns.push_back(t);
      }
      std::vector<Candidate> ignored;
      Memory inner{std::nullopt, true};
      for (size_t i = 0; i < context.turns.size(); ++i) {
        ExtractTurn(context.turns[i], i, context, &inner, &ignored);
      }
      memory->last_exclusive = inner.last_exclusive;
    }
    if (!memory->last_exclusive) return std::nullopt;
    Statement st = *memory->last_exclusive;
    std::string content =
        zh ? extract::ChineseContent(st.kind, *value) : extract::EnglishContent(st.kind, *value);
    if (content.empty()) return std::nullopt;
    st.value = *value;
    st.content = std::move(content);
    st.entities = {*value};
    st.correction = true;
    st.confidence = 0.75;
    return st;
  }

  void Add(const Statement& st, const ClauseInput& in, bool correction, size_t index,
           std::vector<Candidate>* out) const {
    if (st.confidence < options_.min_confidence || st.content.empty()) return;
    const extract::KindTraits& traits = extract::TraitsOf(st.kind);
    Candidate c;
    c.type = traits.type;
    c.content = st.content;
    c.importance = traits.importance;
    c.confidence = st.confidence;
    c.entities = st.entities;
    if (!traits.slot.empty()) {
      if (!traits.keyed) {
        c.slot = std::string(traits.slot);
      } else if (!st.key.empty()) {
        c.slot = std::string(traits.slot) + (st.kind == Kind::kAttribute ? "/" : ":") + st.key;
      }
    }
    c.exclusive = traits.exclusive && !c.slot.empty();
    c.correction = st.correction || correction;
    if (in.has_time) c.valid_from = in.time_at;
    c.turn_indexes = {index};
    for (const Candidate& seen : *out) {
      if (seen.slot == c.slot && seen.content == c.content) return;
    }
    out->push_back(std::move(c));
  }

  RuleExtractorOptions options_;
  std::string name_ = "rules-v1";
};

}  // namespace

std::unique_ptr<Extractor> MakeRuleExtractor(const RuleExtractorOptions& options) {
  return std::make_unique<RuleExtractor>(options);
}

}  // namespace engram
