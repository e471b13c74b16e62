// Chinese self-statements. Chinese has no spaces, so a clause is read from its subject "我":
// adverbs (也, 现在, 一直 …) and negators (不, 没, 不再 …) after it are set aside, then the
// verb is matched against the trigger table (住在, 搬到, 在…工作, 喜欢, 对…过敏, 养了 …).
// The object runs to the clause end or a connector (因为, 但是 …) minus trailing particles
// (了, 的, 啊 …).
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "extract/lexicon.h"
#include "extract/rule_patterns.h"
#include "text/find.h"
#include "text/lexicon_data.h"
#include "text/utf8.h"

namespace engram::extract {
namespace {

using SV = std::string_view;

bool Starts(SV s, size_t i, SV w) { return s.substr(i, w.size()) == w; }

// The longest word of `words` at s[i]; empty if none.
template <typename Words>
SV LongestAt(SV s, size_t i, const Words& words) {
  SV best;
  for (SV w : words) {
    if (w.size() > best.size() && Starts(s, i, w)) best = w;
  }
  return best;
}

bool Contains(SV s, SV w) { return ContainsText(s, w); }

constexpr std::array<SV, 44> kAdverbs = {
    "最近", "平常", "这几年", "这些年", "现在", "目前", "一直", "其实", "真的", "特别", "非常",
    "很",   "最",   "都",     "已经",   "刚刚", "刚",   "就",   "平时", "比较", "超级", "超",
    "挺",   "蛮",   "也",     "还是",   "还",   "本来", "一般", "通常", "经常", "总是", "确实",
    "实在", "十分", "相当",   "有点",   "有些", "从小", "向来", "才",   "又",   "可",   "正"};
constexpr std::array<SV, 10> kNegators = {"不再", "再也不", "从来不", "从来没", "从不",
                                          "从没", "没有",   "不",     "没",     "别"};
constexpr std::array<SV, 16> kConnectors = {"因为", "所以", "但是",   "可是", "不过", "而且",
                                            "然后", "并且", "的时候", "已经", "但",   "因此",
                                            "虽然", "只是", "就是说", "，"};
constexpr std::array<SV, 18> kParticles = {"了", "的", "啊", "呀", "哦", "呢", "吧", "啦", "哈",
                                           "嘛", "喔", "噢", "哟", "咯", "呐", "哇", "~",  " "};
// data/lexicon/zh/pets.tsv (breeds too: 布偶, 金毛); the lexicon lives for the process.
const std::vector<SV>& Pets() {
  static const std::vector<SV> k = [] {
    std::vector<SV> out;
    for (const auto& [key, words] : LexiconEntries("zh/pets.tsv")) {
      if (key == "pet") out.insert(out.end(), words.begin(), words.end());
    }
    return out;
  }();
  return k;
}
constexpr std::array<SV, 52> kRelations = {
    "老婆", "老公", "妻子",   "丈夫",   "太太",   "媳妇", "爱人", "儿子",   "女儿",
    "孩子", "宝宝", "闺女",   "妈妈",   "母亲",   "老妈", "妈",   "爸爸",   "父亲",
    "老爸", "爸",   "爸妈",   "父母",   "哥哥",   "姐姐", "弟弟", "妹妹",   "哥",
    "姐",   "爷爷", "奶奶",   "外公",   "外婆",   "姥姥", "姥爷", "男朋友", "女朋友",
    "男友", "女友", "对象",   "未婚夫", "未婚妻", "公公", "婆婆", "岳父",   "岳母",
    "孙子", "孙女", "双胞胎", "家人",   "老伴",   "先生", "儿女"};
constexpr std::array<SV, 29> kHealth = {
    "高血压",       "低血压", "糖尿病", "哮喘",   "心脏病",     "胃病",   "贫血",   "抑郁症",
    "焦虑症",       "失眠",   "痛风",   "高血脂", "乳糖不耐受", "偏头痛", "鼻炎",   "颈椎病",
    "腰椎间盘突出", "关节炎", "癫痫",   "甲亢",   "胃炎",       "血压高", "血糖高", "怀孕",
    "近视",         "散光",   "色弱",   "色盲",   "脂肪肝"};
constexpr std::array<SV, 40> kOccupationEnds = {
    "师",         "员",     "医生", "护士",   "老师",   "会计",   "司机",   "厨师",
    "学生",       "经理",   "主管", "老板",   "记者",   "警察",   "演员",   "模特",
    "保安",       "保姆",   "码农", "博士生", "研究生", "本科生", "工人",   "农民",
    "作家",       "画家",   "歌手", "主播",   "律师",   "总监",   "总裁",   "创始人",
    "自由职业者", "公务员", "销售", "教授",   "店主",   "实习生", "大学生", "军人"};

// Skips adverbs and negators from s[*i]; reports negation and "不再" (no longer).
struct Negation {
  bool negated = false;
  bool no_longer = false;
};
Negation SkipModifiers(SV s, size_t* i) {
  Negation n;
  for (bool moved = true; moved && *i < s.size();) {
    moved = false;
    // "更喜欢" keeps 更; "不是" is a copula, handled by the caller.
    if (SV neg = LongestAt(s, *i, kNegators); !neg.empty() && !Starts(s, *i, "不是")) {
      n.negated = true;
      n.no_longer = n.no_longer || neg == "不再" || neg == "再也不";
      *i += neg.size();
      moved = true;
      continue;
    }
    if (SV adv = LongestAt(s, *i, kAdverbs); !adv.empty()) {
      // "最爱" is an adverb and a verb; "还是" before a noun ("还是学生") stays a copula.
      *i += adv.size();
      moved = true;
    }
  }
  if (n.negated && Contains(s, "不") && (s.ends_with("了") || Contains(s, "不再"))) {
    n.no_longer = n.no_longer || Contains(s, "已经不") || Contains(s, "现在不");
  }
  return n;
}

// Where a value starting at s[b] ends: the first connector, minus trailing particles and
// durations ("好几年了", "三年了", "很久了").
size_t ValueEnd(SV s, size_t b) {
  size_t e = s.size();
  for (SV c : kConnectors) {
    size_t k = s.find(c, b);
    if (k != SV::npos && k > b && k < e) e = k;
  }
  for (bool moved = true; moved && e > b;) {
    moved = false;
    for (SV p : kParticles) {
      if (e - b > p.size() && s.substr(e - p.size(), p.size()) == p) {
        e -= p.size();
        moved = true;
      }
    }
    for (SV d : {"很久", "很多年", "多年", "好几年", "几年", "好多年", "一段时间", "好久"}) {
      if (e - b > d.size() && s.substr(e - d.size(), d.size()) == d) {
        e -= d.size();
        moved = true;
      }
    }
    // "三年", "5个月", "两天" at the end
    for (SV unit : {"年", "个月", "天"}) {
      if (e - b <= unit.size() || s.substr(e - unit.size(), unit.size()) != unit) continue;
      size_t k = e - unit.size();
      size_t start = k;
      while (start > b) {
        size_t prev = std::max(b, CodepointStart(s, start - 1));
        SV ch = s.substr(prev, start - prev);
        if (ch.size() == 1 ? std::isdigit(static_cast<unsigned char>(ch[0])) != 0
                           : SV("一二两三四五六七八九十几").find(ch) != SV::npos) {
          start = prev;
        } else {
          break;
        }
      }
      if (start < k && start > b) {
        e = start;
        moved = true;
      }
    }
  }
  return e;
}

size_t SkipLeading(SV s, size_t b) {
  for (bool moved = true; moved && b < s.size();) {
    moved = false;
    for (SV p : {"了", "过", "着", " "}) {
      if (Starts(s, b, p)) {
        b += p.size();
        moved = true;
      }
    }
  }
  return b;
}

// One quantity and classifier ("一只", "两条", "3个") at s[i]; returns the bytes.
size_t Quantity(SV s, size_t i) {
  size_t j = i;
  while (j < s.size()) {
    if (std::isdigit(static_cast<unsigned char>(s[j]))) {
      ++j;
      continue;
    }
    bool numeral = false;
    for (SV n : {"一", "两", "二", "三", "四", "五", "六", "七", "八", "九", "十", "几"}) {
      if (Starts(s, j, n)) {
        j += n.size();
        numeral = true;
        break;
      }
    }
    if (!numeral) break;
  }
  for (SV c : {"只", "条", "个", "位", "头", "匹", "对"}) {
    if (Starts(s, j, c)) return j + c.size() - i;
  }
  return j - i;
}

std::string Str(SV s) { return std::string(s); }

// "吃辣" and "辣" share a key: leading 吃/喝/看/听/玩 dropped.
std::string LikeKey(SV v) {
  for (SV verb : {"吃", "喝", "看", "听", "玩", "去", "打", "养"}) {
    if (v.starts_with(verb) && v.size() > verb.size()) {
      v.remove_prefix(verb.size());
      break;
    }
  }
  return SlotKey(v);
}

struct Clause {
  SV pred;  // the text after 我
  const ClauseInput* in;
};

constexpr double kInheritedPenalty = 0.1;

Statement Make(const Clause& c, Kind kind, std::string value, std::string key, std::string content,
               double confidence) {
  Statement s;
  s.kind = kind;
  s.value = std::move(value);
  s.key = std::move(key);
  s.content = std::move(content);
  s.confidence = confidence - (c.in->inherited_subject ? kInheritedPenalty : 0);
  return s;
}

// "用户" + the predicate up to `end`, with a later 我 read as 自己.
std::string Content(SV pred, size_t end) {
  std::string out = "用户";
  SV p = pred.substr(0, end);
  for (size_t i = 0; i < p.size();) {
    if (Starts(p, i, "我")) {
      out += "自己";
      i += 3;
    } else {
      size_t n = CodepointLength(p, i);
      out.append(p.substr(i, n));
      i += n;
    }
  }
  return out;
}

// Values split at 、 和 跟 与 及 ("苹果、香蕉和橙子").
std::vector<std::pair<size_t, size_t>> ListItems(SV s, size_t b, size_t e) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t start = b;
  for (size_t i = b; i < e;) {
    SV sep = LongestAt(s, i, std::array<SV, 5>{"、", "和", "跟", "与", "及"});
    if (!sep.empty() && i > start) {
      out.push_back({start, i});
      start = i + sep.size();
      i = start;
      continue;
    }
    i += CodepointLength(s, i);
  }
  if (e > start) out.push_back({start, e});
  return out;
}

bool LooksLikeOccupation(SV v) {
  if (v.empty() || CountCodepoints(v) > 12 || Contains(v, "的")) return false;
  for (SV end : kOccupationEnds) {
    if (v.ends_with(end)) return true;
  }
  return false;
}

std::vector<Statement> Canonical(const Clause& c, Kind kind, SV value, double confidence,
                                 const Negation& neg, size_t end) {
  if (value.empty() || CountCodepoints(value) > 20) return {};
  std::string content = neg.negated ? Content(c.pred, end) : ChineseContent(kind, value);
  Statement st = Make(c, kind, Str(value), "", content, confidence);
  st.correction = neg.no_longer;
  if (kind != Kind::kJob) st.entities.push_back(Str(value));
  return {std::move(st)};
}

// Large cities and countries: "我在上海工作" names a place of work, not an employer.
bool IsKnownPlace(SV v) {
  static constexpr std::array<SV, 44> kPlaces = {
      "北京",   "上海",   "广州",     "深圳",   "杭州", "南京", "成都", "重庆", "武汉",
      "西安",   "天津",   "苏州",     "长沙",   "郑州", "青岛", "厦门", "大连", "沈阳",
      "哈尔滨", "济南",   "合肥",     "福州",   "昆明", "香港", "澳门", "台北", "东京",
      "纽约",   "伦敦",   "巴黎",     "新加坡", "美国", "英国", "日本", "韩国", "德国",
      "法国",   "加拿大", "澳大利亚", "国外",   "老家", "本地", "外地", "海外"};
  return std::find(kPlaces.begin(), kPlaces.end(), v) != kPlaces.end();
}

// 在X工作 / 在X上班 / 在X住 / 在学X
std::vector<Statement> MatchZai(const Clause& c, size_t i, const Negation& neg) {
  SV p = c.pred;
  size_t b = SkipLeading(p, i + 3);
  for (SV work : {"工作", "上班", "实习", "任职", "打工", "做事", "干了", "干过", "当"}) {
    size_t k = p.find(work, b);
    if (k == SV::npos || k == b) continue;
    SV v = p.substr(b, k - b);
    if (v == "家" || v == "家里" || v == "这里" || v == "那里" || v == "这" || v == "那") return {};
    static constexpr std::array<SV, 8> kPlaceEnds = {"市", "省", "区", "县",
                                                     "国", "州", "镇", "村"};
    static constexpr std::array<SV, 12> kOrgEnds = {"公司",   "集团", "银行", "医院",
                                                    "学校",   "大学", "工厂", "科技",
                                                    "研究所", "中心", "局",   "店"};
    bool place =
        (std::any_of(kPlaceEnds.begin(), kPlaceEnds.end(), [&](SV e) { return v.ends_with(e); }) ||
         IsKnownPlace(v)) &&
        !std::any_of(kOrgEnds.begin(), kOrgEnds.end(), [&](SV e) { return v.ends_with(e); });
    if (work == "当") {
      size_t jb = k + work.size();
      size_t je = ValueEnd(p, jb);
      if (!LooksLikeOccupation(p.substr(jb, je - jb))) return {};
      return Canonical(c, Kind::kJob, p.substr(jb, je - jb), 0.8, neg, je);
    }
    return Canonical(c, place ? Kind::kWorkPlace : Kind::kEmployer, v, 0.85, neg, k + work.size());
  }
  for (SV live : {"住", "生活", "定居"}) {
    size_t k = p.find(live, b);
    if (k == SV::npos || k == b) continue;
    return Canonical(c, Kind::kLocation, p.substr(b, k - b), 0.85, neg, k + live.size());
  }
  if (Starts(p, b, "学") && !Starts(p, b, "学校") && !Starts(p, b, "学院") &&
      !Starts(p, b, "学生")) {
    size_t vb = SkipLeading(p, b + 3);
    size_t ve = ValueEnd(p, vb);
    if (ve <= vb) return {};
    return {Make(c, Kind::kSkill, Str(p.substr(vb, ve - vb)), SlotKey(p.substr(vb, ve - vb)),
                 Content(p, ve), 0.75)};
  }
  return {};
}

// 是X人 / 是做X的 / 是一名X / 是素食者 / 是X患者
std::vector<Statement> MatchShi(const Clause& c, size_t i, const Negation& neg) {
  SV p = c.pred;
  size_t b = i + 3;
  if (Starts(p, b, "说") || neg.negated) return {};
  size_t e = ValueEnd(p, b);
  SV v = p.substr(b, e - b);
  // "是做设计的", "是写前端的", "是搞销售的", "是干财务的"
  if ((Starts(v, 0, "做") || Starts(v, 0, "写") || Starts(v, 0, "搞") || Starts(v, 0, "干")) &&
      p.substr(b).find("的") != SV::npos) {
    size_t de = p.find("的", b);
    SV job = p.substr(b + 3, de - b - 3);
    if (job.empty()) return {};
    return {Make(c, Kind::kJob, Str(job), "", ChineseContent(Kind::kJob, job), 0.85)};
  }
  if (Contains(v, "素食")) return {Make(c, Kind::kDiet, "素食", "", Content(p, e), 0.85)};
  if (v.ends_with("患者") || v.ends_with("病人")) {
    SV cond = v.substr(0, v.size() - 6);
    return {Make(c, Kind::kHealth, Str(cond), SlotKey(cond), Content(p, e), 0.85)};
  }
  if (v.ends_with("人") && CountCodepoints(v) >= 3 && CountCodepoints(v) <= 6 &&
      !Contains(v, "的") && !Starts(v, 0, "一") && !Starts(v, 0, "个")) {
    SV place = v.substr(0, v.size() - 3);
    return Canonical(c, Kind::kHometown, place, 0.8, neg, e);
  }
  size_t q = Quantity(v, 0);
  if (q > 0 && (Starts(v, 0, "一") || Starts(v, 0, "个") || Starts(v, 0, "名"))) v.remove_prefix(q);
  for (SV w : {"名", "位"}) {
    if (Starts(v, 0, w)) v.remove_prefix(w.size());
  }
  if (LooksLikeOccupation(v)) return Canonical(c, Kind::kJob, v, 0.85, neg, e);
  return {};
}

// A name right after a pet word, before what is said of the pet: "布偶猫年糕最近不爱吃饭" →
// "年糕", "柯基豆包老掉毛" → "豆包". Two or three Chinese characters, none of them a verb or
// particle, then a word that starts a predicate (or the clause ends); "" otherwise ("猫吃了鱼").
std::string NameAfterPet(SV p, size_t b) {
  static constexpr std::array<SV, 26> kPredicateStarts = {
      "最近", "老", "总",   "特别", "很", "又", "今天", "昨天", "不",
      "已经", "也", "每天", "一直", "还", "都", "有点", "太",   "超",
      "真",   "刚", "现在", "今年", "，", "是", "在",   "会"};
  static constexpr std::string_view kNotInNames = "了的吃喝在是有会要被把叫跑咬掉生病不很也都";
  for (size_t chars : {2, 3}) {
    size_t e = b;
    bool han = true;
    for (size_t n = 0; n < chars && e < p.size(); ++n) {
      const size_t len = CodepointLength(p, e);
      const SV ch = p.substr(e, len);
      if (len != 3 || kNotInNames.find(ch) != SV::npos) han = false;
      e += len;
    }
    if (!han || e > p.size() || CountCodepoints(p.substr(b, e - b)) != chars) continue;
    const bool ends = e == p.size() || LongestAt(p, e, kPredicateStarts).size() > 0;
    if (ends) return Str(p.substr(b, e - b));
  }
  return "";
}

// Pets and family after 养/有: "养了一只猫，叫咪咪", "有两个孩子".
std::vector<Statement> MatchHave(const Clause& c, size_t i, size_t verb_len, const Negation& neg) {
  SV p = c.pred;
  size_t b = SkipLeading(p, i + verb_len);
  b += Quantity(p, b);
  SV pet = LongestAt(p, b, Pets());
  SV rel = pet.empty() ? LongestAt(p, b, kRelations) : SV();
  if (pet.empty() && rel.empty()) {
    // 有 + a health condition
    for (SV h : kHealth) {
      if (Starts(p, b, h)) {
        if (neg.negated) return {};
        return {Make(c, Kind::kHealth, Str(h), SlotKey(h), Content(p, b + h.size()), 0.85)};
      }
    }
    return {};
  }
  if (neg.negated && !neg.no_longer) return {};
  SV noun = pet.empty() ? rel : pet;
  size_t e = b + noun.size();
  std::string name;
  for (SV call : {"，叫", ",叫", "，名叫", "叫", "名叫", "，名字叫", "名字叫", "，它叫", "它叫"}) {
    if (Starts(p, e, call)) {
      size_t nb = e + call.size();
      size_t ne = ValueEnd(p, nb);
      if (ne > nb && CountCodepoints(p.substr(nb, ne - nb)) <= 8) {
        name = Str(p.substr(nb, ne - nb));
        e = ne;
      }
      break;
    }
  }
  bool is_pet = !pet.empty();
  std::string key = is_pet && !name.empty() ? SlotKey(name) : SlotKey(noun);
  Statement st = Make(c, is_pet ? Kind::kPet : Kind::kFamily, name.empty() ? Str(noun) : name, key,
                      Content(p, e), is_pet ? 0.85 : 0.8);
  st.correction = neg.no_longer;
  if (!name.empty()) st.entities.push_back(name);
  return {std::move(st)};
}

// 对X过敏 / 对X感兴趣
std::vector<Statement> MatchDui(const Clause& c, size_t i, const Negation& neg) {
  SV p = c.pred;
  size_t b = i + 3;
  size_t k = p.find("过敏", b);
  if (k != SV::npos && k > b) {
    SV v = p.substr(b, k - b);
    if (neg.negated && !neg.no_longer) return {};
    std::vector<Statement> out;
    for (auto [ib, ie] : ListItems(p, b, k)) {
      SV item = p.substr(ib, ie - ib);
      Statement st = Make(c, Kind::kAllergy, Str(item), SlotKey(item),
                          ChineseContent(Kind::kAllergy, item), 0.9);
      st.entities.push_back(Str(item));
      out.push_back(std::move(st));
    }
    (void)v;
    return out;
  }
  k = p.find("感兴趣", b);
  if (k == SV::npos || k <= b) return {};
  bool negative = neg.negated || (k >= 3 && p.substr(k - 3, 3) == "不");
  size_t ve = negative && p.substr(k - 3, 3) == "不" ? k - 3 : k;
  SV v = p.substr(b, ve - b);
  return {
      Make(c, negative ? Kind::kDislike : Kind::kLike, Str(v), LikeKey(v), Content(p, k + 9), 0.8)};
}

struct Trigger {
  SV word;
  std::optional<Kind> positive;
  std::optional<Kind> negative;
  double confidence = 0.85;
};

constexpr double kWeak = 0.65;

const std::vector<Trigger>& Triggers() {
  using K = Kind;
  static const std::vector<Trigger> k = {
      {"名字叫", K::kName, {}},
      {"名字是", K::kName, {}},
      {"叫", K::kName, {}},
      {"住在", K::kLocation, {}},
      {"搬到", K::kLocation, {}},
      {"搬去", K::kLocation, {}},
      // "我润到成都了": moved away, as typed online
      {"润到", K::kLocation, {}},
      {"润去", K::kLocation, {}},
      {"搬来", K::kLocation, {}},
      {"搬家到", K::kLocation, {}},
      {"搬回", K::kLocation, {}},
      {"定居在", K::kLocation, {}},
      {"定居于", K::kLocation, {}},
      {"生活在", K::kLocation, {}},
      {"居住在", K::kLocation, {}},
      {"现居", K::kLocation, {}},
      {"住", K::kLocation, {}, 0.75},
      {"老家在", K::kHometown, {}},
      {"老家是", K::kHometown, {}},
      {"来自", K::kHometown, {}},
      {"出生在", K::kHometown, {}},
      {"出生于", K::kHometown, {}},
      {"就职于", K::kEmployer, {}},
      {"任职于", K::kEmployer, {}},
      {"供职于", K::kEmployer, {}},
      {"入职了", K::kEmployer, {}},
      {"入职", K::kEmployer, {}},
      {"加入了", K::kEmployer, {}, 0.7},
      {"工作是", K::kJob, {}},
      {"职业是", K::kJob, {}},
      {"从事", K::kJob, {}, 0.8},
      {"更喜欢", K::kLike, K::kDislike},
      {"喜欢", K::kLike, K::kDislike},
      {"热爱", K::kLike, K::kDislike},
      {"偏爱", K::kLike, {}},
      {"爱", K::kLike, K::kDislike},
      {"迷上了", K::kLike, {}},
      {"讨厌", K::kDislike, {}},
      {"厌恶", K::kDislike, {}},
      {"受不了", K::kDislike, {}},
      {"怕", K::kDislike, {}, 0.7},
      {"吃素", K::kDiet, {}},
      {"吃", {}, K::kDislike},
      {"喝", {}, K::kDislike},
      {"患有", K::kHealth, {}},
      {"得了", K::kHealth, {}, 0.75},
      {"确诊了", K::kHealth, {}},
      {"被确诊为", K::kHealth, {}},
      {"被诊断出", K::kHealth, {}},
      {"结婚了", K::kMarital, {}},
      {"已婚", K::kMarital, {}},
      {"单身", K::kMarital, {}},
      {"离婚了", K::kMarital, {}},
      {"订婚了", K::kMarital, {}},
      {"目标是", K::kGoal, {}},
      {"梦想是", K::kGoal, {}},
      {"计划是", K::kGoal, {}},
      {"想要", K::kGoal, {}},
      {"想", K::kGoal, {}, 0.75},
      {"打算", K::kGoal, {}},
      {"计划", K::kGoal, {}},
      {"准备", K::kGoal, {}, 0.75},
      {"希望", K::kGoal, {}, 0.75},
      {"决定", K::kGoal, {}},
      {"考虑", K::kGoal, {}, 0.6},
      {"擅长", K::kSkill, {}},
      {"精通", K::kSkill, {}},
      {"正在学", K::kSkill, {}},
      {"在学", K::kSkill, {}},
      {"学过", K::kSkill, {}},
      {"会说", K::kSkill, {}},
      {"会弹", K::kSkill, {}},
      {"会拉", K::kSkill, {}},
      {"会做", K::kSkill, {}},
      {"会开", K::kSkill, {}},
      {"会游泳", K::kSkill, {}},
      {"会编程", K::kSkill, {}},
      {"会画", K::kSkill, {}},
      {"会唱", K::kSkill, {}},
      {"会跳", K::kSkill, {}},
      {"答应", K::kGoal, {}, 0.75},
      {"承诺", K::kGoal, {}, 0.75},
      {"保证", K::kGoal, {}, 0.7},
      {"需要", K::kGoal, {}, 0.6},
      {"会", K::kGoal, {}, 0.6},
  };
  return k;
}

bool GoalObjectOk(SV v) {
  for (SV bad : {"知道", "问", "请", "了解一下", "说", "想", "你", "一下", "听听", "看看", "起来",
                 "到", "念", "让你", "找你", "聊"}) {
    if (v.starts_with(bad)) return false;
  }
  return true;
}

// The table trigger at pred[i]: its statements (possibly none: "我想知道…" is a request), or
// nullopt when no trigger is there.
std::optional<std::vector<Statement>> MatchTrigger(const Clause& c, size_t i, const Negation& neg) {
  SV p = c.pred;
  for (const Trigger& t : Triggers()) {
    if (!Starts(p, i, t.word)) continue;
    std::optional<Kind> kind = neg.no_longer ? (t.positive ? t.positive : t.negative)
                               : neg.negated ? t.negative
                                             : t.positive;
    if (!kind) return std::vector<Statement>{};
    size_t b = SkipLeading(p, i + t.word.size());
    size_t e = ValueEnd(p, b);
    const bool valueless = *kind == Kind::kMarital || *kind == Kind::kDiet;
    if (valueless) {
      Statement st = Make(c, *kind, Str(t.word), "", Content(p, i + t.word.size()), t.confidence);
      st.correction = neg.no_longer;
      return std::vector<Statement>{std::move(st)};
    }
    if (e <= b) return std::vector<Statement>{};
    SV v = p.substr(b, e - b);
    switch (*kind) {
      case Kind::kName:
        if (Starts(p, i + t.word.size(), "了") || CountCodepoints(v) > 8 ||
            LongestAt(v, 0, std::array<SV, 6>{"他", "她", "它", "你", "人", "我"}).size()) {
          return std::vector<Statement>{};
        }
        return Canonical(c, *kind, v, t.confidence, neg, e);
      case Kind::kEmployer:
        // "入职两周了": how long, not where
        if (IsTimeSpanZh(v)) return std::vector<Statement>{};
        return Canonical(c, *kind, v, t.confidence, neg, e);
      case Kind::kLocation:
      case Kind::kHometown:
        return Canonical(c, *kind, v, t.confidence, neg, e);
      case Kind::kJob:
        return Canonical(c, *kind, v, t.confidence, neg, e);
      case Kind::kGoal:
        if (v.starts_with("好了")) v.remove_prefix(6);  // 想好了要…: decided to
        if (v.starts_with("要")) v.remove_prefix(3);
        if (v.empty() || !GoalObjectOk(v)) return std::vector<Statement>{};
        // 我会的, 我会去: too slight to remember
        if (t.confidence < 0.7 && CountCodepoints(v) < 3) return std::vector<Statement>{};
        return std::vector<Statement>{
            Make(c, *kind, Str(v), SlotKey(v), Content(p, e), t.confidence)};
      case Kind::kLike:
      case Kind::kDislike: {
        if (v == "你" || v == "他" || v == "她" || v == "它" || v == "这个" || v == "那个" ||
            Contains(v, "我") || Contains(v, "你")) {
          return std::vector<Statement>{};
        }
        // 我最喜欢的颜色是蓝色: a favourite, one value per kind
        if (Starts(v, 0, "的") && *kind == Kind::kLike) {
          size_t is = v.find("是");
          if (is == SV::npos || is <= 3 || is + 3 >= v.size()) return std::vector<Statement>{};
          SV what = v.substr(3, is - 3), value = v.substr(is + 3);
          Statement st =
              Make(c, Kind::kFavorite, Str(value), SlotKey(what), Content(p, e), t.confidence);
          st.entities.push_back(Str(value));
          return std::vector<Statement>{std::move(st)};
        }
        std::vector<Statement> out;
        auto items = ListItems(p, b, e);
        for (auto [ib, ie] : items) {
          SV item = p.substr(ib, ie - ib);
          std::string content = items.size() == 1 ? Content(p, e) : Content(p, b) + Str(item);
          Statement st = Make(c, *kind, Str(item), LikeKey(item), content, t.confidence);
          st.correction = neg.no_longer;
          st.entities.push_back(st.key);
          out.push_back(std::move(st));
        }
        return out;
      }
      default: {
        Statement st = Make(c, *kind, Str(v), SlotKey(v), Content(p, e), t.confidence);
        st.correction = neg.no_longer;
        return std::vector<Statement>{std::move(st)};
      }
    }
  }
  return std::nullopt;
}

// 我的X是Y / 我X… (family, pets, job, goals)
std::vector<Statement> MatchPossessive(const Clause& c, size_t i) {
  SV p = c.pred;
  if (Starts(p, i, "家")) {
    i += 3;
    if (Starts(p, i, "的")) i += 3;
    if (Starts(p, i, "在")) {
      size_t b = i + 3, e = ValueEnd(p, b);
      Negation none;
      return e > b ? Canonical(c, Kind::kLocation, p.substr(b, e - b), 0.75, none, e)
                   : std::vector<Statement>{};
    }
    if (Starts(p, i, "有") || Starts(p, i, "养了") || Starts(p, i, "里有") || Starts(p, i, "养")) {
      size_t vl = Starts(p, i, "养了") || Starts(p, i, "里有") ? 6 : 3;
      return MatchHave(c, i, vl, Negation{});
    }
  }
  SV pet = LongestAt(p, i, Pets());
  SV rel = pet.empty() ? LongestAt(p, i, kRelations) : SV();
  if (!pet.empty() || !rel.empty()) {
    SV noun = pet.empty() ? rel : pet;
    size_t e = ValueEnd(p, i + noun.size());
    if (CountCodepoints(p.substr(i + noun.size(), e - i - noun.size())) < 2) return {};
    std::string name;
    for (SV lead : {"名字叫", "名字是", "叫做", "叫"}) {
      size_t k = p.find(lead, i + noun.size());
      if (k == SV::npos || k >= e) continue;
      size_t ne = ValueEnd(p, k + lead.size());
      if (ne > k + lead.size() &&
          CountCodepoints(p.substr(k + lead.size(), ne - k - lead.size())) <= 6) {
        name = Str(p.substr(k + lead.size(), ne - k - lead.size()));
      }
      break;
    }
    if (name.empty() && !pet.empty()) name = NameAfterPet(p, i + noun.size());
    bool is_pet = !pet.empty();
    Statement st = Make(c, is_pet ? Kind::kPet : Kind::kFamily, name.empty() ? Str(noun) : name,
                        is_pet && !name.empty() ? SlotKey(name) : SlotKey(noun), Content(p, e),
                        is_pet ? 0.8 : 0.75);
    if (!name.empty()) st.entities.push_back(name);
    return {std::move(st)};
  }
  if (Starts(p, i, "老家")) {
    size_t b = i + 6;
    if (Starts(p, b, "在") || Starts(p, b, "是")) b += 3;
    size_t e = ValueEnd(p, b);
    return e > b ? Canonical(c, Kind::kHometown, p.substr(b, e - b), 0.85, Negation{}, e)
                 : std::vector<Statement>{};
  }
  return {};
}

bool IsQuestionOrHypothetical(SV s) {
  for (SV q : {"什么",   "哪里", "哪儿",   "哪个",   "哪家",   "谁",     "多少",   "怎么",
               "为什么", "为啥", "是不是", "有没有", "能不能", "要不要", "会不会", "对不对",
               "吗",     "么",   "如果",   "要是",   "假如",   "假设",   "万一",   "的话",
               "可能",   "也许", "或许",   "请",     "帮我",   "帮忙",   "告诉我", "提醒我",
               "你",     "？",   "?",      "曾经",   "以前",   "小时候"}) {
    if (Contains(s, q)) return true;
  }
  return s.ends_with("呢");
}

// 每周三 / 每天 / 每个周末 …: the key after 每, or empty.
std::string RoutineKey(SV s, size_t* at) {
  size_t k = s.find("每");
  if (k == SV::npos) return "";
  size_t b = k + 3;
  if (Starts(s, b, "个")) b += 3;
  for (SV unit : {"星期", "礼拜", "周", "天", "晚", "早", "月", "年"}) {
    if (!Starts(s, b, unit)) continue;
    size_t e = b + unit.size();
    if (unit == "星期" || unit == "礼拜" || unit == "周") {
      for (SV d : {"一", "二", "三", "四", "五", "六", "日", "天", "末"}) {
        if (Starts(s, e, d)) {
          e += d.size();
          break;
        }
      }
    }
    *at = k;
    return Str(s.substr(k, e - k));
  }
  return "";
}

}  // namespace

std::string ChineseContent(Kind kind, std::string_view value) {
  std::string v(value);
  switch (kind) {
    case Kind::kName:
      return "用户叫" + v;
    case Kind::kLocation:
      return "用户住在" + v;
    case Kind::kHometown:
      return "用户来自" + v;
    case Kind::kEmployer:
    case Kind::kWorkPlace:
      return "用户在" + v + "工作";
    case Kind::kJob:
      return "用户是" + v;
    case Kind::kAllergy:
      return "用户对" + v + "过敏";
    default:
      return "";
  }
}

std::vector<Statement> MatchChineseClause(const ClauseInput& input) {
  SV s = input.text;
  if (s.empty() || IsQuestionOrHypothetical(s)) return {};
  size_t me = SV::npos;
  for (size_t k = s.find("我"); k != SV::npos; k = s.find("我", k + 3)) {
    if (!Starts(s, k + 3, "们")) {
      me = k;
      break;
    }
  }
  if (me == SV::npos) return {};
  SV before = s.substr(0, me);
  for (SV other : {"说", "觉得", "认为", "听说", "他", "她", "别人", "朋友"}) {
    if (Contains(before, other)) return {};
  }
  Clause c{s.substr(me + 3), &input};
  if (c.pred.empty()) return {};
  // 我朋友…, 我同事…: someone else is the subject
  for (SV other : {"朋友", "同学", "同事", "老师", "邻居", "室友", "老板", "领导", "哥们", "闺蜜",
                   "的朋友", "的同学", "的同事", "们"}) {
    if (c.pred.starts_with(other)) return {};
  }
  size_t routine_at = 0;
  if (std::string key = RoutineKey(s, &routine_at); !key.empty()) {
    if (Contains(c.pred, "不") || Contains(c.pred, "没")) return {};
    std::string content = routine_at < me ? "用户" + Str(s.substr(routine_at, me - routine_at)) +
                                                Content(c.pred, ValueEnd(c.pred, 0)).substr(6)
                                          : Content(c.pred, ValueEnd(c.pred, 0));
    return {Make(c, Kind::kRoutine, key, SlotKey(key), content, 0.75)};
  }
  size_t i = 0;
  if (Starts(c.pred, 0, "的")) {
    i = 3;
    if (auto out = MatchPossessive(c, i); !out.empty()) return out;
    return MatchTrigger(c, i, Negation{}).value_or(std::vector<Statement>{});  // 我的名字是…
  }
  if (auto out = MatchPossessive(c, 0); !out.empty()) return out;
  Negation neg = SkipModifiers(c.pred, &i);
  SV p = c.pred;
  if (Starts(p, i, "不是")) return {};
  if (Starts(p, i, "在")) return MatchZai(c, i, neg);
  if (Starts(p, i, "是")) return MatchShi(c, i, neg);
  if (Starts(p, i, "对")) return MatchDui(c, i, neg);
  if (Starts(p, i, "当") && !neg.negated) {
    size_t e = ValueEnd(p, i + 3);
    if (LooksLikeOccupation(p.substr(i + 3, e - i - 3))) {
      return Canonical(c, Kind::kJob, p.substr(i + 3, e - i - 3), 0.8, neg, e);
    }
  }
  for (SV have : {"养了", "养着", "领养了", "收养了", "领养", "养", "有"}) {
    if (Starts(p, i, have)) {
      if (auto out = MatchHave(c, i, have.size(), neg); !out.empty() || have != "有") return out;
    }
  }
  // "我花生过敏", "我有点过敏"
  if (size_t k = p.find("过敏", i); k != SV::npos && k > i && !neg.negated) {
    size_t b = i;
    if (Starts(p, b, "有")) b += 3;
    SV v = p.substr(b, k - b);
    if (!v.empty() && CountCodepoints(v) <= 8) {
      Statement st =
          Make(c, Kind::kAllergy, Str(v), SlotKey(v), ChineseContent(Kind::kAllergy, v), 0.85);
      st.entities.push_back(Str(v));
      return {std::move(st)};
    }
  }
  for (SV h : kHealth) {
    if (Contains(p, h) && !neg.negated) {
      return {Make(c, Kind::kHealth, Str(h), SlotKey(h), Content(p, ValueEnd(p, 0)), 0.8)};
    }
  }
  if (auto out = MatchTrigger(c, i, neg); out) return *out;
  // A dated statement with no other pattern: an appointment ahead, or an event behind. A
  // feeling ("我好期待", "我觉得…") is neither.
  if (input.has_time && !neg.negated && CountCodepoints(p) >= 3) {
    SV q = p.substr(i);
    for (SV feeling :
         {"好", "很", "太", "真", "超", "特别", "非常", "有点", "觉得", "感觉", "知道"}) {
      if (q.starts_with(feeling)) return {};
    }
    size_t e = ValueEnd(p, 0);
    std::string content = Content(p, e) + "（" + input.date + "）";
    if (input.future_time) {
      static constexpr std::array<SV, 34> kPlans = {
          "要",   "去",     "有",   "得",   "约",   "会去", "打算", "预约", "面试",
          "考试", "会议",   "开会", "手术", "体检", "航班", "飞机", "婚礼", "聚会",
          "约会", "牙医",   "医生", "复诊", "出差", "旅行", "旅游", "上课", "比赛",
          "演出", "音乐会", "生日", "派对", "看病", "见面", "搬家"};
      bool plan = std::any_of(kPlans.begin(), kPlans.end(), [&](SV w) { return Contains(q, w); });
      if (plan) return {Make(c, Kind::kAppointment, "", "", content, 0.75)};
      return {};
    }
    if (Contains(q, "了") || Contains(q, "过"))
      return {Make(c, Kind::kEvent, "", "", content, 0.65)};
  }
  return {};
}

std::optional<std::string> ChineseBareCorrection(std::string_view clause) {
  SV s = clause;
  for (bool moved = true; moved;) {
    moved = false;
    for (SV m : {"不对", "抱歉", "不好意思", "哦", "呃", "，", ",", " ", "说错了", "对不起"}) {
      if (s.starts_with(m)) {
        s.remove_prefix(m.size());
        moved = true;
      }
    }
  }
  for (SV lead : {"我是说", "我的意思是", "我说的是", "应该是", "是"}) {
    if (!s.starts_with(lead)) continue;
    s.remove_prefix(lead.size());
    size_t e = ValueEnd(s, 0);
    for (SV tail : {"才对", "不是"}) {
      size_t k = s.find(tail);
      if (k != SV::npos && k < e) e = k;
    }
    SV v = s.substr(0, e);
    if (v.empty() || CountCodepoints(v) > 12 || Contains(v, "我")) return std::nullopt;
    return Str(v);
  }
  return std::nullopt;
}

}  // namespace engram::extract
