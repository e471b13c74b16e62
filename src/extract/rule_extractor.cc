// The built-in rule extractor ("rules-v2"): splits each user turn into sentences and clauses
// (clauses.h), sets aside discourse markers, reported-speech leads and time expressions, then
// reads each clause with the topic frames (frames.h), the self-statement patterns
// (rule_patterns_en.cc, rule_patterns_zh.cc), or else keeps it as a generic statement in the
// user's words. What a clause does (a question, a condition, an elaboration …) is read by
// speech_acts.h, and a candidate's content written in the third person, with its dates, by
// third_person.h. See README.md for what it covers.
#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string>
#include <utility>

#include "engram/extraction.h"
#include "extract/casual.h"
#include "extract/changes.h"
#include "extract/chitchat.h"
#include "extract/clauses.h"
#include "extract/corrections.h"
#include "extract/english_words.h"
#include "extract/frames.h"
#include "extract/lexicon.h"
#include "extract/rule_patterns.h"
#include "extract/speech_acts.h"
#include "extract/third_person.h"
#include "text/find.h"
#include "text/language.h"
#include "text/lexicon_data.h"
#include "text/normalizer.h"
#include "text/topics.h"
#include "text/utf8.h"

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
      /* kPet */ {T::kFact, "user/pet", true, true, 0.6},
      /* kFamily */ {T::kFact, "user/family", true, false, 0.7},
      /* kGoal */ {T::kGoal, "user/goal", true, false, 0.7},
      /* kSkill */ {T::kSkill, "user/skill", true, false, 0.6},
      /* kRoutine */ {T::kFact, "", false, false, 0.5},
      /* kAppointment */ {T::kEvent, "", false, false, 0.7},
      /* kEvent */ {T::kEvent, "", false, false, 0.5},
      /* kFavorite */ {T::kPreference, "user/favorite", true, true, 0.6},
      /* kAttribute */ {T::kFact, "user", true, true, 0.6},
      /* kAge */ {T::kFact, "user/age", false, true, 0.7},
      /* kBirthday */ {T::kFact, "user/birthday", false, true, 0.8},
      /* kSchool */ {T::kFact, "user/school", false, true, 0.7},
      /* kMajor */ {T::kFact, "user/major", false, true, 0.6},
      /* kPartner */ {T::kFact, "user/partner", false, true, 0.8},
      /* kChildren */ {T::kFact, "user/children", false, true, 0.75},
      /* kBudget */ {T::kFact, "user/budget", true, true, 0.7},
      /* kAmount */ {T::kFact, "user/amount", true, true, 0.7},
      /* kSchedule */ {T::kFact, "user/schedule", true, true, 0.6},
      /* kDevice */ {T::kFact, "user/device", true, true, 0.5},
      /* kLanguage */ {T::kSkill, "user/language", true, true, 0.6},
      /* kMedication */ {T::kFact, "user/medication", true, true, 0.85},
      /* kContact */ {T::kFact, "user", true, true, 0.75},
      /* kPlan */ {T::kGoal, "user/plan", true, true, 0.65},
      /* kHabit */ {T::kPreference, "user/habit", true, true, 0.55},
      /* kEnded */ {T::kEvent, "", false, false, 0.6},
      /* kPersonFact */ {T::kFact, "", false, false, 0.6},
      /* kGeneric */ {T::kFact, "", false, false, 0.5},
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
using extract::ClauseView;
using extract::Kind;
using extract::MessageState;
using extract::Statement;
// What a clause does (speech_acts.h) and its content in the third person (third_person.h).
using extract::AddressesListener;
using extract::AnnouncesFacts;
using extract::DecisionMarker;
using extract::FutureMarker;
using extract::HasContent;
using extract::IsCondition;
using extract::IsCorrectionPhrase;
using extract::IsElaboration;
using extract::IsEventClause;
using extract::IsHypotheticalEn;
using extract::IsQuestionEn;
using extract::IsQuestionZh;
using extract::IsRequestZh;
using extract::IsSubordinate;
using extract::IsSuggestionZh;
using extract::IsWeakStatement;
using extract::IsWeakStatementZh;
using extract::JoinLead;
using extract::NamesSomething;
using extract::PastHabit;
using extract::RewriteEn;
using extract::RewriteZh;
using extract::SubjectBeforeDateZh;
using extract::WithDates;
using extract::WithoutTime;
using extract::WordCount;

// A clause's lead that names what the statement before was about (NameForPrevious).
struct NameLead {
  std::string text;      // lowercase English, or Chinese
  bool another = false;  // names another one of the same kind ("一只叫…")
};

const std::vector<NameLead>& NameLeads(bool zh) {
  static const auto load = [](const char* file) {
    std::vector<NameLead> out;
    for (const auto& [kind, words] : LexiconEntries(file)) {
      for (const std::string& w : words) out.push_back({w, kind == "another"});
    }
    std::stable_sort(out.begin(), out.end(), [](const NameLead& a, const NameLead& b) {
      return a.text.size() > b.text.size();
    });
    return out;
  };
  static const std::vector<NameLead> en = load("en/name_leads.tsv");
  static const std::vector<NameLead> zh_leads = load("zh/name_leads.tsv");
  return zh ? zh_leads : en;
}

bool IsUserRole(std::string_view role) {
  return role != "assistant" && role != "system" && role != "tool" && role != "function";
}

constexpr TimestampMs kDayMs = 86'400'000;

// A whereabouts or activity said to be under way ("I'm in Tokyo", "我在北京出差"), not done.
bool UnderWay(const std::string& text, bool zh) {
  if (zh) return ContainsText(text, "在") && !text.ends_with("了");
  const std::string low = " " + extract::LowerAscii(text) + " ";
  for (std::string_view m : {" i'm ", " i am ", " we're ", " we are ", " staying ", " visiting "}) {
    if (ContainsText(low, m)) return true;
  }
  return false;
}

// When a candidate lapses (Candidate::expires_at). A wish, plan or commitment for a day or a
// week that is today or ahead, and a whereabouts or activity said to be under way or coming
// then ("this week I'm in Tokyo", "我这周在北京出差"), lapse when that day is over (a week: its
// Sunday; a weekend: its Sunday). A thing done ("I started a new job today") does not lapse:
// it happened, and fades like any memory. Months and years are long enough not to.
std::optional<TimestampMs> Expiry(const Candidate& c, const ClauseInput& time,
                                  const std::string& text, bool zh, TimestampMs said) {
  if (!time.has_time || !time.date_is_day) return std::nullopt;
  const int days = time.week ? 7 : time.weekend ? 2 : 1;
  const TimestampMs end = time.time_at + days * kDayMs;
  if (end <= said) return std::nullopt;  // over already: a thing of the past
  bool transient = false;
  switch (c.type) {
    case MemoryType::kGoal:
    case MemoryType::kPreference:
    case MemoryType::kCommitment:
      transient = true;
      break;
    case MemoryType::kEvent:
    case MemoryType::kFact:
      transient = UnderWay(text, zh) || FutureMarker(text, zh);
      break;
    default:
      break;
  }
  if (!transient) return std::nullopt;
  return end;
}

class RuleExtractor final : public Extractor {
 public:
  explicit RuleExtractor(const RuleExtractorOptions& options) : options_(options) {}
  const std::string& name() const override { return name_; }

  Result<ExtractionResult> Extract(const ExtractionInput& input) override {
    ExtractionResult result;
    result.extractor = name_;
    for (size_t i = 0; i < input.turns.size(); ++i) {
      const Turn& turn = input.turns[i];
      if (!IsUserRole(turn.role)) continue;
      ExtractTurn(turn, i, &result.candidates);
    }
    return result;
  }

 private:
  // What the clauses of one turn share.
  struct TurnState {
    MessageState message;
    const std::string* message_text = nullptr;  // ClauseView::message
    size_t turn_first = 0;                      // index in `out` of this turn's first candidate
    bool zh = false;
    TimestampMs said = 0;
    size_t index = 0;
    std::optional<ClauseInput> pending_time;   // a clause that was only a time dates the next
    std::optional<ClauseInput> sentence_time;  // the sentence's last time, for later events
    std::optional<MemoryType> sentence_type;   // the type of the sentence's last statement
    std::string subject;  // Chinese: the subject of the sentence's last clause ("我", "我儿子")
    std::string subject_key;  // … and who it is ("user", "儿子")
    std::string label;        // "wedding" for "ok wedding stuff: budget is $25k, …"
    std::string fronted;  // Chinese: an object said before 我 ("花生我是不能吃的" → 花生)
    bool facts = false;  // "Fact:", "Two facts worth filing:": statements about the world are kept
    bool after_condition = false;  // the clause before was a condition ("if …", "如果…")
    std::optional<MemoryType> type_hint;  // "I've made up my mind, …": the next clause's type
    bool critical_cue = false;            // the turn asks to remember, or states a safety fact
    // A clause of this sentence that stated nothing by itself, before any statement of the turn
    // ("预算可以再提高一点，最多八万"): the next statement of the sentence says it with it.
    std::string lead;
    // A change with no value was the last statement ("转学成功了", "got a new job!!"): the clause
    // right after it says the value ("现在在上海同济", "at a startup downtown") and joins it.
    bool open_change = false;
    size_t sentence_no = 0;           // the sentence being read, from 1
    size_t open_change_sentence = 0;  // … and the one the open change was said in
    // "sorry not Derek, …": the value a correction takes back, for the value said after it
    std::string corrected_old;
    bool correcting = false;       // a correction was met in this message
    bool corrected_value = false;  // … and its value was read (the sentence's)
  };

  // The topic a sentence announces before a colon ("ok wedding stuff: …" → "wedding"), or "".
  // "理一下账", "先说一下", "补充": what the speaker is about to do, said before a colon; not a
  // topic of what follows
  static bool AnnouncesZh(std::string_view label) {
    return ContainsText(label, "一下") || ContainsText(label, "说") || label == "补充" ||
           label == "更新" || label == "背景" || label == "简单介绍";
  }

  // The sentence without such an announcement and its colon: "理一下账：我税后到手…" → "我税后…".
  static std::string WithoutAnnouncementZh(const std::string& sentence) {
    const size_t colon = sentence.find("：");
    if (colon == std::string::npos || colon == 0 || colon > 24) return sentence;
    const std::string label = extract::StripMarkersZh(sentence.substr(0, colon));
    if (ContainsText(label, "我") || !AnnouncesZh(label)) return sentence;
    return sentence.substr(colon + std::string_view("：").size());
  }

  static std::string TopicLabel(const std::string& sentence, bool zh) {
    const size_t colon = zh ? sentence.find("：") : sentence.find(':');
    if (colon == std::string::npos || colon == 0 || colon > 40) return "";
    std::string label = zh ? extract::StripMarkersZh(sentence.substr(0, colon))
                           : extract::StripMarkersEn(sentence.substr(0, colon));
    if (zh && (label.size() > 12 || ContainsText(label, "我"))) return "";
    if (zh && AnnouncesZh(label)) return "";
    if (!zh) {
      for (std::string_view tail : {" stuff", " update", " news", " info", " details", " things",
                                    " plans", " plan", " notes"}) {
        if (extract::LowerAscii(label).ends_with(tail)) label.resize(label.size() - tail.size());
      }
      if (std::count(label.begin(), label.end(), ' ') > 2 || label.empty()) return "";
      const std::string low = extract::LowerAscii(label);
      // "about me: 28, nurse": the label is the speaker, said by every statement already
      if (low == "about me" || low == "me" || low == "intro" || low == "quick intro" ||
          low == "context" || low == "some context" || low == "background") {
        return "";
      }
      if (low == "fyi" || low == "update" || low == "note" || low == "reminder" || low == "fact" ||
          low == "facts" || low.starts_with("with ") || low.starts_with("on ") ||
          low.starts_with("for ") || low.starts_with("re ")) {
        return "";
      }
    }
    return label;
  }

  void ExtractTurn(const Turn& turn, size_t index, std::vector<Candidate>* out) {
    // (a face typed with it, "(≧∇≦)/", is no part of any fact; the kept turn keeps it)
    std::string text = WithoutKaomoji(turn.content);
    for (size_t k = text.find("’"); k != std::string::npos; k = text.find("’", k))
      text.replace(k, 3, "'");
    for (size_t k = text.find("‘"); k != std::string::npos; k = text.find("‘", k))
      text.replace(k, 3, "'");
    Language lang = DetectLanguage(text);
    // "45*", "3.5": no letters, but a number can only be a value (a correction's): read as
    // Latin text
    if (lang != Language::kChinese && lang != Language::kLatin &&
        std::any_of(text.begin(), text.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
        text.size() <= 24) {
      lang = Language::kLatin;
    }
    if (lang != Language::kChinese && lang != Language::kLatin) return;
    // "ive been vegetarian since i was 15": read as the rules read "I've been …"
    if (lang == Language::kLatin) {
      text = extract::NormalizeCasualEn(extract::WithoutAddressTermsEn(text));
    }
    // "待了七年 还是不习惯": spaces between Chinese words are the commas of casual typing
    // "dbq 175 刚才手滑了": the interjections that open a message say nothing, and a Latin one
    // would hold the value after it in one word group
    if (lang == Language::kChinese) {
      // "俺对青霉素过敏", "俺家闺女": the northern 俺 is 我; "本人左撇子" opening a message is
      // the formal 我 (the kept turn keeps what was typed)
      for (size_t k = text.find("俺"); k != std::string::npos; k = text.find("俺", k)) {
        text.replace(k, 3, "我");
      }
      // "阿拉住在上海徐汇": the Shanghainese 阿拉 is 我 too, where it is no place or name
      // (阿拉伯, 阿拉斯加, 阿拉善, 阿拉木图, 阿拉巴马, 阿拉丁, 阿拉蕾)
      for (size_t k = text.find("阿拉"); k != std::string::npos; k = text.find("阿拉", k)) {
        const std::string_view next = std::string_view(text).substr(k + 6, 3);
        bool place = false;
        for (std::string_view p : {"伯", "斯", "善", "木", "巴", "丁", "蕾", "贡", "米"}) {
          place = place || next == p;
        }
        if (place) {
          k += 6;
        } else {
          text.replace(k, 6, "我");
        }
      }
      if (text.starts_with("本人") && text.size() > 6 && !text.starts_with("本人到") &&
          !text.starts_with("本人亲")) {
        text.replace(0, 6, "我");
      }
      text = extract::SpacesAsCommasZh(extract::WithoutInterjections(text, true));
      text = extract::CorrectionWithoutStopsZh(text);
    }
    // "as a paralegal i …", "作为一个小学语文老师，我…": the role is a statement of its own
    text = extract::RolesAsStatements(text, lang == Language::kChinese);
    TurnState ts;
    ts.zh = lang == Language::kChinese;
    ts.said = turn.at;
    ts.message_text = &turn.content;
    ts.critical_cue = extract::CriticalCue(extract::LowerAscii(text));
    ts.index = index;
    ts.turn_first = out->size();
    ts.facts = false;
    const std::vector<extract::Sentence> sentences = extract::SplitSentences(text);
    for (size_t si = 0; si < sentences.size(); ++si) {
      const extract::Sentence& sentence = sentences[si];
      if (ts.zh && IsSuggestionZh(sentence.text)) continue;
      // "sorry, my aunt. not my mom": a sentence that names the value taken back continues the
      // correction before it
      const std::string low_sentence = ts.zh ? "" : extract::LowerAscii(sentence.text);
      // "lol autocorrect. Brisket. not biscuit": after a marker that said no value, a value
      // alone in the next sentence is the correction's
      const bool bare_value =
          ts.correcting && !ts.corrected_value &&
          (ts.zh ? CountCodepoints(sentence.text) <= 8 : WordCount(sentence.text, false) <= 3) &&
          extract::BareCorrectionValue(sentence.text, ts.zh).has_value();
      // "okonkwo. autocorrect smh", "ugh 21st. dont tell my wife i said 12": a message that
      // opens with a value alone, and then names the slip, corrects with that value
      const bool value_then_slip =
          si == 0 && !ts.correcting && si + 1 < sentences.size() &&
          (ts.zh ? CountCodepoints(sentence.text) <= 8 : WordCount(sentence.text, false) <= 3) &&
          extract::BareCorrectionValue(
              std::string(extract::WithoutInterjections(sentence.text, ts.zh)), ts.zh)
              .has_value() &&
          NamesSlip(sentences[si + 1].text, ts.zh, &ts.corrected_old);
      const bool continues =
          bare_value || value_then_slip ||
          (ts.correcting && (ts.zh ? sentence.text.starts_with("不是")
                                   : extract::StartsWithWord(low_sentence, "not")));
      const bool correction = continues || extract::IsCorrection(sentence.text, ts.zh);
      std::string s = ts.zh ? extract::RewriteNotButZh(WithoutAnnouncementZh(sentence.text))
                            : LabelledValueEn(sentence.text);
      // (a label read as a statement is no topic: "Med allergy: sulfa")
      ts.label = TopicLabel(ts.zh ? sentence.text : s, ts.zh);
      std::vector<extract::Piece> pieces =
          ts.zh ? extract::SplitClausesZh(s) : extract::SplitClausesEn(s, sentence.question);
      // a correction marker was met in this sentence (at its start when the value comes first)
      bool corrected = continues || (correction && extract::IsValueFirstCorrection(s, ts.zh));
      ts.subject.clear();
      ts.fronted.clear();
      ts.lead.clear();
      ts.pending_time.reset();
      ts.sentence_time.reset();
      ts.sentence_type.reset();
      if (!continues) ts.corrected_value = false;
      ++ts.sentence_no;
      for (size_t k = 0; k < pieces.size(); ++k) {
        const extract::Piece& piece = pieces[k];
        const bool marker = extract::IsCorrection(piece.text, ts.zh) || (correction && corrected);
        corrected = corrected || marker;
        ts.correcting = ts.correcting || (correction && corrected);
        // "I'm vegan, can you suggest a dessert?": the question mark is the last clause's; a
        // clause before it is a question only when it asks one itself (ReadClause reads that).
        const bool question = sentence.question && k + 1 == pieces.size();
        ReadClause(piece, question, correction && corrected, &ts, out);
      }
    }
    // "换个说法呗 太官方了": a short reply about the last answer (extract/chitchat.h) whose
    // clauses no frame typed is said to the assistant, not about the user.
    const auto from = out->begin() + static_cast<std::ptrdiff_t>(ts.turn_first);
    if (from != out->end() &&
        std::all_of(from, out->end(),
                    [](const Candidate& c) {
                      return c.slot.empty() && !c.valid_from && !c.correction && c.ends.empty();
                    }) &&
        !ReplyChitChatKind(turn.content).empty()) {
      out->erase(from, out->end());
    }
  }

  // The sentence after a value says it fixed a slip ("autocorrect smh", "输入法的锅"), or what
  // the user said before ("i said 12", which is then `old`). A marker that opens a correction of
  // its own ("…不对是兔星") does not make the sentence before it a value.
  static bool NamesSlip(const std::string& sentence, bool zh, std::string* old) {
    if (extract::NamesSlipWord(sentence, zh)) return true;
    if (zh) return false;
    const std::string low = extract::LowerAscii(sentence);
    for (std::string_view said : {"i said ", "i typed ", "i wrote ", "i put "}) {
      const size_t k = low.find(said);
      if (k == std::string::npos) continue;
      std::string value = sentence.substr(k + said.size());
      value = value.substr(0, value.find_first_of(" ,.!?"));
      if (value.empty() || value.size() > 24) return false;
      *old = value;
      return true;
    }
    return false;
  }

  // What the user said in a clause, without a subject the splitter carried over.
  static std::string WithoutCarriedSubject(const extract::Piece& piece, const std::string& clause,
                                           bool zh) {
    std::string said = clause;
    if (piece.inherited && zh && said.starts_with("我")) said.erase(0, 3);
    if (piece.inherited && !zh && said.starts_with("I ")) said.erase(0, 2);
    return said;
  }

  // "不是英短", "not Saturday": the clause names the value a correction takes back.
  static bool NamesOldValue(const std::string& said, bool zh) {
    return zh ? said.starts_with("不是")
              : extract::StartsWithWord(extract::LowerAscii(said), "not");
  }

  void ReadClause(const extract::Piece& piece, bool question, bool correction, TurnState* ts,
                  std::vector<Candidate>* out) {
    const bool zh = ts->zh;
    const bool open_change = std::exchange(ts->open_change, false);
    if (AnnouncesFacts(piece.text, zh)) ts->facts = true;
    std::string clause =
        zh ? extract::StripMarkersZh(piece.text) : extract::StripMarkersEn(piece.text);
    if (clause.empty()) return;
    if (!zh) {
      // "sorry if my english is weird", "sorry for the long message": an apology to the
      // assistant, no statement (and no correction: it names no value)
      const std::string low = extract::LowerAscii(piece.text);
      for (std::string_view apology : {"sorry if ", "sorry for ", "sorry about ",
                                       "sorry in advance", "so sorry if ", "so sorry for "}) {
        if (low.starts_with(apology)) return;
      }
    }
    // "啊不对 30了 上个月刚过的生日": once the value is corrected, a clause that says more than
    // a word or two of the slip, with no marker or old value of its own, is a statement of its
    // own, not another correction of the latest memory
    if (correction && ts->corrected_value) {
      const std::string said = WithoutCarriedSubject(piece, clause, zh);
      const bool more = zh ? said.size() > 12 : WordCount(said, zh) > 2;
      if (more && !NamesOldValue(said, zh) && !extract::IsCorrection(said, zh) &&
          !IsCorrectionPhrase(said, zh)) {
        correction = false;
      }
    }
    if (correction) {
      std::string said = WithoutCarriedSubject(piece, clause, zh);
      // "corolla* not mazda", "*Dennis", "whitford* ugh autocorrect": the starred word is the
      // value, whatever the clause says of the slip; "not …" names the old one
      if (!zh && !ts->corrected_value) {
        if (auto star = extract::StarCorrection(said)) {
          ts->corrected_value = true;
          ApplyBareCorrection(star->value, ts, out, star->old_value);
          return;
        }
        // "fabia not octavia lol": the value, then the one taken back
        if (auto pair =
                extract::ValueNotOld(std::string(extract::WithoutInterjections(said, false)))) {
          ts->corrected_value = true;
          ApplyBareCorrection(pair->value, ts, out, pair->old_value);
          return;
        }
      }
      if (IsCorrectionPhrase(said, zh)) return;  // "my bad", "名字打错了"
      said = zh ? extract::StripMarkersZh(said) : extract::StripMarkersEn(said);
      if (said.empty() || IsCorrectionPhrase(said, zh)) return;
      // "是李欣然，名字打错了": after the value, a word or two is the correction's own talk
      // ("不是英短" after it names the value taken back: read below)
      const bool names_old = NamesOldValue(said, zh);
      if (ts->corrected_value && !names_old && (zh ? said.size() <= 12 : WordCount(said, zh) <= 2))
        return;
      // "不对", "啊不对", "wait no": the marker alone says nothing to store (with the subject the
      // splitter carries, "不对" would read as "儿子不对")
      if (said.size() <= 12 && extract::IsCorrection(said, zh) &&
          !extract::BareCorrectionValue(said, zh)) {
        return;
      }
      // "sorry not Derek, Dennis", "不是青岛，是烟台": the wrong value comes first; the value
      // after it replaces that one
      if (out->size() == ts->turn_first && said.size() <= 24) {
        const std::string low = zh ? said : extract::LowerAscii(said);
        if (zh && said.starts_with("不是") && said.size() > 6) {
          ts->corrected_old = WithoutOwner(said.substr(6), zh);
          return;
        }
        if (!zh && low.starts_with("not ") && said.size() > 4) {
          ts->corrected_old = WithoutOwner(said.substr(4), zh);
          return;
        }
      }
      // "不是青岛", "not Saturday": the wrong value, said again; it ended (it is no value to
      // put anywhere)
      if (out->size() > ts->turn_first && said.size() <= 24) {
        const std::string low = zh ? said : extract::LowerAscii(said);
        if (zh && said.starts_with("不是")) {
          if (said.size() > 6) out->back().ends.push_back(WithoutOwner(said.substr(6), zh));
          return;
        }
        if (!zh && low.starts_with("not ")) {
          out->back().ends.push_back(WithoutOwner(said.substr(4), zh));
          return;
        }
      }
      // "wait no, Ellie": the value alone corrects what was just said.
      // one value per correction: "是葡萄牙语，巴西那边工作要用" says why after it
      if (auto value =
              ts->corrected_value ? std::nullopt : extract::BareCorrectionValue(said, zh)) {
        ts->corrected_value = true;
        ApplyBareCorrection(*value, ts, out, std::exchange(ts->corrected_old, ""));
        return;
      }
    }
    // "不对，是鞍山，大连是我读研的地方", "wait no, wednesdays. monday is gym": after the value, a
    // clause about another value says where that one belongs: it is the value taken back
    if (out->size() > ts->turn_first && out->back().bare && ts->correcting) {
      if (auto other = extract::SubjectValue(clause, zh);
          other && extract::LowerAscii(*other) != extract::LowerAscii(out->back().value)) {
        out->back().ends.push_back(*other);
        // what the wrong value is instead is the correction's reason, read no further:
        // "7点是我老公出门" is no name of the husband
        return;
      }
    }
    // "I've made up my mind, …", "决定了，…": the clause after it is a decision.
    if (auto hint = DecisionMarker(clause, zh)) {
      ts->type_hint = hint;
      return;
    }
    // "her name's Olive", "叫逗逗": a name for what the statement before was about (read
    // without a subject the splitter carried over: "一只叫可乐" is not "我一只叫可乐").
    std::string unsubjected = clause;
    if (piece.inherited && zh && unsubjected.starts_with("我")) unsubjected.erase(0, 3);
    if (NameForPrevious(unsubjected, zh, ts, out)) return;
    ClauseView view;
    view.zh = zh;
    view.correction = correction;
    view.topic = ts->message.topic;
    view.message = ts->message_text;
    if (auto reported =
            zh ? extract::ReportedSpeechZh(clause) : extract::ReportedSpeechEn(clause)) {
      view.reporter = reported->reporter;
      clause =
          zh ? extract::StripMarkersZh(reported->rest) : extract::StripMarkersEn(reported->rest);
      if (clause.empty()) return;
      // "Karis 告诉我她宁愿…": she is the one who reported
      if (zh && (clause.starts_with("她") || clause.starts_with("他"))) {
        clause = view.reporter + clause.substr(3);
      }
    }
    // "…but im allergic to penicillin??": a safety fact said with a question mark, in the form
    // of a statement, is kept (erring towards keeping what could hurt the user)
    const bool safety_statement =
        question && extract::CriticalCue(extract::LowerAscii(clause)) &&
        !(zh ? IsQuestionZh(clause) : IsQuestionEn(clause)) &&
        (zh ? clause.starts_with("我")
            : extract::StartsWithWord(extract::LowerAscii(clause), "i'm") ||
                  extract::StartsWithWord(extract::LowerAscii(clause), "i"));
    if (question && !safety_statement && view.reporter.empty()) return;
    if (zh ? (IsQuestionZh(clause) || IsRequestZh(clause)) && view.reporter.empty()
           : IsQuestionEn(clause) && view.reporter.empty()) {
      return;
    }
    clause = zh ? extract::TakeEndsZh(clause, &view.ends) : extract::TakeEndsEn(clause, &view.ends);
    if (!zh) clause = extract::RelationNamedFirstEn(clause);
    if (!zh) {
      // (a subject the splitter carried over is set aside: "I paralegal in columbus")
      const std::string bare =
          piece.inherited && clause.starts_with("I ") ? clause.substr(2) : clause;
      if (std::string with = WithStateSubjectEn(bare); with != bare) clause = with;
    }
    std::string own = clause;  // the clause without a subject the splitter carried over
    if (piece.inherited && zh && own.starts_with("我")) own.erase(0, 3);
    if (piece.inherited && !zh && own.starts_with("I ")) own.erase(0, 2);
    extract::SubjectInfo first =
        zh ? extract::ChineseSubject(clause) : extract::EnglishSubject(clause);
    if (zh && first.text.empty() && !first.implicit) {
      // "三天前捡了只流浪猫", "三个月前开始学钢琴": a time said first, then a verb with no
      // subject: the speaker's, as without the time
      std::string timeless_storage;
      const ClauseInput timeless = WithoutTime(clause, zh, ts->said, &timeless_storage);
      // (the time first: what is left ends the clause; not a pet doing something: "三天前猫…")
      if (timeless.has_time && timeless.text != clause && clause.ends_with(timeless.text)) {
        const extract::SubjectInfo after_time = extract::ChineseSubject(timeless.text);
        const std::string_view rest = timeless.text;
        const bool pet = extract::NamesPet(rest.substr(0, CodepointLength(rest, 0)), true) ||
                         extract::NamesPet(rest.substr(0, 6), true);
        if (after_time.text.empty() && !pet) first.implicit = true;
      }
    }
    if (zh && (first.text.empty() || piece.inherited) && !correction &&
        out->size() > ts->turn_first && out->back().slot.starts_with("user/pet:")) {
      // "我家狗叫可乐，五岁了": with no subject of its own, a clause after a statement about a
      // pet says more about the pet (its age is not the user's).
      const std::string more = extract::StripMarkersZh(own);
      if (HasContent(more, zh)) out->back().content += "，" + more;
      return;
    }
    const bool elaboration = (IsElaboration(clause, zh) && !(zh && !first.key.empty())) ||
                             IsSubordinate(own, zh) || (zh && IsElaboration(own, zh));
    bool implicit = first.implicit;
    if (zh) {
      // The splitter carried 我 over, but the clause before was about someone else:
      // "我同事老王是个铁杆球迷，特别喜欢皇马" → 老王 likes Real Madrid.
      bool changed = false;
      if (piece.inherited && clause.starts_with("我") && !ts->subject.empty() &&
          ts->subject != "我" && ts->subject_key != "user") {
        clause = JoinWords(ts->subject, clause.substr(3));
        changed = true;
      }
      // A clause with no subject continues the one before: "儿子转学了，现在在育才小学".
      const std::string own_subject = changed ? extract::ChineseSubject(clause).text : first.text;
      if (own_subject.empty() && !ts->subject.empty() && !IsElaboration(clause, zh)) {
        clause = JoinWords(ts->subject, clause);
        implicit = changed = true;
      } else if (implicit || (own_subject.empty() && LeadsWithConditionZh(clause))) {
        // "慢性胃炎好几年了": a condition said first, with no subject, is one the speaker has
        // ("哮喘" alone: "我有哮喘")
        clause = (!implicit && extract::IsHealthWord(clause) ? "我有" : "我") + clause;
        changed = true;
      }
      const extract::SubjectInfo now = changed ? extract::ChineseSubject(clause) : first;
      if (!now.text.empty()) ts->subject_key = now.key;
      if (!now.text.empty()) ts->subject = now.text;
      if (!now.fronted.empty()) ts->fronted = now.fronted;
      // "豆豆七月走了，前几天领养了只橘猫": a subject the clause says is gone does nothing
      // after it; the next clause with no subject of its own is the user's
      if (!ts->subject.empty() &&
          std::find(view.ends.begin(), view.ends.end(), ts->subject) != view.ends.end()) {
        ts->subject.clear();
        ts->subject_key.clear();
      }
    } else if (implicit) {
      clause = ImplicitEn(clause);
    }
    std::string storage;
    ClauseInput in = WithoutTime(clause, zh, ts->said, &storage);
    in.inherited_subject = piece.inherited || implicit;
    if (!in.has_time && !ts->pending_time && ts->sentence_time &&
        (IsEventClause(clause, zh) || (zh && implicit))) {
      ts->pending_time = ts->sentence_time;  // "三天前摔了一跤，手腕扭了": the same day
    }
    const bool vague_time =
        zh && VagueTimeZh(std::string_view(clause).substr(clause.starts_with("我") ? 3 : 0)) > 0;
    if (!in.has_time && ts->pending_time && !vague_time) {
      in.has_time = true;
      in.future_time = ts->pending_time->future_time;
      in.date = ts->pending_time->date;
      in.date_is_day = ts->pending_time->date_is_day;
      in.time_at = ts->pending_time->time_at;
      in.week = ts->pending_time->week;
      in.weekend = ts->pending_time->weekend;
    }
    ts->pending_time.reset();
    if (in.has_time) ts->sentence_time = in;
    view.time = in;
    view.text = std::string(in.text);
    view.raw = clause;
    if (!HasContent(view.text, zh)) {
      // "In 2019,", "从这个月开始": a clause that is only a time dates the next one.
      if (in.has_time) ts->pending_time = in;
      return;
    }
    std::vector<Statement> statements = zh ? extract::MatchChineseFrames(view, &ts->message)
                                           : extract::MatchEnglishFrames(view, &ts->message);
    bool from_patterns = false;
    if (statements.empty() && view.reporter.empty() && (zh || !IsHypotheticalEn(clause))) {
      std::string v1_storage = zh ? ForPatternsZh(view.text) : ForPatternsEn(view.text);
      ClauseInput v1 = in;
      v1.text = v1_storage;
      statements = zh ? extract::MatchChineseClause(v1) : extract::MatchEnglishClause(v1);
      from_patterns = !statements.empty();
    }
    if (statements.empty() && open_change && !correction && out->size() > ts->turn_first &&
        view.reporter.empty() && !view.time.future_time &&
        (first.key.empty() || first.key == "user") && HasContent(view.text, zh)) {
      // "got the keys!! a tiny studio in Tacoma": the change said no value; a clause with no
      // subject of its own right after it is where it is said
      std::string more = Content(clause, view, ts->said, zh, true);
      if (zh && more.starts_with("用户")) more.erase(0, std::string_view("用户").size());
      if (!more.empty()) AppendDetail(std::move(more), zh, &out->back());
      // the change's own sentence may go on giving it detail; the next sentence said its value
      ts->open_change = ts->sentence_no == ts->open_change_sentence;
      return;
    }
    if (statements.empty() && !elaboration && !correction) {
      // (in a correction, what is neither a slot's value nor a corrected value is commentary)
      if (auto generic = Generic(clause, view, zh, ts->facts)) {
        // "got my own apartment in Brooklyn!! moved in over the weekend": the message has said
        // the new value already; this is its detail, not another one.
        // "转学成功了！！现在在上海同济": when that statement gave no value, this clause is
        // where it is said, and joins it.
        if (!generic->slot.empty() &&
            std::any_of(out->begin() + static_cast<std::ptrdiff_t>(ts->turn_first), out->end(),
                        [&](const Candidate& c) { return c.slot == generic->slot; })) {
          if (out->back().slot == generic->slot && out->back().value.empty())
            generic->subject.clear();
          generic->slot.clear();
          generic->exclusive.reset();
        } else if (open_change && generic->subject == "user" && out->size() > ts->turn_first &&
                   !view.time.future_time) {
          // (a city it names is where the change happened: "转学成功了，现在在上海同济")
          generic->subject.clear();
          generic->slot.clear();
          generic->exclusive.reset();
        }
        statements.push_back(std::move(*generic));
      }
    }
    if (statements.empty() && !view.ends.empty() && out->size() == ts->turn_first && !correction &&
        !elaboration && view.reporter.empty() && (first.key.empty() || first.key == "user")) {
      // "生酮停了", "bali's off": what the user says ended, with nothing before it to carry
      // the ending, is the statement (with what it ends)
      Statement st = extract::Make(Kind::kEnded, view.ends.front(), "");
      st.ends = view.ends;
      statements.push_back(std::move(st));
    }
    if (statements.empty()) {
      ts->after_condition = IsCondition(own, zh);
      if (out->size() == ts->turn_first && !correction && !elaboration && !ts->after_condition &&
          HasContent(view.text, zh) && view.reporter.empty()) {
        std::string lead = Content(clause, view, ts->said, zh, true);
        ts->lead = ts->lead.empty() ? lead : ts->lead + (zh ? "，" : ", ") + lead;
      }
      if (out->size() > ts->turn_first) {
        // "so no more city job": what ended belongs to the statement before it
        for (const std::string& e : view.ends) out->back().ends.push_back(e);
        // "they're brothers", "他教物理": detail of the statement before it
        if (elaboration && !correction && HasContent(view.text, zh)) {
          // (without a subject the splitter carried over: "白色那辆", not "用户白色那辆")
          const bool carried = zh && piece.inherited && clause.starts_with("我");
          AppendDetail(Content(carried ? clause.substr(3) : clause, view, ts->said, zh, true), zh,
                       &out->back());
        }
        KeepChangeOpen(open_change, *out, ts);
      }
      return;
    }
    std::string content = Content(clause, view, ts->said, zh, /*dates=*/true);
    std::string undated = Content(clause, view, ts->said, zh, /*dates=*/false);
    if (!zh && statements.size() == 1 && statements.front().subject == "user" &&
        !statements.front().slot.empty()) {
      // "officially in Denver now": the user's change said without a subject or a verb reads
      // as a sentence about the user ("User is officially in Denver now")
      content = WithUserAsSubject(content);
      undated = WithUserAsSubject(undated);
    }
    const bool needs_lead =
        implicit || std::any_of(statements.begin(), statements.end(),
                                [](const Statement& st) { return st.elliptical; });
    if (!ts->lead.empty() && needs_lead) {
      // "最多八万" has no subject of its own: what it continues is said with it
      content = JoinLead(ts->lead, content, zh);
      undated = JoinLead(ts->lead, undated, zh);
    }
    ts->lead.clear();
    // In a message of several statements, a statement about the world that follows one about the
    // user ("The discrete nature of the token sets makes Jaccard a better fit", "Target is
    // 97%"), or one that says almost nothing itself ("I'll defend it", "I want to deliver"),
    // is its detail or its reason, not a memory of its own.
    const bool weak =
        statements.size() == 1 &&
        (statements.front().kind == Kind::kGeneric || statements.front().kind == Kind::kGoal) &&
        (zh ? IsWeakStatementZh(view.text) : IsWeakStatement(view.text));
    if (weak && out->size() == ts->turn_first &&
        !extract::IsPassingMood(extract::LowerAscii(view.text), zh)) {
      return;  // "I love it" with nothing before it: the kept turn holds it
    }
    // "打算明年考研 目标复旦 新闻传播", "我们打算明年十月办婚礼 地点定在三亚": a clause with no
    // subject of its own right after a plan of this message says more of the plan (where, which,
    // when), not a fact of its own
    if (out->size() > ts->turn_first && !correction && first.text.empty() &&
        statements.size() == 1 &&
        (statements.front().kind == Kind::kGeneric || statements.front().kind == Kind::kEvent) &&
        (out->back().type == MemoryType::kGoal || out->back().slot.starts_with("user/plan")) &&
        view.reporter.empty()) {
      std::string more = content;
      if (zh && more.starts_with("用户")) more.erase(0, std::string_view("用户").size());
      if (!zh && more.starts_with("User ")) more.erase(0, 5);
      AppendDetail(std::move(more), zh, &out->back());
      for (const std::string& e : view.ends) out->back().ends.push_back(e);
      return;
    }
    const bool consequent = ts->after_condition;  // "If I can't hit it, we revert to …"
    ts->after_condition = false;
    if (statements.size() == 1 &&
        ((statements.front().kind == Kind::kGeneric &&
          (statements.front().subject.empty() || consequent)) ||
         weak) &&
        out->size() > ts->turn_first && !correction) {
      std::string more = content;
      // "用户转学成功了，现在在上海同济": the subject is said once
      if (zh && more.starts_with("用户") && out->back().content.starts_with("用户")) {
        more.erase(0, std::string_view("用户").size());
      }
      AppendDetail(std::move(more), zh, &out->back());
      for (const std::string& e : view.ends) out->back().ends.push_back(e);
      KeepChangeOpen(open_change, *out, ts);
      return;
    }
    if (!ts->label.empty() &&
        extract::LowerAscii(content).find(extract::LowerAscii(ts->label)) == std::string::npos) {
      // "the venue's in Napa" under "wedding stuff:" is about the wedding
      std::string label = ts->label;
      if (!zh) label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
      content = label + (zh ? "：" : ": ") + content;
      undated = label + (zh ? "：" : ": ") + undated;
    }
    for (Statement& st : statements) {
      if (from_patterns && statements.size() == 1 && !st.keep_content && st.kind != Kind::kName &&
          WordCount(content, zh) <= 30) {
        st.content.clear();  // the user's own words, rewritten, say more than the pattern's
      }
      if (ts->type_hint && !st.type) st.type = ts->type_hint;
      // "我想明年换个工作，去做跨境电商": what follows a plan in one breath is the plan
      if (!st.type && implicit && ts->sentence_type && *ts->sentence_type == MemoryType::kGoal &&
          (st.kind == Kind::kGeneric || st.kind == Kind::kPersonFact)) {
        st.type = MemoryType::kGoal;
      }
      const size_t before = out->size();
      Add(st, view, st.recurring ? undated : content, *ts, out);
      if (out->size() > before) ts->sentence_type = out->back().type;
      ts->open_change = out->size() > before && st.kind == Kind::kGeneric &&
                        out->back().exclusive && out->back().value.empty();
      if (ts->open_change) ts->open_change_sentence = ts->sentence_no;
    }
    ts->type_hint.reset();
  }

  // a + b, with a space where both sides are Latin letters or digits: "老公 d" and "d" would
  // otherwise make a word nobody said
  static std::string JoinWords(const std::string& a, const std::string& b) {
    const auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0; };
    if (!a.empty() && !b.empty() && word(a.back()) && word(b.front())) return a + " " + b;
    return a + b;
  }

  // "我妈" → "妈", "my mom" → "mom": a relation the user names, as facts about them hold it
  static std::string WithoutOwner(const std::string& value, bool zh) {
    if (zh && value.starts_with("我") && !extract::RelationKey(value.substr(3)).empty()) {
      return value.substr(3);
    }
    if (!zh && extract::StartsWithWord(extract::LowerAscii(value), "my") && value.size() > 3 &&
        !extract::RelationKey(extract::LowerAscii(value.substr(3))).empty()) {
      return value.substr(3);
    }
    return value;
  }

  // "been here about 5 years" → "I have been here …"; "getting used to it" → "I am getting …".
  static std::string ImplicitEn(const std::string& given) {
    std::string clause = given;
    // "Switching entirely to compost": the verb was capitalized only as the sentence's first word
    if (clause.size() > 1 && std::isupper(static_cast<unsigned char>(clause[0])) &&
        std::islower(static_cast<unsigned char>(clause[1]))) {
      clause[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(clause[0])));
    }
    const std::string low = extract::LowerAscii(clause);
    if (extract::StartsWithWord(low, "been")) return "I have " + clause;
    // "oh and a doctor appointment on Tuesday too": a thing the user has, listed
    if (extract::StartsWithWord(low, "a") || extract::StartsWithWord(low, "an") ||
        extract::StartsWithWord(low, "another")) {
      return "I have " + clause;
    }
    const size_t sp = low.find(' ');
    const std::string first = low.substr(0, sp);
    // "still working nights" is the user doing it; "nothing beats X", "morning runs are the
    // best" are not: a noun ending in -ing opens a subject of its own
    static const std::set<std::string_view> kIngNouns = {
        "morning", "evening", "spring",    "string",   "wedding", "building",
        "ceiling", "sibling", "meeting",   "feeling",  "pudding", "dumpling",
        "darling", "ending",  "beginning", "offspring"};
    if (first.size() > 4 && first.ends_with("ing") && !first.ends_with("thing") &&
        !kIngNouns.contains(first)) {
      return "I am " + clause;
    }
    // "still living with my parents", "currently working nights": an adverb before the verb
    if (sp != std::string::npos) {
      const size_t sp2 = low.find(' ', sp + 1);
      const std::string second = low.substr(sp + 1, sp2 == std::string::npos ? sp2 : sp2 - sp - 1);
      static constexpr std::array<std::string_view, 10> kLeads = {
          "still",    "currently", "now",    "just",    "finally",
          "recently", "also",      "mostly", "usually", "literally"};
      if (std::find(kLeads.begin(), kLeads.end(), first) != kLeads.end() && second.size() > 4 &&
          second.ends_with("ing") && second != "thing" && second != "nothing" &&
          second != "something" && second != "everything") {
        return "I am " + clause;
      }
      // "on a pixel 6", "on my third coffee": where or what the speaker is on; "back in leeds"
      if ((first == "on" && (second == "a" || second == "an" || second == "my")) ||
          (first == "back" && (second == "in" || second == "at"))) {
        return "I am " + clause;
      }
    }

    return "I " + clause;
  }

  // The clause opens with a health condition (IsHealthWord), after a word of its degree:
  // "慢性胃炎好几年了", "高血压三年了".
  static bool LeadsWithConditionZh(const std::string& clause) {
    std::string_view s = clause;
    for (std::string_view degree : {"慢性", "轻度", "重度", "轻微", "有点"}) {
      if (s.starts_with(degree)) s.remove_prefix(degree.size());
    }
    // (Chinese characters are three bytes each: the longest condition first.) Not a word that
    // names a measure or a reaction rather than a condition: "过敏季到了", "血压计坏了".
    for (size_t chars = 6; chars >= 2; --chars) {
      if (s.size() < chars * 3) continue;
      const std::string_view word = s.substr(0, chars * 3);
      if (!extract::IsHealthWord(word)) continue;
      for (std::string_view measure : {"过敏", "受伤", "血压", "血糖", "体脂", "胆固醇"}) {
        if (word == measure) return false;
      }
      return true;
    }
    return false;
  }

  // predicates.tsv `mine`: what a speaker has, said without "my" ("birthday", "shoe size")
  static const std::set<std::string>& MineNouns() {
    static const std::set<std::string> k = [] {
      const std::vector<std::string> words = LexiconWords("en/predicates.tsv", "mine");
      return std::set<std::string>(words.begin(), words.end());
    }();
    return k;
  }

  // A note typed as a label and its value, the way people fill in a form: "Med allergy: sulfa"
  // reads as "I am allergic to sulfa", "Shoe size 44 EU" and "blood type: O+" as "my shoe
  // size is 44 EU", "my blood type is O+". Other sentences are returned as they are.
  static std::string LabelledValueEn(const std::string& sentence) {
    const std::string low = extract::LowerAscii(sentence);
    auto words = [](std::string_view x) {
      return x.empty() ? 0 : std::count(x.begin(), x.end(), ' ') + 1;
    };
    if (const size_t colon = low.find(": "); colon != std::string::npos && colon > 0) {
      std::string label = low.substr(0, colon);
      const std::string value = sentence.substr(colon + 2);
      // (the value ends at a comma: "B negative, for my donor card")
      const std::string_view own = std::string_view(value).substr(0, value.find(','));
      if (words(label) > 3 || words(own) > 4 || value.empty() ||
          value.find(':') != std::string::npos) {
        return sentence;
      }
      if (label.ends_with("allergy") || label.ends_with("allergies")) {
        return "I am allergic to " + value;
      }
      if (label.starts_with("my ")) label.erase(0, 3);
      if (MineNouns().contains(label)) return "my " + label + " is " + value;
      return sentence;
    }
    // "Shoe size 44 EU": a noun of `mine`, then a number, in a note of a few words (a longer
    // noun allows a few more: a byte bound, a third of the noun's bytes, plus 5)
    for (const std::string& noun : MineNouns()) {
      if (low.size() > noun.size() + 1 && low.starts_with(noun) && low[noun.size()] == ' ' &&
          std::isdigit(static_cast<unsigned char>(low[noun.size() + 1])) &&
          static_cast<size_t>(words(low)) <= noun.size() / 3 + 5) {
        return "my " + low.substr(0, noun.size()) + " is " + sentence.substr(noun.size() + 1);
      }
    }
    return sentence;
  }

  // "allergic to cats", "originally from Ohio": a clause with no subject that starts with a
  // state people say of themselves (predicates.tsv) is the speaker's: "I am allergic to cats".
  static std::string WithStateSubjectEn(const std::string& clause) {
    static const std::set<std::string> kStates = [] {
      std::set<std::string> out;
      for (const auto& [key, words] : LexiconEntries("en/predicates.tsv")) {
        if (key == "be") out.insert(words.begin(), words.end());
      }
      return out;
    }();
    const std::set<std::string>& kMine = MineNouns();
    const std::string low = extract::LowerAscii(clause);
    // (a state of two words, "down to 170 lbs", by its first two)
    const size_t second =
        low.find(' ', low.find(' ') == std::string::npos ? low.size() : low.find(' ') + 1);
    if (kStates.contains(low.substr(0, low.find(' '))) || kStates.contains(low.substr(0, second)))
      return "I am " + clause;
    // "asthma since i was a kid", "sleep apnea, diagnosed last year": a condition named first,
    // with a time after it or nothing, is one the speaker has (not "asthma is so scary")
    for (const size_t end : {low.find(' '), second}) {
      const std::string lead = low.substr(0, end);
      if (!extract::IsHealthWord(lead) || kStates.contains(lead)) continue;
      const std::string rest = end >= low.size() ? "" : low.substr(end + 1);
      if (rest.empty() || rest.starts_with("since ") || rest.starts_with("for ") ||
          rest.starts_with("from ")) {
        return "I have " + clause;
      }
    }
    // "birthday's aug 9", "rent is 1,600 now": the speaker's own, said without "my" (and
    // "'s" after such a noun is "is": "my birthday's aug 9"). The leads are built once: this
    // is asked of every clause.
    struct MineLead {
      std::string possessive, copula;  // "[my ]noun's ", "[my ]noun is "
      size_t owner, noun;              // the lengths of "my " (or 0) and of the noun
    };
    static const std::vector<MineLead> kLeads = [] {
      std::vector<MineLead> out;
      for (const std::string& noun : MineNouns()) {
        for (std::string_view owner : {"", "my "}) {
          const std::string lead = std::string(owner) + noun;
          out.push_back({lead + "'s ", lead + " is ", owner.size(), noun.size()});
        }
      }
      return out;
    }();
    for (const MineLead& m : kLeads) {
      const bool possessive = low.starts_with(m.possessive);
      // (not a possessive: "my flight's gate", "name's origin" say whose, not what)
      if (!possessive && !low.starts_with(m.copula)) continue;
      const size_t after = m.owner + m.noun + 3;
      const std::string next =
          after < low.size() ? low.substr(after, low.find(' ', after) - after) : "";
      if (possessive && !kMine.contains(next) && extract::en::Relations().count(next) == 0 &&
          next != "gate" && next != "origin" && next != "meaning" && next != "owner") {
        return "my " + clause.substr(m.owner, m.noun) + " is " + clause.substr(after);
      }
      if (m.owner == 0 && !possessive) return "my " + clause;
    }
    // A list of who the speaker is ("34, paralegal in columbus, 2 kids"): an occupation with
    // nothing after it but where ("paralegal in columbus", "nurse here"), and a count of kids
    // or pets ("2 kids", "three cats").
    std::vector<std::string> words;
    for (size_t i = 0; i < low.size();) {
      const size_t e = std::min(low.find(' ', i), low.size());
      if (e > i) words.push_back(low.substr(i, e - i));
      i = e + 1;
    }
    if (words.empty() || words.size() > 6) return clause;
    while (!words.empty() && !std::isalnum(static_cast<unsigned char>(words.back().back()))) {
      words.back().pop_back();
      if (words.back().empty()) words.pop_back();
    }
    if (words.empty()) return clause;
    // nothing after the occupation but a short place: "in columbus", "at a clinic", "here"
    const auto where = [&](size_t i) {
      if (i >= words.size()) return true;
      if (words[i] == "here") return i + 1 == words.size();
      return (words[i] == "in" || words[i] == "at" || words[i] == "for" || words[i] == "near") &&
             words.size() - i <= 4;
    };
    const bool article = words[0] == "a" || words[0] == "an";
    const size_t head = article ? 1 : 0;
    const auto occupation = [](const std::string& w) {
      const std::vector<extract::en::Tok> t = extract::en::Tokenize(w);
      return t.size() == 1 && extract::en::LooksLikeOccupation(t, 0, 1);
    };
    // (with one word before it: "dental hygienist in tacoma", "ER nurse here")
    static const std::set<std::string> kDeterminers = {"the",   "my",   "your", "his", "her", "our",
                                                       "their", "this", "that", "a",   "an",  "no"};
    const auto is_job = [&](size_t h) {
      return h < words.size() && occupation(words[h]) && words[h] != "junior" &&
             words[h] != "senior" && where(h + 1) &&
             (h == head || !kDeterminers.contains(words[head]));
    };
    if (is_job(head) || is_job(head + 1)) {
      return (article ? "I am " : "I am a ") + clause;
    }
    const bool count =
        std::all_of(words[0].begin(), words[0].end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) ||
        words[0] == "two" || words[0] == "three" || words[0] == "four" || words[0] == "five";
    if (count && words.size() >= 2 &&
        (extract::en::Relations().contains(words[1]) || extract::en::Pets().contains(words[1]))) {
      return "I have " + clause;
    }
    return clause;
  }

  // "前几天", "最近": a time said without a date. The clause keeps it; the patterns read past it
  // ("我前几天领养了只橘猫" reads as "我领养了只橘猫"), and it dates nothing, nor takes the
  // date of the clause before.
  static size_t VagueTimeZh(std::string_view text) {
    for (std::string_view w : {"前几天", "前两天", "前些天", "前阵子", "前段时间", "这几天",
                               "这两天", "这阵子", "最近", "近来"}) {
      if (text.starts_with(w)) return w.size();
    }
    return 0;
  }

  static std::string ForPatternsZh(const std::string& text) {
    std::string t = text.starts_with("我们") ? "我" + text.substr(6) : text;
    const size_t subject = t.starts_with("我") ? 3 : 0;
    if (const size_t n = VagueTimeZh(std::string_view(t).substr(subject)); n > 0) {
      t.erase(subject, n);
    }
    return t;
  }

  // The clause for the self-statement patterns, which read "I" and "my": "we" and "our" too.
  static std::string ForPatternsEn(const std::string& text) {
    std::string low = extract::LowerAscii(text);
    if (extract::StartsWithWord(low, "we")) return "I" + text.substr(2);
    if (extract::StartsWithWord(low, "our")) return "my" + text.substr(3);
    return text;
  }

  // A statement no frame or pattern reads: kept in the user's words when it is about the user
  // or someone they know, reported by someone, or names something (a person, a number).
  std::optional<Statement> Generic(const std::string& clause, const ClauseView& view, bool zh,
                                   bool facts) const {
    const std::string subject =
        zh ? extract::ChineseSubject(clause).key : extract::EnglishSubject(clause).key;
    const size_t words = WordCount(view.text, zh);
    if (words < 2 || !HasContent(view.text, zh)) return std::nullopt;
    if (!zh && IsHypotheticalEn(clause) && view.reporter.empty()) return std::nullopt;
    // "You live in Paris", "你说得对": about the listener; "…，你推荐的时候注意下",
    // "…，你觉得值不值": a clause that speaks to the assistant is said to it, not about the user
    if (view.reporter.empty() &&
        (zh ? ContainsText(view.text, "你") || ContainsText(view.text, "您")
            : extract::StartsWithWord(extract::LowerAscii(clause), "you") || SaysYou(view.text))) {
      return std::nullopt;
    }
    // "officially a pharmacist now": no subject and no name, but it leads with a change of one
    // of the speaker's attributes
    const bool leads_change = subject.empty() && extract::LeadsWithChange(view.text, zh) &&
                              !extract::ChangedAttribute(view.text, zh).empty();
    const bool about = !subject.empty() || !view.reporter.empty();
    if (!about && !NamesSomething(view.text, zh) && !facts && !leads_change) return std::nullopt;
    Statement st;
    st.kind = subject.empty() || subject == "user" ? Kind::kGeneric : Kind::kPersonFact;
    // "" marks a statement about the world, not about the user or anyone they know
    st.subject = !about ? "" : subject.empty() ? "user" : subject;
    st.value = GenericValue(view.text, zh);
    // "is mr okafor", "is dr patel": a title makes the words after it a name, however typed
    if (!zh) {
      const std::string low = extract::LowerAscii(st.value);
      for (std::string_view title :
           {"mr ", "mrs ", "ms ", "miss ", "dr ", "prof ", "mr. ", "mrs. ", "ms. ", "dr. "}) {
        if (low.starts_with(title) && low.size() > title.size() &&
            WordCount(st.value, false) <= 3) {
          st.entities.push_back(st.value);
          break;
        }
      }
    }
    st.confidence = about ? 0.7 : 0.6;
    if (!view.reporter.empty()) st.confidence = 0.7;
    // "officially a Portland resident now", "跳槽去拼多多了": a change of a one-valued attribute
    // in words no frame reads takes the attribute's slot and replaces its value. Only the user's
    // own present, never a plan, a past or a question. A clause without a subject is the
    // speaker's when it says "I" or "my" somewhere ("soooo i got hired at …") or leads with the
    // change; a Chinese clause drops its 我.
    const TextTraits traits = ReadTextTraits(view.text);
    const bool speakers = st.subject == "user" ||
                          (st.subject.empty() &&
                           (zh || traits.first_person || extract::LeadsWithChange(view.text, zh)));
    if (view.reporter.empty() && speakers && !view.time.future_time && !view.time.later_day) {
      std::string attribute = extract::ChangedAttribute(view.text, zh);
      if (attribute == "location" && view.message &&
          extract::SaysAttribute(*view.message, "school", zh)) {
        attribute = "school";
      }
      if (!attribute.empty() && !traits.past && !traits.question &&
          (!traits.others || attribute == "partner") && !(!zh && PastHabit(view.text))) {
        st.subject = "user";
        st.slot = "user/" + attribute;
        st.exclusive = true;
      }
    }
    return st;
  }

  // `more` said of the statement before it, joined to its content ("User signed the lease; user
  // got the keys"): an English detail goes on in lower case.
  static void AppendDetail(std::string more, bool zh, Candidate* to) {
    // (an acronym keeps its case: "ICU as of this pay period")
    if (!zh && !more.empty() &&
        (more.size() < 2 || !std::isupper(static_cast<unsigned char>(more[1])))) {
      more[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(more[0])));
    }
    to->content += (zh ? "，" : "; ") + more;
  }

  // After a detail joined the last statement: "signed the lease and got the keys!! a studio in
  // Tacoma": a change that still has no value, in its own sentence, leaves the value to come.
  static void KeepChangeOpen(bool was_open, const std::vector<Candidate>& out, TurnState* ts) {
    ts->open_change = was_open && out.back().exclusive && out.back().value.empty() &&
                      ts->sentence_no == ts->open_change_sentence;
  }

  // "Officially in Denver now" → "User is officially in Denver now": a statement of the user's
  // that starts with an adverb or a place word, not a verb. Anything else is returned as is.
  static std::string WithUserAsSubject(const std::string& content) {
    if (content.empty() || content.starts_with("User")) return content;
    const std::string low = extract::LowerAscii(content);
    for (std::string_view lead : {"officially", "in", "at", "back", "now", "here", "finally",
                                  "currently", "still", "based", "home"}) {
      if (extract::StartsWithWord(low, lead)) {
        std::string out = content;
        out[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[0])));
        return "User is " + out;
      }
    }
    return content;
  }

  // The clause has "you" or "your" as a word: it speaks to the assistant.
  static bool SaysYou(const std::string& text) {
    const std::string low = " " + extract::LowerAscii(text) + " ";
    for (std::string_view w : {"you", "your", "you're", "you've", "you'll", "you'd", "yours"}) {
      for (size_t k = low.find(w); k != std::string::npos; k = low.find(w, k + 1)) {
        const auto before = static_cast<unsigned char>(low[k - 1]);
        const auto after = static_cast<unsigned char>(low[k + w.size()]);
        if (!std::isalpha(before) && before != '\'' && !std::isalpha(after) && after != '\'') {
          return true;
        }
      }
    }
    return false;
  }

  // What a generic statement says something is: after its last "是" or "is"/"am"/"are", when
  // short ("我养的是布偶猫" → "布偶猫"); empty otherwise.
  static std::string GenericValue(const std::string& text, bool zh) {
    if (zh) {
      size_t k = text.rfind("是");
      if (k == std::string::npos) return "";
      std::string v = text.substr(k + 3);
      while (v.ends_with("了") || v.ends_with("的") || v.ends_with("啊")) v.resize(v.size() - 3);
      return v.size() >= 3 && v.size() <= 18 ? v : "";
    }
    const std::string low = " " + extract::LowerAscii(text) + " ";
    for (std::string_view is : {" is ", " am ", " are ", " 'm ", "'s "}) {
      size_t k = low.rfind(is);
      if (k == std::string::npos) continue;
      std::string v =
          extract::StripMarkersEn(text.substr(std::min(text.size(), k + is.size() - 1)));
      if (!v.empty() && std::count(v.begin(), v.end(), ' ') <= 2) return v;
    }
    return "";
  }

  std::string Content(const std::string& clause, const ClauseView& view, TimestampMs said, bool zh,
                      bool dates) const {
    std::string with_dates = dates ? WithDates(clause, zh, said) : clause;
    std::string content = zh ? RewriteZh(with_dates) : RewriteEn(with_dates);
    if (!view.reporter.empty()) {
      content += zh ? "（" + view.reporter + "说）" : " (according to their " + view.reporter + ")";
      if (!zh && (!ContainsText(view.reporter, ' ') &&
                  std::isupper(static_cast<unsigned char>(view.reporter[0])))) {
        content = content.substr(0, content.rfind(" (according")) + " (according to " +
                  view.reporter + ")";
      }
    }
    return content;
  }

  // `old_value`: the value the user said is wrong ("not mazda"), when they said it.
  void ApplyBareCorrection(const std::string& value, TurnState* ts, std::vector<Candidate>* out,
                           const std::string& old_value = "") {
    // The statement it corrects is still being read: it is replaced before anything is stored,
    // so the corrected statement corrects nothing stored.
    if (out->size() > ts->turn_first) {
      Candidate& last = out->back();
      if (auto fixed = extract::ReplaceValue(last.content,
                                             old_value.empty() ? last.value : old_value, value)) {
        const std::string old_key = extract::SlotKey(last.value);
        if (!last.value.empty() && last.slot.ends_with(":" + old_key)) {
          last.slot.resize(last.slot.size() - old_key.size());
          last.slot += extract::SlotKey(value);
        }
        for (std::string& e : last.entities) {
          if (e == last.value) e = value;
        }
        last.content = *fixed;
        last.value = value;
        return;
      }
    }
    Candidate c;
    c.type = MemoryType::kFact;
    c.content = value;
    c.value = value;
    c.bare = true;
    c.correction = true;
    c.confidence = 0.75;
    c.turn_indexes = {ts->index};
    if (!old_value.empty()) c.ends = {old_value};  // the memory that says it is the one corrected
    out->push_back(std::move(c));
  }

  bool NameForPrevious(const std::string& clause, bool zh, TurnState* ts,
                       std::vector<Candidate>* out) const {
    if (out->size() <= ts->turn_first) return false;
    // The leads, longest first: data/lexicon/{en,zh}/name_leads.tsv.
    const std::string low = zh ? clause : extract::LowerAscii(clause);
    const NameLead* lead = nullptr;
    for (const NameLead& l : NameLeads(zh)) {
      if (low.starts_with(l.text) &&
          (zh || low.size() == l.text.size() || low[l.text.size()] == ' ')) {
        lead = &l;
        break;
      }
    }
    if (!lead) return false;
    std::string name = clause.substr(lead->text.size());
    if (!zh && !name.empty() && name[0] == ' ') name.erase(0, 1);
    const bool another = lead->another;  // "一只叫可乐，一只叫雪碧": a second pet
    if (zh) {
      if (name.empty() || name.size() > 15) return false;
    } else {
      // "her name's clementine and she hates everyone": the name is the word before the
      // conjunction (what follows stays in the kept turn)
      if (const size_t sp = name.find(' '); sp != std::string::npos) {
        const std::string tail = extract::LowerAscii(name.substr(sp + 1));
        if (tail.starts_with("and ") || tail.starts_with("but ") || tail.starts_with("who ")) {
          name.resize(sp);
        }
      }
      // "named her pepper": a name however it is typed, one word, no function word
      extract::en::Tok tok;
      tok.text = name;
      tok.low = extract::LowerAscii(name);
      if (name.empty() || ContainsText(name, ' ') || !extract::en::IsNameAfterNaming(tok))
        return false;
    }
    Candidate& last = out->back();
    if (another && last.slot.starts_with("user/pet")) {
      if (!last.value.empty() && last.value != name && ContainsText(last.slot, ':') &&
          ContainsText(last.content, "叫")) {
        Candidate more = last;  // the first pet already has its name: this is the next one
        more.content = last.content.substr(0, last.content.find("，叫")) + "，叫" + name;
        more.entities = {name};
        more.value = name;
        more.slot = "user/pet:" + extract::SlotKey(name);
        out->push_back(std::move(more));
        return true;
      }
    }
    last.content += zh ? "，叫" + name : " named " + name;
    last.entities.push_back(name);
    if (last.slot.starts_with("user/pet:")) last.slot = "user/pet:" + extract::SlotKey(name);
    if (last.value.empty() || last.slot == "user/partner") last.value = name;
    return true;
  }

  void Add(const Statement& st, const ClauseView& view, const std::string& clause_content,
           const TurnState& ts, std::vector<Candidate>* out) const {
    if (st.confidence < options_.min_confidence) return;
    const extract::KindTraits& traits = extract::TraitsOf(st.kind);
    Candidate c;
    c.content = st.content.empty() ? clause_content : st.content;
    if (c.content.empty()) return;
    if (ts.zh) c.content = SubjectBeforeDateZh(std::move(c.content));
    if (!st.content.empty() && !view.reporter.empty()) {
      c.content +=
          ts.zh ? "（" + view.reporter + "说）" : " (according to their " + view.reporter + ")";
    }
    if (ts.zh && st.kind == Kind::kAllergy && (st.value.starts_with("一") || st.value.empty()) &&
        !ts.fronted.empty()) {
      // "花生我是不能吃的，一吃就过敏": what is allergic is what the sentence is about
      c.value = ts.fronted;
      c.entities = {ts.fronted};
      c.slot = "user/allergy:" + extract::SlotKey(ts.fronted);
      c.content = "用户对" + ts.fronted + "过敏";
    }
    if (ts.zh && !ContainsText(c.content, "用户") && st.subject == "user" &&
        st.kind != Kind::kEnded && st.kind != Kind::kGeneric) {
      c.content = "用户" + c.content;  // "预算加到一万" is the user's budget
    }
    // Type cues read what the user said ("I think", "I'm skeptical"); importance cues the content.
    const std::string low = extract::LowerAscii(c.content);
    if (!ts.zh && AddressesListener(st.kind, low)) return;
    if (!ts.zh && PastHabit(view.text)) {
      // "I used to live in Boston": a past state, not the slot's value now
      Statement past = st;
      past.slot.clear();
      past.exclusive = false;
      if (!extract::TraitsOf(st.kind).slot.empty() || !st.slot.empty()) {
        past.kind = Kind::kGeneric;
        past.content = st.content.empty() ? "" : clause_content;
        Add(past, view, clause_content, ts, out);
        return;
      }
    }
    const std::string said = extract::LowerAscii(view.text) + " " + low;
    c.type = st.type.value_or(traits.type);
    const bool open_kind = st.kind == Kind::kGeneric || st.kind == Kind::kPersonFact ||
                           st.kind == Kind::kEvent || st.kind == Kind::kAppointment;
    // "我今天好开心", "I'm a bit tired": kept, with little weight, as how the user is
    const bool passing_mood =
        open_kind && extract::IsPassingMood(low, ts.zh) && !extract::HasHealthCue(low);
    if (open_kind || st.kind == Kind::kGoal) {
      if (auto cue = extract::TypeFromCues(said, ts.zh)) {
        c.type = *cue;
      } else if (open_kind && view.time.has_time && !passing_mood) {
        // a generic statement about a day ahead is a plan; one about a day behind, or done
        // today, an event
        const bool ahead =
            view.time.later_day || (view.time.future_time && FutureMarker(view.text, ts.zh));
        c.type = ahead && st.kind != Kind::kEvent && st.kind != Kind::kAppointment &&
                         st.subject == "user"
                     ? MemoryType::kGoal
                     : MemoryType::kEvent;
      }
    }
    if (passing_mood) {
      c.importance = 0.2;
    } else {
      c.importance = extract::ImportanceFromCues(low, st.importance.value_or(traits.importance));
    }
    c.confidence = st.confidence;
    c.entities = st.entities;
    c.value = st.value;
    c.elliptical = st.elliptical;
    if (!st.slot.empty()) {
      c.slot = st.slot;
    } else if (!traits.slot.empty()) {
      std::string slot(traits.slot);
      if (traits.keyed) {
        if (!st.key.empty())
          slot += (st.kind == Kind::kAttribute || st.kind == Kind::kContact ? "/" : ":") + st.key;
        else if (!st.elliptical)
          slot.clear();
      }
      if (!slot.empty() && st.subject != "user" && slot.starts_with("user")) {
        slot = st.subject + slot.substr(4);
      }
      c.slot = slot;
    }
    c.exclusive = st.exclusive.value_or(traits.exclusive) && !c.slot.empty();
    c.correction = st.correction || view.correction;
    c.ends = st.ends;
    for (const std::string& e : view.ends) {
      if (std::find(c.ends.begin(), c.ends.end(), e) == c.ends.end()) c.ends.push_back(e);
    }
    // A recurring statement's weekday is its schedule, not a date; a start ("这周开始每天跑步")
    // still dates it.
    if (view.time.has_time && !(st.recurring && view.time.weekday))
      c.valid_from = view.time.time_at;
    c.critical = extract::CriticalSlot(c.slot) || ts.critical_cue;
    if (!c.critical && !st.recurring)
      c.expires_at = Expiry(c, view.time, view.text, ts.zh, ts.said);
    c.turn_indexes = {ts.index};
    for (size_t k = 0; k < out->size(); ++k) {
      Candidate& seen = (*out)[k];
      if (seen.slot == c.slot && seen.content == c.content) return;
      // "我老婆是律师，在一家律所当合伙人": a second thing about someone's one-valued attribute,
      // said in the same message, says more about it; it replaces nothing said there.
      if (k >= ts.turn_first && c.exclusive && seen.exclusive && !c.correction &&
          seen.slot == c.slot && !c.slot.starts_with("user/") && c.ends.empty()) {
        // the subject both share is said once: "用户的老婆是律师，在一家律所当合伙人"
        size_t common = 0;
        while (common < seen.content.size() && common < c.content.size() &&
               seen.content[common] == c.content[common]) {
          ++common;
        }
        if (ts.zh) {
          while (common > 0 && (static_cast<unsigned char>(c.content[common]) & 0xC0) == 0x80)
            --common;
        } else {
          while (common > 0 && c.content[common - 1] != ' ') --common;
        }
        std::string more = common >= 6 ? c.content.substr(common) : c.content;
        if (more.empty()) return;
        seen.content += (ts.zh ? "，" : ", ") + more;
        for (const std::string& e : c.entities) {
          if (std::find(seen.entities.begin(), seen.entities.end(), e) == seen.entities.end()) {
            seen.entities.push_back(e);
          }
        }
        return;
      }
    }
    out->push_back(std::move(c));
  }

  RuleExtractorOptions options_;
  std::string name_ = "rules-v2";
};

}  // namespace

std::unique_ptr<Extractor> MakeRuleExtractor(const RuleExtractorOptions& options) {
  return std::make_unique<RuleExtractor>(options);
}

}  // namespace engram