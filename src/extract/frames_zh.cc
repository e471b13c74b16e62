// Chinese topic frames (frames.h). Chinese has no spaces: a clause is read from its subject —
// 我/我们 (the user), 我 + a relation ("我女儿", "我闺蜜小林": someone the user knows), a
// relation alone ("奶奶上个月走了"), a short name before a verb of ending ("旺财去世了"), or
// nothing ("跳槽了，现在在美团": the user) — and each frame looks for its trigger words.
//
// This file: the text helpers and the subject finder the frames share (frames_zh_internal.h),
// FindAmountZh, and the order the frames are tried in; the frames by topic are in
// frames_zh_people.cc (people, family, partner, pets, contact details), frames_zh_work.cc
// (work, school, health, diet, languages) and frames_zh_plans.cc (plans, budgets and amounts,
// schedules, devices, what ended).
#include <algorithm>
#include <array>
#include <bitset>
#include <cctype>
#include <string>

#include "extract/changes.h"
#include "extract/frames.h"
#include "extract/frames_zh_internal.h"
#include "extract/lexicon.h"
#include "text/find.h"

namespace engram::extract {

using namespace frames_zh;  // NOLINT: the frames and their helpers (frames_zh_internal.h)

namespace frames_zh {

bool Has(SV s, SV w) { return ContainsText(s, w); }

std::string Str(SV s) { return std::string(s); }

// Trailing particles and fillers off a value: "八万吧" → "八万", "阿杰啦" → "阿杰".
std::string TrimValue(SV v) {
  for (bool moved = true; moved && !v.empty();) {
    moved = false;
    for (SV p : {"了",   "的",   "啊",   "呀",   "哦", "呢", "吧", "啦", "哈", "嘛", "左右", "以内",
                 "以下", "以上", "上下", "而已", "～", "~",  "。", "，", " ",  "！", "!"}) {
      if (v.size() > p.size() && v.ends_with(p)) {
        v.remove_suffix(p.size());
        moved = true;
      }
    }
  }
  for (bool moved = true; moved && !v.empty();) {
    moved = false;
    for (SV p : {"是", "为", "在", "到", "了", " ", "大概", "大约", "差不多", "一个", "一台",
                 "一辆", "一家", "一只", "一部"}) {
      if (v.size() > p.size() && v.starts_with(p)) {
        v.remove_prefix(p.size());
        moved = true;
      }
    }
  }
  return Str(v);
}

// Where a value starting at b ends: a comma, a connector or the end.
size_t ValueEnd(SV s, size_t b) {
  size_t e = s.size();
  for (SV c : {"，", ",", "。", "因为", "所以", "但是", "不过", "而且", "然后", "还", "也"}) {
    size_t k = s.find(c, b);
    if (k != SV::npos && k > b && k < e) e = k;
  }
  return e;
}

// Relation words, longest first where one starts another ("妈妈" before "妈").
const std::vector<SV>& RelationWords() {
  static const std::vector<SV> k = {
      "老公",   "丈夫", "先生", "老婆",   "妻子",   "太太", "媳妇",   "爱人",   "男朋友", "男友",
      "女朋友", "女友", "对象", "未婚夫", "未婚妻", "儿子", "女儿",   "闺女",   "孩子",   "宝宝",
      "妈妈",   "老妈", "母亲", "妈",     "爸爸",   "老爸", "父亲",   "爸妈",   "父母",   "爸",
      "哥哥",   "哥",   "弟弟", "弟",     "姐姐",   "姐",   "妹妹",   "妹",     "奶奶",   "外婆",
      "姥姥",   "爷爷", "外公", "姥爷",   "婆婆",   "公公", "岳母",   "丈母娘", "岳父",   "闺蜜",
      "同事",   "领导", "老板", "室友",   "朋友",   "表姐", "表哥",   "表妹",   "表弟",   "舅舅",
      "叔叔",   "阿姨", "姑姑", "小姨",   "侄子",   "侄女", "外甥女", "外甥",   "邻居",   "同学"};
  return k;
}

SV RelationAt(SV s, size_t i) {
  SV best;
  for (SV r : RelationWords()) {
    if (r.size() > best.size() && s.substr(i, r.size()) == r) best = r;
  }
  return best;
}

namespace {

// A name after a relation ("我闺蜜小林", "我同事老王"): up to three characters before a verb.
std::string NameAfter(SV s, size_t i) {
  static const std::vector<SV> kStops = {
      "是",   "在",   "有",   "对", "叫",   "今年", "上",   "去",   "住",   "说",   "跟",
      "和",   "也",   "都",   "就", "已经", "刚",   "现在", "最近", "每",   "特别", "很",
      "经常", "一直", "平时", "考", "退休", "做",   "当",   "读",   "喜欢", "的",   "会",
      "要",   "还",   "才",   "转", "下",   "这",   "那",   "们"};
  size_t j = i;
  size_t n = 0;
  while (j < s.size() && n < 3) {
    bool stop = false;
    for (SV w : kStops) stop = stop || s.substr(j, w.size()) == w;
    if (stop) break;
    j += CodepointLength(s, j);
    ++n;
  }
  if (n == 0 || n == 1) return "";
  const SV name = s.substr(i, j - i);
  for (size_t k = 0; k < name.size(); k += CodepointLength(name, k)) {
    if (IsDigitOrNumeral(name.substr(k, CodepointLength(name, k)))) return "";  // "七岁" is an age
  }
  if (name.starts_with("小") || name.starts_with("老") || name.starts_with("阿") || n == 2) {
    return Str(name);
  }
  return "";
}

bool StartsWithVerb(SV s) {
  static const std::vector<SV> kVerbs = {
      "搬", "住", "跳槽", "换", "转岗", "转学", "升职", "入职", "辞职", "离职", "开始", "戒", "养",
      "领养", "学", "考", "吃", "喝", "在", "去", "要", "准备", "打算", "想", "刚", "已经", "现在",
      "最近", "一直", "还在", "又", "正在", "终于", "新买", "买了", "卖了", "改", "不", "没", "涨",
      "降", "加", "调", "转正", "毕业", "退休", "结婚", "订婚", "离婚", "怀孕", "报了", "报名",
      "决定", "答应", "承诺", "保证", "计划", "预约", "约了", "每天", "每周", "平时", "天天",
      "经常", "从", "跟", "和", "把", "被", "给", "用", "开", "做", "当", "上", "拿到", "通过",
      "考过", "考上", "得了", "确诊", "查出", "感冒", "发烧", "腰", "膝盖", "瘦", "胖", "分手",
      "分了", "迷上", "爱上", "喜欢", "讨厌", "受不了", "辞了", "退了", "放弃", "回到", "回",
      "人在",
      // buying, as typed online: "提了辆比亚迪", "入手了一台", "喜提新车", "拿下了"
      "提了", "提车", "入手", "入了", "喜提", "购入", "拿下",
      // a job hop said short: "跳去腾讯了", "跳到快手"
      "跳去", "跳到"};
  // "直接换了个…", "干脆辞了", "总算瘦到…": an adverb before the verb
  for (SV adverb : {"直接", "干脆", "总算", "后来", "结果", "反正", "其实", "真的", "也", "还",
                    "就", "都", "才"}) {
    if (s.starts_with(adverb) && s.size() > adverb.size()) {
      s.remove_prefix(adverb.size());
      break;
    }
  }
  for (SV v : kVerbs) {
    if (s.starts_with(v)) return true;
  }
  return false;
}

}  // namespace

Subject FindSubject(SV s) {
  Subject sub;
  size_t i = 0;
  if (s.starts_with("我们") || s.starts_with("咱们"))
    i = 6;
  else if (s.starts_with("我") || s.starts_with("咱"))
    i = 3;
  if (i > 0) {
    size_t j = i;
    if (s.substr(j, 3) == "的") j += 3;
    if (s.substr(j, 3) == "家" && s.substr(j + 3, 3) != "里" && s.substr(j + 3, 3) != "有") {
      j += 3;  // "我家狗", "我家的猫"
      if (s.substr(j, 3) == "的") j += 3;
    }
    if (SV rel = RelationAt(s, j); !rel.empty()) {
      sub.who = Who::kPerson;
      sub.relation = Str(RelationKey(rel));
      sub.key = Str(rel);
      sub.end = j + rel.size();
      if (std::string name = NameAfter(s, sub.end); !name.empty()) {
        sub.name = name;
        sub.key = name;
        sub.end += name.size();
      }
      return sub;
    }
    if (j > i) {  // "我的生日", "我家狗"
      sub.who = Who::kUserThing;
      sub.end = j;
      return sub;
    }
    sub.who = Who::kUser;
    sub.end = i;
    return sub;
  }
  if (SV rel = RelationAt(s, 0); !rel.empty()) {
    sub.who = Who::kPerson;
    sub.relation = Str(RelationKey(rel));
    sub.key = Str(rel);
    sub.end = rel.size();
    return sub;
  }
  // "韩语我放弃了", "花生我是不能吃的": an object said first, then 我 (a few Chinese characters
  // that are not a verb of their own: "Karis宁愿我…" is no object)
  auto plain_object = [](SV prefix) {
    for (size_t i = 0; i < prefix.size(); i += CodepointLength(prefix, i)) {
      if (static_cast<unsigned char>(prefix[i]) < 0x80) return false;
    }
    for (SV verb : {"愿", "望", "让", "要", "想", "说", "诉", "得", "觉", "认", "为", "给", "对",
                    "向", "被", "请", "帮", "叫", "问"}) {
      if (ContainsText(prefix, verb)) return false;
    }
    return true;
  };
  if (size_t me = s.find("我");
      me != SV::npos && me > 0 && me <= 12 && plain_object(s.substr(0, me)) &&
      s.substr(me, 6) != "我们" && !Has(s.substr(0, me), "你") && !Has(s.substr(0, me), "他") &&
      !Has(s.substr(0, me), "她") && !Has(s.substr(0, me), "说") && !Has(s.substr(0, me), "，") &&
      !Has(s.substr(0, me), "是") && !Has(s.substr(0, me), "和") && !Has(s.substr(0, me), "跟") &&
      !Has(s.substr(0, me), "给") && !Has(s.substr(0, me), "把")) {
    sub.who = Who::kUser;
    sub.end = me + 3;
    sub.key = Str(s.substr(0, me));  // the fronted object
    return sub;
  }
  if (StartsWithVerb(s)) {
    sub.who = Who::kNobody;
    return sub;
  }
  // "下个月出差是去烟台", "明年打算考研": a time said first, then what the user does
  for (SV t :
       {"大后天", "大前天", "下个月",   "上个月", "这个月", "下周", "上周", "这周",   "明年",
        "去年",   "今年",   "明天",     "昨天",   "今天",   "后天", "前天", "周末",   "五一",
        "十一",   "国庆",   "春节",     "暑假",   "寒假",   "年底", "月底", "前几天", "前两天",
        "前些天", "前阵子", "前段时间", "这几天", "这两天", "最近", "刚刚", "刚才",   "上午",
        "下午",   "中午",   "早上",     "晚上",   "昨晚",   "今晚", "今早", "周一",   "周二",
        "周三",   "周四",   "周五",     "周六",   "周日",   "星期"}) {
    if (s.starts_with(t)) {
      sub.who = Who::kNobody;
      return sub;
    }
  }
  return sub;
}

bool AboutUser(const Subject& s) {
  return s.who == Who::kUser || s.who == Who::kUserThing || s.who == Who::kNobody;
}

void ForPerson(const Subject& s, Statement* st, SV attribute) {
  st->subject = s.key;
  st->slot = s.key + "/" + Str(attribute);
  if (!s.name.empty() &&
      std::find(st->entities.begin(), st->entities.end(), s.name) == st->entities.end()) {
    st->entities.push_back(s.name);
  }
}

bool IsDigitOrNumeral(SV ch) {
  static const SV kNumerals = "零一二两三四五六七八九十百千万亿半几";
  return (ch.size() == 1 && std::isdigit(static_cast<unsigned char>(ch[0]))) ||
         (ch.size() == 3 && ContainsText(kNumerals, ch)) || ch == "." || ch == ",";
}

}  // namespace frames_zh

std::string FindAmountZh(std::string_view s) {
  // A run of numerals, with 万/千/百/块/元/k after it: "五万", "8万", "一万八", "三千五".
  for (size_t i = 0; i < s.size(); i += CodepointLength(s, i)) {
    size_t j = i;
    size_t chars = 0;
    bool big = false;  // holds 万, 千 or 百, or is written in digits
    bool digit = false;
    while (j < s.size()) {
      SV ch = s.substr(j, CodepointLength(s, j));
      if (!IsDigitOrNumeral(ch)) break;
      big = big || ch == "万" || ch == "千" || ch == "百" || ch == "亿";
      digit = digit || (ch.size() == 1 && std::isdigit(static_cast<unsigned char>(ch[0])));
      j += ch.size();
      ++chars;
    }
    if (chars == 0) continue;
    SV numeral = s.substr(i, j - i);
    if (numeral == "一" || numeral == "几" || numeral == "半") continue;
    SV rest = s.substr(j);
    bool unit = false;
    for (SV u : {"块钱", "块", "元", "万", "k", "K", "w", "W", "斤", "公斤", "千克"}) {
      if (rest.starts_with(u)) {
        j += u.size();
        unit = true;
        break;
      }
    }
    if (big || unit || (digit && chars >= 3)) return Str(s.substr(i, j - i));
    i = j - CodepointLength(s, j - 1);
  }
  return "";
}

namespace {

// The characters of a clause, to skip the frames none of whose trigger characters it holds: a
// frame looks for each of its words in the clause, and most clauses hold none of them.
class CharSet {
 public:
  explicit CharSet(SV s) {
    for (size_t i = 0; i < s.size();) {
      const char32_t c = NextCodepoint(s, &i);
      if (c < 0x10000) bits_.set(c);
      latin_ = latin_ || (c >= 'A' && c <= 'z');
    }
  }
  // True when the clause holds any character of `chars`.
  bool Any(SV chars) const {
    for (size_t i = 0; i < chars.size();) {
      const char32_t c = NextCodepoint(chars, &i);
      if (c < 0x10000 && bits_.test(c)) return true;
    }
    return false;
  }
  bool latin() const { return latin_; }

 private:
  std::bitset<0x10000> bits_;
  bool latin_ = false;
};

}  // namespace

std::vector<Statement> MatchChineseFrames(const ClauseView& c, MessageState* state) {
  SV s = c.text;
  if (s.empty()) return {};
  const Subject sub = FindSubject(s);
  const CharSet has(c.raw.empty() ? s : SV(c.raw));
  const bool person = sub.who == Who::kPerson;
  if (has.Any("去过走死没飞跑丢坏病离不送卖扔淘分戒停放好痊康正恢辞职跳槽换转新找入")) {
    if (auto out = Ended(s, sub, state); !out.empty()) return out;
  }
  if (has.Any("孩娃")) {
    if (auto out = Children(s, sub); !out.empty()) return out;
  }
  if (has.Any("素酮断肉真")) {
    if (auto out = Diet(s, sub); !out.empty()) return out;
  }
  if (has.Any("宠")) {
    if (auto out = NoPets(s, sub); !out.empty()) return out;
  }
  if (has.Any("预") || c.topic == "budget") {
    if (auto out = Budget(s, sub, c, state); !out.empty()) return out;
  }
  if (has.Any("租工薪收费重贷存涨斤高欠手") || !c.topic.empty()) {
    if (auto out = Amount(s, sub, c, state); !out.empty()) return out;
  }
  if (has.Any("药素剂胰钙维")) {
    if (auto out = Medication(s, sub); !out.empty()) return out;
  }
  if (has.Any("手电邮身地址微车护血生号型")) {
    const SV raw = c.raw.empty() ? s : SV(c.raw);
    if (auto out = Contact(raw, FindSubject(raw)); !out.empty()) return out;
  }
  if (has.Any("公婆朋友对领婚订单求老先太")) {
    if (auto out = Partner(s, sub); !out.empty()) return out;
  }
  if (has.Any("岁") || ContainsText(c.raw, "今年")) {
    if (auto out = Age(s, sub, c.raw.empty() ? s : SV(c.raw)); !out.empty()) return out;
  }
  if (has.Any("搬婚考面手答蜜旅差辩订定抢")) {
    if (auto out = Plan(s, sub, c); !out.empty()) return out;
  }
  if (has.Any("读学考转级班校")) {
    if (auto out = School(s, sub, *state); !out.empty()) return out;
  }
  if (has.Any("语文话")) {
    if (auto out = Language(s, sub); !out.empty()) return out;
  }
  if (has.latin() ||
      has.Any("小华荣三安苹戴联惠硕宏文掌比特丰本大宝奔奥凯雅捷理蔚鹏问机脑板器车表")) {
    if (auto out = Device(s, sub); !out.empty()) return out;
  }
  if (has.Any("周每星礼点改换调挪")) {
    if (auto out = Schedule(c.raw.empty() ? s : SV(c.raw), sub, state); !out.empty()) return out;
  }
  if (has.Any("在做职司岗是当任跳") || state->topic == "employer") {
    if (auto out = Work(s, sub, state); !out.empty()) return out;
  }
  if (person) {
    if (auto out = PersonFacts(s, sub); !out.empty()) return out;
  }
  if (has.Any("能以始爱")) {
    if (auto out = CanHave(s, sub); !out.empty()) return out;
  }
  if (has.Any("是")) {
    if (auto out = NameOfRelation(s); !out.empty()) return out;
  }
  if (has.Any("把")) {
    if (auto out = BroughtTo(s); !out.empty()) return out;
  }
  // "我在厦门", "我现在人在成都呢", "人在广州", "回长沙了": nothing but a known city after 在
  // (or 回, 回到) is where the user lives
  if ((sub.who == Who::kUser && sub.key.empty()) || sub.who == Who::kNobody) {
    SV rest = s.substr(std::min(sub.end, s.size()));
    for (SV lead : {"现在", "目前", "已经", "人"}) {
      if (rest.starts_with(lead)) rest.remove_prefix(lead.size());
    }
    SV lead;
    for (SV verb : {"在", "回到", "搬回", "回"}) {
      if (rest.starts_with(verb)) {
        lead = verb;
        break;
      }
    }
    if (!lead.empty()) {
      rest.remove_prefix(lead.size());
      for (SV particle : {"呢", "啊", "哈", "了", "呀"}) {
        if (rest.ends_with(particle)) rest.remove_suffix(particle.size());
      }
      if (IsKnownCity(rest, true)) return {Make(Kind::kLocation, Str(rest), "", 0.75)};
    }
  }
  return {};
}

std::string ChineseSubjectKey(std::string_view clause) {
  const Subject s = FindSubject(clause);
  if (AboutUser(s)) return "user";
  if (s.who == Who::kPerson) return s.key;
  return "";
}

SubjectInfo ChineseSubject(std::string_view clause) {
  const Subject s = FindSubject(clause);
  SubjectInfo info;
  info.key = AboutUser(s) ? "user" : s.who == Who::kPerson ? s.key : "";
  if (s.who == Who::kPerson || s.who == Who::kUser || s.who == Who::kUserThing) {
    info.text = s.who == Who::kUser && !s.key.empty() ? "我" : Str(clause.substr(0, s.end));
  }
  info.fronted = s.who == Who::kUser ? s.key : "";
  info.implicit = s.who == Who::kNobody;
  return info;
}

std::string ChineseSubjectText(std::string_view clause) {
  const Subject s = FindSubject(clause);
  if (s.who == Who::kPerson || s.who == Who::kUser || s.who == Who::kUserThing) {
    if (s.who == Who::kUser && !s.key.empty()) return "我";  // a fronted object: the user speaks
    return Str(clause.substr(0, s.end));
  }
  return "";
}

std::string ChineseFrontedObject(std::string_view clause) {
  const Subject s = FindSubject(clause);
  return s.who == Who::kUser ? s.key : "";
}

bool ChineseImplicitSubject(std::string_view clause) {
  return FindSubject(clause).who == Who::kNobody;
}

}  // namespace engram::extract
