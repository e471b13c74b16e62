// The entity graph's rules (include/engram/extraction.h ExtractGraph): entities and relations a
// user states in one message, zh and en, read with the word lists of data/lexicon/*/graph_*.tsv.
//
// The rules only take what the text says: a relation needs a subject and an object they can
// place (the user, a name, "my wife" named in the same message or through an alias stated
// before), an alias needs an apposition ("我老公老王", "my wife Anna"), and a name that is not
// recognisably one is left out. Nothing is guessed; a miss is cheaper than a wrong edge.
#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/extraction.h"
#include "extract/lexicon.h"
#include "text/lexicon_data.h"
#include "text/utf8.h"

namespace engram {
namespace {

using Words = std::vector<std::string>;

// A relation pattern of graph_frames.tsv: literals with the S and O slots around them.
// "S在O工作": before 'S', literals {"在", "工作"}, between {'O'}, after 0.
struct Frame {
  std::string predicate;
  EntityKind kind = EntityKind::kPlace;  // the object's default kind
  char before = 0;                       // the slot before the first literal ('S', 'O' or 0)
  std::vector<std::string> literals;
  std::vector<char> between;  // between[i] sits between literals[i] and literals[i + 1]
  char after = 0;             // the slot after the last literal
};

struct RoleWord {
  std::string word;
  std::string predicate;
};

struct Language {
  std::vector<RoleWord> roles;  // longest first
  Words pets;                   // longest first
  std::vector<Frame> frames;    // longest pattern first
  Words places, place_suffixes, org_suffixes, project_marks, surnames, stops, not_names,
      not_speakers;
};

bool ByLength(const std::string& a, const std::string& b) { return a.size() > b.size(); }

const Words& Entry(const std::string& file, std::string_view key) {
  static const Words kNone;
  for (const auto& [k, words] : LexiconEntries(file)) {
    if (k == key) return words;
  }
  return kNone;
}

Frame ParseFrame(const std::string& key, const std::string& pattern) {
  Frame f;
  const size_t slash = key.find('/');
  f.predicate = key.substr(0, slash);
  if (slash != std::string::npos) {
    f.kind = ParseEntityKind(key.substr(slash + 1)).value_or(EntityKind::kPlace);
  }
  // S and O are ASCII capitals in the file; the lexicon lowercases every word, so they read
  // as 's' and 'o' standing alone (en: between spaces; zh: among Chinese characters).
  auto edge = [&](size_t i) {
    return i >= pattern.size() || pattern[i] == ' ' ||
           static_cast<unsigned char>(pattern[i]) >= 0x80;
  };
  std::vector<std::pair<char, std::string>> tokens;  // (slot, "") or (0, literal)
  std::string literal;
  auto flush = [&] {
    while (!literal.empty() && literal.front() == ' ') literal.erase(literal.begin());
    while (!literal.empty() && literal.back() == ' ') literal.pop_back();
    if (!literal.empty()) tokens.emplace_back(0, literal);
    literal.clear();
  };
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if ((c == 's' || c == 'o') && (i == 0 || edge(i - 1)) && edge(i + 1)) {
      flush();
      tokens.emplace_back(c == 's' ? 'S' : 'O', "");
      continue;
    }
    literal += c;
  }
  flush();
  char pending = 0;
  for (const auto& [slot, text] : tokens) {
    if (slot != 0) {
      pending = slot;
      continue;
    }
    if (f.literals.empty()) {
      f.before = pending;
    } else {
      f.between.push_back(pending);
    }
    f.literals.push_back(text);
    pending = 0;
  }
  f.after = pending;
  return f;
}

Language Load(const std::string& lang) {
  Language l;
  for (const auto& [pred, words] : LexiconEntries(lang + "/graph_people.tsv")) {
    for (const std::string& w : words) l.roles.push_back({w, pred});
  }
  std::stable_sort(l.roles.begin(), l.roles.end(), [](const RoleWord& a, const RoleWord& b) {
    return a.word.size() > b.word.size();
  });
  l.pets = Entry(lang + "/pets.tsv", "pet");
  std::stable_sort(l.pets.begin(), l.pets.end(), ByLength);
  for (const auto& [key, patterns] : LexiconEntries(lang + "/graph_frames.tsv")) {
    for (const std::string& p : patterns) l.frames.push_back(ParseFrame(key, p));
  }
  std::stable_sort(l.frames.begin(), l.frames.end(), [](const Frame& a, const Frame& b) {
    size_t la = 0, lb = 0;
    for (const auto& p : a.literals) la += p.size();
    for (const auto& p : b.literals) lb += p.size();
    return la > lb;
  });
  const std::string names = lang + "/graph_names.tsv";
  l.places = Entry(names, "place");
  std::stable_sort(l.places.begin(), l.places.end(), ByLength);
  l.place_suffixes = Entry(names, "place_suffix");
  l.org_suffixes = Entry(names, "organization_suffix");
  l.project_marks = Entry(names, "project_mark");
  l.surnames = Entry(names, "surname");
  std::stable_sort(l.surnames.begin(), l.surnames.end(), ByLength);
  l.stops = Entry(names, "stop");
  l.not_names = Entry(names, "not_name");
  l.not_speakers = Entry(names, "not_speaker");
  return l;
}

const Language& Zh() {
  static const Language l = Load("zh");
  return l;
}
const Language& En() {
  static const Language l = Load("en");
  return l;
}

bool Contains(const Words& words, std::string_view w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool EndsWithAny(std::string_view s, const Words& suffixes) {
  for (const std::string& x : suffixes) {
    if (s.size() > x.size() && s.ends_with(x)) return true;
  }
  return false;
}

// What one message yields, deduplicated by name.
class Facts {
 public:
  // Adds (or finds) an entity; a later, more specific kind does not change an earlier one.
  void Entity(const std::string& name, EntityKind kind, const std::string& alias = "",
              bool reference = false) {
    for (GraphEntity& e : out_.entities) {
      if (e.name == name) {
        if (!alias.empty() && !Contains(e.aliases, alias)) e.aliases.push_back(alias);
        if (!reference) e.reference_only = false;
        return;
      }
    }
    GraphEntity e{name, kind, {}};
    e.reference_only = reference;
    if (!alias.empty()) e.aliases.push_back(alias);
    out_.entities.push_back(std::move(e));
  }
  void Relation(const std::string& s, const std::string& p, const std::string& o, bool ended) {
    if (s == o) return;
    for (const GraphRelation& r : out_.relations) {
      if (r.subject == s && r.predicate == p && r.object == o && r.ended == ended) return;
    }
    GraphRelation r;
    r.subject = s;
    r.predicate = p;
    r.object = o;
    r.ended = ended;
    out_.relations.push_back(std::move(r));
  }
  bool Known(std::string_view name) const {
    return std::any_of(out_.entities.begin(), out_.entities.end(),
                       [&](const GraphEntity& e) { return e.name == name; });
  }
  const std::vector<GraphEntity>& entities() const { return out_.entities; }
  GraphFacts Take() { return std::move(out_); }

 private:
  GraphFacts out_;
};

// A slot's filler, placed: a name and its kind, or the user (kSelfEntity).
struct Placed {
  std::string name;
  EntityKind kind = EntityKind::kPerson;
  bool reference = false;  // a role word to resolve through a stored alias
  std::string alias;       // a role word the name was introduced with
  std::string predicate;   // that role's relation from the user
  std::string ended;       // a "from X" place that this clause says was left
};

// ---------------------------------------------------------------- Chinese

std::vector<std::string> Chars(std::string_view s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const size_t start = i;
    NextCodepoint(s, &i);
    out.emplace_back(s.substr(start, i - start));
  }
  return out;
}

bool IsHan(std::string_view ch) {
  if (ch.empty()) return false;
  const char32_t c = CodepointAt(ch, 0);
  return c >= 0x4E00 && c <= 0x9FFF;
}

bool IsAsciiWordChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// Words that may sit between a subject and its verb ("我现在住在", "张伟去年搬到"): skipped.
constexpr std::string_view kZhAdverbs[] = {
    "现在",   "已经",   "目前", "最近", "一直", "去年", "今年", "明年", "上个月",
    "下个月", "这个月", "上周", "下周", "刚刚", "刚",   "也",   "都",   "还",
    "就",     "又",     "将",   "要",   "会",   "准备", "打算", "想",   "马上",
    "之前",   "以前",   "后来", "终于", "正在", "正",   "在"};
constexpr std::string_view kZhParticles[] = {"了", "啦", "呢", "吧", "啊", "呀", "哦", "的", "嘛"};

std::string_view StripZhTail(std::string_view s) {
  for (bool again = true; again;) {
    again = false;
    for (std::string_view a : kZhAdverbs) {
      if (s.size() > a.size() && s.ends_with(a)) {
        s.remove_suffix(a.size());
        again = true;
      }
    }
  }
  return s;
}

// A personal name at the start of `s` ("张伟在…" → 张伟, "老王住…" → 老王): a surname and one
// or two characters, or 老/小 and one; stopped by a character of the stop list.
std::string ZhPersonAtStart(std::string_view s, const Language& l) {
  const std::vector<std::string> cs = Chars(s);
  auto name_char = [&](size_t i) {
    return i < cs.size() && IsHan(cs[i]) && !Contains(l.stops, cs[i]);
  };
  std::string name;
  if (cs.size() >= 2 && (cs[0] == "老" || cs[0] == "小") && name_char(1)) {
    name = cs[0] + cs[1];
  } else {
    for (const std::string& sn : l.surnames) {
      if (!s.starts_with(sn)) continue;
      const size_t n = Chars(sn).size();
      if (!name_char(n)) continue;
      name = sn + cs[n];
      if (name_char(n + 1)) name += cs[n + 1];
      break;
    }
  }
  if (name.empty() || Contains(l.not_names, name)) return "";
  for (const std::string& nn : l.not_names) {
    if (name.starts_with(nn)) return "";  // "周末" is a time, not 周 + 末
  }
  return name;
}

// A name told with 叫 ("女儿叫朵朵"): the characters up to a stop, 1..4 of them.
std::string ZhCalledName(std::string_view s, const Language& l) {
  std::string name;
  int n = 0;
  for (const std::string& c : Chars(s)) {
    const bool word = IsHan(c) || (c.size() == 1 && IsAsciiWordChar(c[0]));
    if (!word || (n > 0 && Contains(l.stops, c)) || n == 4) break;
    name += c;
    ++n;
  }
  if (Contains(l.not_names, name)) return "";
  return name;
}

// A project or task name in `s` ("项目A", "阿波罗项目", "任务B"): the mark with the Latin
// letters or digits after it, or the characters before it. Empty when there is none.
std::string ZhProjectIn(std::string_view s, const Language& l, size_t* at = nullptr) {
  for (const std::string& mark : l.project_marks) {
    const size_t p = s.find(mark);
    if (p == std::string_view::npos) continue;
    size_t e = p + mark.size();
    while (e < s.size() && IsAsciiWordChar(s[e])) ++e;
    if (e > p + mark.size()) {
      if (at) *at = p;
      return std::string(s.substr(p, e - p));
    }
    size_t b = p;
    while (b > 0 && IsAsciiWordChar(s[b - 1])) --b;
    if (b < p) {
      if (at) *at = b;
      return std::string(s.substr(b, p + mark.size() - b));
    }
  }
  return "";
}

bool ZhIsPlace(std::string_view name, const Language& l) {
  return Contains(l.places, name) || EndsWithAny(name, l.place_suffixes);
}

// The object after a verb ("杭州了" → 杭州, "阿里巴巴做前端" → 阿里巴巴): a known place that
// starts it, else its characters up to a stop (at most 10), particles trimmed.
std::string ZhObject(std::string_view s, const Language& l) {
  for (const std::string& p : l.places) {
    if (s.starts_with(p)) {
      // "杭州市", "杭州西湖区": the known name; its district stays in the memory's text.
      return p;
    }
  }
  if (std::string project = ZhProjectIn(s, l); !project.empty() && s.starts_with(project)) {
    return project;
  }
  if (const std::vector<std::string> cs = Chars(s); !cs.empty() && Contains(l.stops, cs[0])) {
    return "";  // "现在在阿里工作": the verb's 在, not a name
  }
  std::string name;
  int n = 0;
  for (const std::string& c : Chars(s)) {
    const bool word = IsHan(c) || (c.size() == 1 && (IsAsciiWordChar(c[0]) || c[0] == ' '));
    if (!word || n == 10 || (n >= 2 && Contains(l.stops, c))) break;
    name += c;
    ++n;
  }
  for (bool again = true; again;) {
    again = false;
    for (std::string_view p : kZhParticles) {
      if (name.size() > p.size() && std::string_view(name).ends_with(p)) {
        name.resize(name.size() - p.size());
        again = true;
      }
    }
  }
  while (!name.empty() && name.back() == ' ') name.pop_back();
  if (Chars(name).size() < 2 || Contains(l.not_names, name)) return "";
  return name;
}

// Apposition in a clause: "我老公老王", "我的同事张伟", "我女儿叫朵朵". The named person is a
// relation of the user's, and the role word its alias. A role with no name after it ("我老公
// 喜欢钓鱼") is a reference to resolve through an alias stored before.
std::vector<std::pair<size_t, Placed>> ZhRoles(std::string_view clause, const Language& l) {
  std::vector<std::pair<size_t, Placed>> out;  // (byte offset just past the mention, who)
  for (size_t at = clause.find("我"); at != std::string_view::npos;
       at = clause.find("我", at + 1)) {
    size_t p = at + std::string_view("我").size();
    for (std::string_view filler : {"的", "家的", "家"}) {
      if (clause.substr(p).starts_with(filler)) {
        p += filler.size();
        break;
      }
    }
    const RoleWord* role = nullptr;
    for (const RoleWord& r : l.roles) {
      if (clause.substr(p).starts_with(r.word)) {
        role = &r;
        break;
      }
    }
    if (!role) continue;
    p += role->word.size();
    std::string_view rest = clause.substr(p);
    Placed who;
    who.alias = role->word;
    who.predicate = role->predicate;
    size_t end = p;
    for (std::string_view lead : {"名叫", "叫做", "叫"}) {
      if (rest.starts_with(lead)) {
        who.name = ZhCalledName(rest.substr(lead.size()), l);
        end = p + lead.size() + who.name.size();
        break;
      }
    }
    if (who.name.empty()) {
      std::string_view after = rest;
      if (after.starts_with("是")) after.remove_prefix(std::string_view("是").size());
      who.name = ZhPersonAtStart(after, l);
      end = p + (rest.size() - after.size()) + who.name.size();
    }
    if (who.name.empty()) {
      // "他是我的同事": a role said of someone else, not a reference to the one so called.
      if (rest.empty() || clause.substr(0, at).ends_with("是")) continue;
      who.name = role->word;
      who.reference = true;
      end = p;
    }
    out.emplace_back(end, std::move(who));
  }
  return out;
}

// Pets: "我家狗狗旺财", "养了一只猫叫咪咪", "我的猫叫团子". `pending`: a pet introduced without
// a name in the clause before, named by this one ("养了一只猫，叫咪咪").
void ZhPets(std::string_view clause, const Language& l, Facts* facts, bool* pending) {
  for (std::string_view lead : {"它叫", "名叫", "叫做", "叫", "取名叫", "起名叫"}) {
    if (*pending && clause.starts_with(lead)) {
      const std::string name = ZhCalledName(clause.substr(lead.size()), l);
      if (!name.empty()) {
        facts->Entity(name, EntityKind::kPet);
        facts->Relation(std::string(kSelfEntity), "has_pet", name, false);
      }
      break;
    }
  }
  *pending = false;
  const bool mine = clause.find("我") != std::string_view::npos || clause.starts_with("养") ||
                    clause.find("养了") != std::string_view::npos;
  if (!mine) return;
  for (const std::string& pet : l.pets) {
    const size_t p = clause.find(pet);
    if (p == std::string_view::npos) continue;
    std::string_view rest = clause.substr(p + pet.size());
    std::string name;
    for (std::string_view lead : {"名叫", "叫做", "叫", "，叫", "是"}) {
      if (rest.starts_with(lead)) {
        name = ZhCalledName(rest.substr(lead.size()), l);
        break;
      }
    }
    // "我家狗狗旺财": a name right after the word, only in "我家/我的 + pet" form.
    const std::string_view before = clause.substr(0, p);
    if (name.empty() && (before.ends_with("我家") || before.ends_with("我的"))) {
      name = ZhCalledName(rest, l);
      if (Chars(name).size() > 3) name.clear();
    }
    if (!name.empty() && !Contains(l.pets, name)) {
      facts->Entity(name, EntityKind::kPet);
      facts->Relation(std::string(kSelfEntity), "has_pet", name, false);
    } else if (rest.empty()) {
      *pending = true;
    }
    return;
  }
}

// The subject before a verb: the user, a person or role introduced in the clause, a project,
// or a personal name that ends the text.
std::optional<Placed> ZhSubjectBefore(std::string_view s, size_t offset,
                                      const std::vector<std::pair<size_t, Placed>>& roles,
                                      const Language& l) {
  Placed who;
  if (const size_t from = s.rfind("从"); from != std::string_view::npos) {
    // "我从北京搬到杭州": 北京 is where the subject lived.
    who.ended = ZhObject(s.substr(from + std::string_view("从").size()), l);
    s = s.substr(0, from);
  }
  s = StripZhTail(s);
  for (const auto& [end, role] : roles) {
    if (end == offset + s.size()) {
      std::string ended = who.ended;
      who = role;
      who.ended = ended;
      return who;
    }
  }
  // "用户住在上海": a memory's own words name the user so (an import re-reads memories).
  if (s.ends_with("我") || s.ends_with("用户")) {
    who.name = std::string(kSelfEntity);
    who.kind = EntityKind::kUser;
    return who;
  }
  if (std::string project = ZhProjectIn(s, l); !project.empty() && s.ends_with(project)) {
    who.name = project;
    who.kind = EntityKind::kProject;
    return who;
  }
  // A name ends the text: try the last three, then two characters.
  const std::vector<std::string> cs = Chars(s);
  for (size_t n : {size_t{3}, size_t{2}}) {
    if (cs.size() < n) continue;
    std::string tail;
    for (size_t i = cs.size() - n; i < cs.size(); ++i) tail += cs[i];
    if (ZhPersonAtStart(tail, l) == tail) {
      who.name = tail;
      return who;
    }
  }
  return std::nullopt;
}

// The slot after the verb when it is the subject ("项目A的负责人是张伟").
std::optional<Placed> ZhSubjectAfter(std::string_view s, const Language& l) {
  Placed who;
  if (s.starts_with("我")) {
    who.name = std::string(kSelfEntity);
    who.kind = EntityKind::kUser;
    return who;
  }
  who.name = ZhPersonAtStart(s, l);
  if (who.name.empty()) return std::nullopt;
  return who;
}

// A product the graph follows: a device brand or model ("华为手机", "iPhone") or a Latin name.
bool IsProduct(std::string_view name) {
  if (std::any_of(name.begin(), name.end(), IsAsciiWordChar)) return true;
  const std::vector<std::string> cs = Chars(name);
  std::string prefix;
  for (const std::string& c : cs) {
    prefix += c;
    if (!extract::DeviceKind(prefix).empty()) return true;
  }
  return false;
}

EntityKind ObjectKind(const std::string& name, const Frame& f, bool is_place, const Language& l,
                      std::string* predicate) {
  *predicate = f.predicate;
  if (is_place && (f.kind == EntityKind::kOrganization)) {
    *predicate = f.predicate == "works_at" ? "works_in" : "studies_in";
    return EntityKind::kPlace;
  }
  if (is_place) return EntityKind::kPlace;
  if (EndsWithAny(Lower(name), l.org_suffixes)) return EntityKind::kOrganization;
  return f.kind;
}

void AddPlaced(const Placed& who, Facts* facts) {
  if (who.kind == EntityKind::kUser) return;
  facts->Entity(who.name, who.kind, who.reference ? "" : who.alias, who.reference);
  if (!who.reference && !who.predicate.empty()) {
    facts->Relation(std::string(kSelfEntity), who.predicate, who.name, false);
  }
}

void ZhFrames(std::string_view clause, const Language& l,
              const std::vector<std::pair<size_t, Placed>>& roles, Facts* facts) {
  std::vector<std::pair<size_t, size_t>> taken;  // spans of the clause a frame matched
  for (const Frame& f : l.frames) {
    if (f.literals.empty()) continue;
    for (size_t at = clause.find(f.literals[0]); at != std::string_view::npos;
         at = clause.find(f.literals[0], at + 1)) {
      if (std::any_of(taken.begin(), taken.end(),
                      [&](auto span) { return at >= span.first && at < span.second; })) {
        continue;
      }
      // The literals in order; the text between two of them fills the slot there.
      std::vector<std::string_view> between(f.between.size());
      size_t pos = at + f.literals[0].size();
      bool ok = true;
      for (size_t i = 1; i < f.literals.size() && ok; ++i) {
        const size_t next = clause.find(f.literals[i], pos);
        if (next == std::string_view::npos || next == pos) {
          ok = false;
          break;
        }
        between[i - 1] = clause.substr(pos, next - pos);
        pos = next + f.literals[i].size();
      }
      if (!ok) continue;
      std::optional<Placed> subject;
      std::string object;
      auto fill = [&](char slot, std::string_view text, bool leading, bool trailing) {
        if (slot == 'S') {
          subject = leading ? ZhSubjectBefore(text, 0, roles, l) : ZhSubjectAfter(text, l);
        } else if (slot == 'O' && leading) {
          // "项目A的负责人是…": the object ends the text before the verb.
          object = ZhProjectIn(text, l);
          for (const GraphEntity& e : facts->entities()) {
            if (object.empty() && text.ends_with(e.name)) object = e.name;
          }
        } else if (slot == 'O') {
          object = ZhObject(text, l);
          if (!trailing && object.size() != text.size() && !Contains(l.places, object)) {
            object.clear();  // "在家附近的一家公司上班": not a name
          }
        }
      };
      fill(f.before, clause.substr(0, at), true, false);
      for (size_t i = 0; i < between.size(); ++i) fill(f.between[i], between[i], false, false);
      fill(f.after, clause.substr(pos), false, true);
      if (!subject || object.empty() || object == subject->name) continue;
      std::string predicate;
      const bool is_place = ZhIsPlace(object, l);
      const EntityKind kind = ObjectKind(object, f, is_place, l, &predicate);
      if (predicate == "owns" && !IsProduct(object)) {
        continue;  // "买了一个蛋糕": not a product the graph follows
      }
      if (kind == EntityKind::kPlace && f.kind == EntityKind::kPlace && !is_place &&
          predicate != "lives_in" && predicate != "from") {
        continue;
      }
      AddPlaced(*subject, facts);
      facts->Entity(object, kind);
      facts->Relation(subject->name, predicate, object, false);
      if (!subject->ended.empty() && predicate == "lives_in") {
        facts->Entity(subject->ended, EntityKind::kPlace);
        facts->Relation(subject->name, predicate, subject->ended, true);
      }
      taken.emplace_back(at, pos);
      break;
    }
  }
}

void ZhClause(std::string_view clause, const Language& l, Facts* facts, bool* pending_pet) {
  const auto roles = ZhRoles(clause, l);
  for (const auto& [end, who] : roles) AddPlaced(who, facts);
  ZhPets(clause, l, facts, pending_pet);
  ZhFrames(clause, l, roles, facts);
  for (const std::string& p : l.places) {
    if (clause.find(p) != std::string_view::npos) {
      bool inside = false;  // "杭州" inside a longer place already named ("杭州湾")
      for (const GraphEntity& e : facts->entities()) {
        if (e.name != p && e.name.find(p) != std::string::npos) inside = true;
      }
      if (!inside) facts->Entity(p, EntityKind::kPlace);
    }
  }
  if (std::string project = ZhProjectIn(clause, l); !project.empty()) {
    facts->Entity(project, EntityKind::kProject);
  }
}

// ---------------------------------------------------------------- English

struct Word {
  std::string text;  // as written, punctuation stripped
  std::string lower;
  bool comma_after = false;
};

std::vector<Word> EnWords(std::string_view s) {
  std::vector<Word> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() &&
           (s[i] == ' ' || s[i] == '\t' || s[i] == '"' || s[i] == '(' || s[i] == ')')) {
      ++i;
    }
    size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    std::string w(s.substr(b, i - b));
    bool comma = false;
    while (!w.empty() && (w.back() == ',' || w.back() == ':' || w.back() == '"' ||
                          w.back() == ')' || w.back() == '\'')) {
      comma = comma || w.back() == ',';
      w.pop_back();
    }
    if (w.ends_with("'s") || w.ends_with("’s")) {
      // "Anna's": the name; the possessive is read by the patterns that need it.
      w.resize(w.size() - (w.ends_with("'s") ? 2 : 4));
    }
    if (w.empty()) continue;
    out.push_back({w, Lower(w), comma});
  }
  return out;
}

bool Capitalized(const Word& w, const Language& l) {
  const unsigned char c = static_cast<unsigned char>(w.text[0]);
  const bool upper = (c >= 'A' && c <= 'Z') || (w.text.size() > 1 && w.text[0] == 'i' &&
                                                w.text[1] >= 'A' && w.text[1] <= 'Z');  // iPhone
  return upper && !Contains(l.not_names, w.lower);
}

// A capitalized name starting at word i ("San Francisco", "University of Washington", "Project
// Apollo"): its words joined; *next gets the index past it. Empty when word i starts none.
std::string EnNameAt(const std::vector<Word>& ws, size_t i, const Language& l, size_t* next) {
  if (i < ws.size() && ws[i].lower == "the") ++i;
  if (i >= ws.size() || !Capitalized(ws[i], l)) return "";
  std::string name = ws[i].text;
  size_t j = i + 1;
  while (j < ws.size() && !ws[j - 1].comma_after) {
    if (Capitalized(ws[j], l) ||
        (Contains(l.project_marks, ws[j].lower) && ws[j].lower != "project")) {
      name += " " + ws[j].text;
      ++j;
    } else if ((ws[j].lower == "of" || ws[j].lower == "&") && j + 1 < ws.size() &&
               Capitalized(ws[j + 1], l)) {
      name += " " + ws[j].text + " " + ws[j + 1].text;
      j += 2;
    } else if (ws[j].lower == "project" && Capitalized(ws[j - 1], l)) {
      name += " " + ws[j].text;  // "the Apollo project"
      ++j;
      break;
    } else {
      break;
    }
  }
  // "Project Apollo": the mark leads a name of its own.
  if (ws[i].lower == "project" && j == i + 1 && j < ws.size() && Capitalized(ws[j], l)) {
    name += " " + ws[j].text;
    ++j;
  }
  *next = j;
  return name;
}

bool EnIsPlace(const std::string& name, const Language& l) {
  return Contains(l.places, Lower(name)) || EndsWithAny(name, l.place_suffixes);
}

EntityKind EnNameKind(const std::string& name, const Language& l) {
  const std::string lower = Lower(name);
  if (Contains(l.places, lower)) return EntityKind::kPlace;
  for (const std::string& m : l.project_marks) {
    if (lower.starts_with(m + " ") || lower.ends_with(" " + m)) return EntityKind::kProject;
  }
  if (EndsWithAny(name, l.org_suffixes) || EndsWithAny(lower, l.org_suffixes)) {
    return EntityKind::kOrganization;
  }
  return EntityKind::kPerson;
}

// The role word that starts at word i ("wife", "best friend"); its length in words via *n.
const RoleWord* EnRoleAt(const std::vector<Word>& ws, size_t i, const Language& l, size_t* n) {
  for (const RoleWord& r : l.roles) {
    const std::vector<Word> parts = EnWords(r.word);
    if (i + parts.size() > ws.size()) continue;
    bool all = true;
    for (size_t k = 0; k < parts.size() && all; ++k) all = ws[i + k].lower == parts[k].lower;
    if (all) {
      *n = parts.size();
      return &r;
    }
  }
  return nullptr;
}

// "my wife Anna", "my wife, Anna,", "my wife is called Anna", "my wife's name is Anna", "Anna
// is my wife", "Anna, my wife": people; the same with pet words: pets. Returns, per word index
// just past "my ROLE", who it names (for the frames' subjects).
std::vector<std::pair<size_t, Placed>> EnRoles(const std::vector<Word>& ws, const Language& l,
                                               Facts* facts) {
  std::vector<std::pair<size_t, Placed>> out;
  for (size_t i = 0; i + 1 < ws.size(); ++i) {
    if (ws[i].lower != "my" && ws[i].lower != "our") continue;
    size_t n = 0;
    const RoleWord* role = EnRoleAt(ws, i + 1, l, &n);
    const bool pet = !role && Contains(l.pets, ws[i + 1].lower);
    if (!role && !pet) continue;
    if (pet) n = 1;
    size_t j = i + 1 + n;
    if (j + 1 < ws.size() &&
        ((ws[j].lower == "is" && (ws[j + 1].lower == "called" || ws[j + 1].lower == "named")) ||
         (ws[j].lower == "name" && ws[j + 1].lower == "is"))) {
      j += 2;
    } else if (j < ws.size() && (ws[j].lower == "named" || ws[j].lower == "called")) {
      j += 1;
    }
    size_t next = 0;
    std::string name = EnNameAt(ws, j, l, &next);
    if (!name.empty() && EnNameKind(name, l) != EntityKind::kPerson) name.clear();
    Placed who;
    if (name.empty() && i >= 2 && ws[i - 1].lower == "is" && Capitalized(ws[i - 2], l)) {
      name = ws[i - 2].text;  // "Anna is my wife"
    } else if (name.empty() && i >= 1 && ws[i - 1].comma_after && Capitalized(ws[i - 1], l)) {
      name = ws[i - 1].text;  // "Anna, my wife, ..."
    }
    if (pet) {
      if (name.empty()) continue;
      facts->Entity(name, EntityKind::kPet);
      facts->Relation(std::string(kSelfEntity), "has_pet", name, false);
      who.name = name;
      who.kind = EntityKind::kPet;
      out.emplace_back(next > 0 ? next : i + 1 + n, who);
      continue;
    }
    who.alias = role->word;
    who.predicate = role->predicate;
    if (name.empty()) {
      // "My husband works at Figma": whoever the user named their husband before. Not "Anna
      // is my wife" (named above) nor "he is my friend" (said of someone else).
      if (i + 1 + n >= ws.size() ||
          (i >= 1 && (ws[i - 1].lower == "is" || ws[i - 1].lower == "was"))) {
        continue;
      }
      who.name = role->word;
      who.reference = true;
      facts->Entity(who.name, EntityKind::kPerson, "", true);
      out.emplace_back(i + 1 + n, who);
      continue;
    }
    who.name = name;
    AddPlaced(who, facts);
    out.emplace_back(i + 1 + n, who);
    if (next > 0) out.emplace_back(next, who);
  }
  // "a dog named Max", "a cat called Luna": a pet named where it is introduced.
  for (size_t i = 0; i + 2 < ws.size(); ++i) {
    if (!Contains(l.pets, ws[i].lower)) continue;
    if (ws[i + 1].lower != "named" && ws[i + 1].lower != "called") continue;
    size_t next = 0;
    const std::string name = EnNameAt(ws, i + 2, l, &next);
    if (name.empty()) continue;
    const bool mine = std::any_of(ws.begin(), ws.begin() + i, [](const Word& w) {
      return w.lower == "i" || w.lower == "we" || w.lower == "my" || w.lower == "our";
    });
    if (!mine) continue;
    facts->Entity(name, EntityKind::kPet);
    facts->Relation(std::string(kSelfEntity), "has_pet", name, false);
  }
  return out;
}

std::optional<Placed> EnSubjectBefore(const std::vector<Word>& ws, size_t end,
                                      const std::vector<std::pair<size_t, Placed>>& roles,
                                      const Language& l) {
  // Adverbs between the subject and the verb ("I just moved", "Anna recently joined").
  static const Words kSkip = {"just",    "recently", "finally",   "also",       "now",  "still",
                              "already", "actually", "currently", "officially", "have", "has",
                              "had",     "will",     "'ve",       "'ll"};
  while (end > 0 && Contains(kSkip, ws[end - 1].lower)) --end;
  if (end == 0) return std::nullopt;
  for (const auto& [past, who] : roles) {
    if (past == end) return who;
  }
  const std::string& last = ws[end - 1].lower;
  // "The user lives in Boston": a memory's own words (an import re-reads memories).
  const bool the_user = last == "user" && (end == 1 || ws[end - 2].lower == "the");
  if (last == "i" || last == "i'm" || last == "i've" || the_user) {
    Placed who;
    who.name = std::string(kSelfEntity);
    who.kind = EntityKind::kUser;
    return who;
  }
  // A name ending just before the verb.
  for (size_t b = end; b-- > 0 && end - b <= 4;) {
    size_t next = 0;
    std::string name = EnNameAt(ws, b, l, &next);
    if (!name.empty() && next == end) {
      Placed who;
      who.name = name;
      who.kind = EnNameKind(name, l);
      if (who.kind == EntityKind::kPlace) return std::nullopt;
      return who;
    }
  }
  return std::nullopt;
}

bool Matches(const std::vector<Word>& ws, size_t i, const std::vector<Word>& lit) {
  if (i + lit.size() > ws.size()) return false;
  for (size_t k = 0; k < lit.size(); ++k) {
    if (ws[i + k].lower != lit[k].lower) return false;
  }
  return true;
}

void EnFrames(const std::vector<Word>& ws, const Language& l,
              const std::vector<std::pair<size_t, Placed>>& roles, Facts* facts) {
  for (const Frame& f : l.frames) {
    // English frames have one literal: "S lives in O" or "O is led by S".
    if (f.literals.size() != 1 || f.before == 0 || f.after == 0) continue;
    const std::vector<Word> lit = EnWords(f.literals[0]);
    for (size_t i = 1; i < ws.size(); ++i) {
      if (!Matches(ws, i, lit)) continue;
      const size_t after = i + lit.size();
      std::optional<Placed> subject;
      std::string object;
      std::string ended;
      if (f.before == 'S') {
        subject = EnSubjectBefore(ws, i, roles, l);
        size_t o = after, next = 0;
        if (f.predicate == "lives_in" && o + 2 < ws.size() && ws[o - 1].lower == "to") {
          // nothing: "moved to X"
        }
        object = EnNameAt(ws, o, l, &next);
        if (object.empty() && f.predicate == "owns") {
          for (size_t k = o; k < ws.size() && k < o + 3 && object.empty(); ++k) {
            if (!extract::DeviceKind(ws[k].lower).empty()) object = ws[k].text;
          }
        }
      } else {
        // "O is led by S": the object's name ends before the verb, the subject follows it.
        for (size_t b = i; b-- > 0 && i - b <= 4;) {
          size_t next = 0;
          std::string name = EnNameAt(ws, b, l, &next);
          if (!name.empty() && next == i) object = name;
        }
        size_t next = 0;
        std::string name = EnNameAt(ws, after, l, &next);
        if (!name.empty()) {
          Placed who;
          who.name = name;
          subject = who;
        } else if (after < ws.size() && ws[after].lower == "me") {
          Placed who;
          who.name = std::string(kSelfEntity);
          who.kind = EntityKind::kUser;
          subject = who;
        }
      }
      if (!subject || object.empty() || object == subject->name) continue;
      std::string predicate;
      const bool is_place = EnIsPlace(object, l);
      EntityKind kind = ObjectKind(object, f, is_place, l, &predicate);
      const EntityKind named = EnNameKind(object, l);
      if (named == EntityKind::kProject) kind = EntityKind::kProject;
      if (kind == EntityKind::kPlace && !is_place && predicate != "lives_in" &&
          predicate != "from") {
        continue;
      }
      AddPlaced(*subject, facts);
      facts->Entity(object, kind);
      facts->Relation(subject->name, predicate, object, false);
      if (!ended.empty()) {
        facts->Entity(ended, EntityKind::kPlace);
        facts->Relation(subject->name, predicate, ended, true);
      }
      break;
    }
  }
  // "moved from Boston to Seattle": Boston is where the subject lived until now.
  for (size_t i = 1; i + 3 < ws.size(); ++i) {
    if (ws[i].lower != "moved" || ws[i + 1].lower != "from") continue;
    size_t next = 0;
    const std::string from = EnNameAt(ws, i + 2, l, &next);
    if (from.empty() || next >= ws.size() || ws[next].lower != "to") continue;
    size_t end = 0;
    const std::string to = EnNameAt(ws, next + 1, l, &end);
    const std::optional<Placed> subject = EnSubjectBefore(ws, i, roles, l);
    if (to.empty() || !subject) continue;
    AddPlaced(*subject, facts);
    facts->Entity(from, EntityKind::kPlace);
    facts->Entity(to, EntityKind::kPlace);
    facts->Relation(subject->name, "lives_in", to, false);
    facts->Relation(subject->name, "lives_in", from, true);
  }
}

void EnSentence(std::string_view sentence, const Language& l, Facts* facts) {
  const std::vector<Word> ws = EnWords(sentence);
  const auto roles = EnRoles(ws, l, facts);
  EnFrames(ws, l, roles, facts);
  // Known places and projects anywhere in the sentence are mentions.
  for (size_t i = 0; i < ws.size(); ++i) {
    size_t next = 0;
    const std::string name = EnNameAt(ws, i, l, &next);
    if (name.empty()) continue;
    const EntityKind kind = EnNameKind(name, l);
    if (kind == EntityKind::kPlace || kind == EntityKind::kProject) facts->Entity(name, kind);
    i = next - 1;
  }
}

bool HasHan(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const char32_t c = NextCodepoint(s, &i);
    if (c >= 0x4E00 && c <= 0x9FFF) return true;
  }
  return false;
}

// Splits at sentence ends (both languages) and, in Chinese, at commas too: a Chinese clause
// rarely carries a subject over a comma that the rules could follow.
std::vector<std::string_view> Pieces(std::string_view text, bool zh) {
  static constexpr std::string_view kZhEnds[] = {"。", "！", "？", "；", "，", "、", "\n",
                                                 "!",  "?",  ";",  ",",  "~",  "～"};
  static constexpr std::string_view kEnEnds[] = {". ", "! ", "? ", "; ", "\n", "。", "！", "？"};
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size();) {
    bool cut = false;
    for (std::string_view end : zh ? std::span<const std::string_view>(kZhEnds)
                                   : std::span<const std::string_view>(kEnEnds)) {
      if (text.substr(i).starts_with(end)) {
        out.push_back(text.substr(start, i - start));
        i += end.size();
        start = i;
        cut = true;
        break;
      }
    }
    if (!cut) ++i;
  }
  std::string_view last = text.substr(start);
  while (!zh && !last.empty() && (last.back() == '.' || last.back() == '!' || last.back() == '?')) {
    last.remove_suffix(1);
  }
  out.push_back(last);
  return out;
}

}  // namespace

// A transcript line's speaker: "Melanie: I took my kids camping", "Anna Lee: …" (one to three
// capitalized words), "张伟：我下周去杭州" (a surname and one or two characters, or 老/小 and a
// surname), before a colon and the line. Empty when the text does not start so, or the label is
// a word that labels lines without naming anyone ("Note:", "备注："). `rest` gets the line.
std::string SpeakerLabel(std::string_view text, std::string_view* rest) {
  const size_t colon = text.find_first_of(":\xEF");  // ':' or the first byte of '：'
  if (colon == std::string_view::npos || colon == 0 || colon > 40) return "";
  size_t after = 0;
  if (text[colon] == ':') {
    after = colon + 1;
  } else if (text.substr(colon).starts_with("\xEF\xBC\x9A")) {  // '：'
    after = colon + 3;
  } else {
    return "";
  }
  const std::string_view label = text.substr(0, colon);
  std::string_view line = text.substr(after);
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  if (line.empty()) return "";
  if (HasHan(label)) {
    const Language& zh = Zh();
    if (Contains(zh.not_speakers, label) || Contains(zh.not_names, label)) return "";
    const size_t chars = CountCodepoints(label);
    bool named = false;
    for (const std::string& surname : zh.surnames) {
      const size_t n = CountCodepoints(surname);
      if (label.starts_with(surname) && chars > n && chars <= n + 2) named = true;
      if ((label.starts_with("老") || label.starts_with("小")) && chars == 1 + n &&
          label.substr(3) == surname) {
        named = true;
      }
    }
    if (!named) return "";
  } else {
    if (text[colon] != ':' || after >= text.size() || text[after] != ' ') return "";
    int words = 0;
    size_t i = 0;
    while (i < label.size()) {
      size_t end = label.find(' ', i);
      if (end == std::string_view::npos) end = label.size();
      const std::string_view word = label.substr(i, end - i);
      if (word.empty() || word.front() < 'A' || word.front() > 'Z') return "";
      for (char c : word) {
        if (!std::isalpha(static_cast<unsigned char>(c)) && c != '\'' && c != '-' && c != '.') {
          return "";
        }
      }
      if (++words > 3) return "";
      if (words == 1 &&
          (Contains(En().not_speakers, Lower(word)) || Contains(En().not_names, Lower(word)))) {
        return "";
      }
      i = end + 1;
    }
  }
  *rest = line;
  return std::string(label);
}

// A transcript line's first person is its speaker, not the user: "Melanie: my dog Max" is
// Melanie's dog. The label alone does not make the line a mention of the speaker (every line of
// a transcript has one, and the label's words are in the line's text for keyword search); a
// relation the speaker takes part in does.
void AttributeToSpeaker(const std::string& speaker, GraphFacts* facts) {
  std::vector<GraphRelation> kept;
  for (GraphRelation& r : facts->relations) {
    if (r.subject == kSelfEntity) r.subject = speaker;
    if (r.object == kSelfEntity) r.object = speaker;
    if (r.subject != r.object) kept.push_back(std::move(r));
  }
  facts->relations = std::move(kept);
  bool known = false;
  for (const GraphEntity& e : facts->entities) known |= e.name == speaker;
  const bool related = std::any_of(
      facts->relations.begin(), facts->relations.end(),
      [&](const GraphRelation& r) { return r.subject == speaker || r.object == speaker; });
  if (!known && related) facts->entities.push_back({speaker, EntityKind::kPerson, {}});
}

GraphFacts ExtractGraph(std::string_view text) {
  Facts facts;
  if (!IsValidUtf8(text)) return facts.Take();
  std::string_view line;
  const std::string speaker = SpeakerLabel(text, &line);
  if (!speaker.empty()) {
    GraphFacts out = ExtractGraph(line);
    AttributeToSpeaker(speaker, &out);
    return out;
  }
  const bool zh = HasHan(text);
  bool pending_pet = false;
  for (std::string_view piece : Pieces(text, zh)) {
    if (piece.empty()) continue;
    if (zh) {
      ZhClause(piece, Zh(), &facts, &pending_pet);
    } else {
      EnSentence(piece, En(), &facts);
    }
  }
  return facts.Take();
}

}  // namespace engram
