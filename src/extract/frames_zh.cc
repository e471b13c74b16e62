// Chinese topic frames (frames.h). Chinese has no spaces: a clause is read from its subject —
// 我/我们 (the user), 我 + a relation ("我女儿", "我闺蜜小林": someone the user knows), a
// relation alone ("奶奶上个月走了"), a short name before a verb of ending ("旺财去世了"), or
// nothing ("跳槽了，现在在美团": the user) — and each frame looks for its trigger words.
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <bitset>
#include <string>

#include "extract/frames.h"
#include "extract/lexicon.h"

namespace engram::extract {
namespace {

using SV = std::string_view;

bool Has(SV s, SV w) { return s.find(w) != SV::npos; }

size_t CpLen(SV s, size_t i) {
  auto b = static_cast<unsigned char>(s[i]);
  return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

size_t Chars(SV s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); i += CpLen(s, i)) ++n;
  return n;
}

std::string Str(SV s) { return std::string(s); }

// Trailing particles and fillers off a value: "八万吧" → "八万", "阿杰啦" → "阿杰".
std::string TrimValue(SV v) {
  for (bool moved = true; moved && !v.empty();) {
    moved = false;
    for (SV p : {"了", "的", "啊", "呀", "哦", "呢", "吧", "啦", "哈", "嘛", "左右", "以内",
                 "以下", "以上", "上下", "而已", "～", "~", "。", "，", " ", "！", "!"}) {
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

enum class Who { kUser, kUserThing, kPerson, kNobody, kOther };

struct Subject {
  Who who = Who::kOther;
  size_t end = 0;     // bytes of the subject
  std::string key;    // person: name or relation key; user thing: the noun
  std::string relation;
  std::string name;
};

// Relation words, longest first where one starts another ("妈妈" before "妈").
const std::vector<SV>& RelationWords() {
  static const std::vector<SV> k = {
      "老公", "丈夫", "先生", "老婆", "妻子", "太太", "媳妇", "爱人", "男朋友", "男友", "女朋友",
      "女友", "对象", "未婚夫", "未婚妻", "儿子", "女儿", "闺女", "孩子", "宝宝", "妈妈", "老妈",
      "母亲", "妈", "爸爸", "老爸", "父亲", "爸妈", "父母", "爸", "哥哥", "哥", "弟弟", "弟",
      "姐姐", "姐", "妹妹", "妹", "奶奶", "外婆", "姥姥", "爷爷", "外公", "姥爷", "婆婆", "公公",
      "岳母", "丈母娘", "岳父", "闺蜜", "同事", "领导", "老板", "室友", "朋友", "表姐", "表哥",
      "表妹", "表弟", "舅舅", "叔叔", "阿姨", "姑姑", "小姨", "侄子", "侄女", "外甥女", "外甥",
      "邻居", "同学"};
  return k;
}

SV RelationAt(SV s, size_t i) {
  SV best;
  for (SV r : RelationWords()) {
    if (r.size() > best.size() && s.substr(i, r.size()) == r) best = r;
  }
  return best;
}

bool IsDigitOrNumeral(SV ch);

// A name after a relation ("我闺蜜小林", "我同事老王"): up to three characters before a verb.
std::string NameAfter(SV s, size_t i) {
  static const std::vector<SV> kStops = {
      "是", "在", "有", "对", "叫", "今年", "上", "去", "住", "说", "跟", "和", "也", "都", "就",
      "已经", "刚", "现在", "最近", "每", "特别", "很", "经常", "一直", "平时", "考", "退休",
      "做", "当", "读", "喜欢", "的", "会", "要", "还", "才", "转", "下", "这", "那", "们"};
  size_t j = i;
  size_t n = 0;
  while (j < s.size() && n < 3) {
    bool stop = false;
    for (SV w : kStops) stop = stop || s.substr(j, w.size()) == w;
    if (stop) break;
    j += CpLen(s, j);
    ++n;
  }
  if (n == 0 || n == 1) return "";
  const SV name = s.substr(i, j - i);
  for (size_t k = 0; k < name.size(); k += CpLen(name, k)) {
    if (IsDigitOrNumeral(name.substr(k, CpLen(name, k)))) return "";  // "七岁" is an age
  }
  if (name.starts_with("小") || name.starts_with("老") || name.starts_with("阿") || n == 2) {
    return Str(name);
  }
  return "";
}

bool StartsWithVerb(SV s) {
  static const std::vector<SV> kVerbs = {
      "搬", "住", "跳槽", "换", "转岗", "转学", "升职", "入职", "辞职", "离职", "开始", "戒", "养",
      "领养", "学", "考", "吃", "喝", "在", "去", "要", "准备", "打算", "想", "刚", "已经",
      "现在", "最近", "一直", "还在", "又", "正在", "终于", "新买", "买了", "卖了", "改", "不",
      "没", "涨", "降", "加", "调", "转正", "毕业", "退休", "结婚", "订婚", "离婚", "怀孕",
      "报了", "报名", "决定", "答应", "承诺", "保证", "计划", "预约", "约了", "每天", "每周",
      "平时", "天天", "经常", "从", "跟", "和", "把", "被", "给", "用", "开", "做", "当", "上",
      "拿到", "通过", "考过", "考上", "得了", "确诊", "查出", "感冒", "发烧", "腰", "膝盖"};
  for (SV v : kVerbs) {
    if (s.starts_with(v)) return true;
  }
  return false;
}

Subject FindSubject(SV s) {
  Subject sub;
  size_t i = 0;
  if (s.starts_with("我们") || s.starts_with("咱们")) i = 6;
  else if (s.starts_with("我") || s.starts_with("咱")) i = 3;
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
    for (size_t i = 0; i < prefix.size(); i += CpLen(prefix, i)) {
      if (static_cast<unsigned char>(prefix[i]) < 0x80) return false;
    }
    for (SV verb : {"愿", "望", "让", "要", "想", "说", "诉", "得", "觉", "认", "为", "给", "对", "向",
                    "被", "请", "帮", "叫", "问"}) {
      if (prefix.find(verb) != SV::npos) return false;
    }
    return true;
  };
  if (size_t me = s.find("我"); me != SV::npos && me > 0 && me <= 12 && plain_object(s.substr(0, me)) &&
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
  for (SV t : {"大后天", "大前天", "下个月", "上个月", "这个月", "下周", "上周", "这周", "明年", "去年", "今年", "明天",
               "昨天", "今天", "后天", "前天", "周末", "五一", "十一", "国庆", "春节", "暑假",
               "寒假", "年底", "月底"}) {
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

Statement Make(Kind kind, std::string value, std::string key, double confidence = 0.85) {
  Statement s;
  s.kind = kind;
  s.value = std::move(value);
  s.key = std::move(key);
  s.confidence = confidence;
  if (!s.value.empty()) s.entities.push_back(s.value);
  return s;
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
         (ch.size() == 3 && kNumerals.find(ch) != SV::npos) || ch == "." || ch == ",";
}

}  // namespace

std::string FindAmountZh(std::string_view s) {
  // A run of numerals, with 万/千/百/块/元/k after it: "五万", "8万", "一万八", "三千五".
  for (size_t i = 0; i < s.size(); i += CpLen(s, i)) {
    size_t j = i;
    size_t chars = 0;
    bool big = false;  // holds 万, 千 or 百, or is written in digits
    bool digit = false;
    while (j < s.size()) {
      SV ch = s.substr(j, CpLen(s, j));
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
    i = j - CpLen(s, j - 1);
  }
  return "";
}

namespace {

// ---- things that stop holding ----

std::vector<Statement> Ended(SV s, const Subject& sub, MessageState* state) {
  // "旺财上个月去世了", "奶奶上个月走了", "小绿飞走了", "Kindle坏了", "我儿子的猫丢了"
  static const std::vector<SV> kGone = {"去世", "过世", "走了", "死了", "没了", "飞走", "跑丢",
                                        "丢了", "跑了", "坏了", "病逝", "离世", "不在了", "送人",
                                        "卖了", "扔了", "淘汰"};
  // The earliest word of ending ("小绿飞走了": 飞走, not 走了).
  std::vector<std::pair<size_t, SV>> found;
  for (SV g : kGone) {
    size_t k = s.find(g);
    if (k != SV::npos && k > 0) found.push_back({k, g});
  }
  std::sort(found.begin(), found.end());
  for (const auto& [k, g] : found) {
    std::string who;
    if (sub.who == Who::kPerson) {
      who = sub.name.empty() ? Str(s.substr(sub.end >= 3 && s.starts_with("我") ? 3 : 0,
                                            sub.end - (s.starts_with("我") ? 3 : 0)))
                             : sub.name;
    } else {
      SV lead = s.substr(0, k);
      if (lead.starts_with("我的")) lead.remove_prefix(6);
      else if (lead.starts_with("我家")) lead.remove_prefix(6);
      for (SV adv : {"已经", "上个月", "昨天", "今天", "前天", "突然", "终于", "也"}) {
        if (lead.ends_with(adv)) lead.remove_suffix(adv.size());
      }
      if (lead.empty() || Chars(lead) > 8 || Has(lead, "我") || Has(lead, "你")) continue;
      who = Str(lead);
    }
    if (who.empty()) continue;
    // "走了" also means "left": only of a person or an animal, at the end of the clause
    if (g == "走了" && sub.who != Who::kPerson && k + g.size() < s.size()) continue;
    Statement st = Make(Kind::kEnded, who, "", 0.85);
    st.ends = {who};
    const bool device = !DeviceKind(who).empty() || g == "坏了";
    st.importance = device ? 0.5 : 0.85;
    if (sub.who == Who::kPerson) {
      st.slot = sub.key + "/status";
      st.exclusive = true;
    }
    return {st};
  }
  // "云南不去了": a plan given up, said object first
  if (size_t k = s.find("不去了"); k != SV::npos && k > 0 && !Has(s.substr(0, k), "我")) {
    Statement st = Make(Kind::kEnded, Str(s.substr(0, k)), "", 0.85);
    st.ends = {Str(s.substr(0, k))};
    return {st};
  }
  // "膝盖已经好了", "胆固醇已经降到正常了": a condition that passed
  for (SV well : {"已经好了", "好了", "痊愈", "康复", "恢复正常", "降到正常", "正常了", "恢复了"}) {
    size_t k = s.find(well);
    if (k == SV::npos || k == 0) continue;
    SV lead = s.substr(0, k);
    if (lead.starts_with("我的")) lead.remove_prefix(6);
    else if (lead.starts_with("我")) lead.remove_prefix(3);
    for (SV adv : {"已经", "也", "都", "基本"}) {
      if (lead.ends_with(adv)) lead.remove_suffix(adv.size());
    }
    static const std::vector<SV> kBody = {"膝盖", "腰", "手腕", "脚踝", "肩膀", "颈椎", "胃", "牙",
                                          "嗓子", "感冒", "发烧", "伤", "腿", "手", "脚", "背", "眼睛",
                                          "咳嗽", "过敏"};
    const bool body = IsHealthWord(lead) || std::any_of(kBody.begin(), kBody.end(), [&](SV b) { return lead.find(b) != SV::npos; });
    if (lead.empty() || !body || Chars(lead) > 6) continue;
    Statement st = Make(Kind::kEnded, Str(lead), "", 0.85);
    st.ends = {Str(lead)};
    st.importance = 0.8;
    st.type = MemoryType::kFact;
    return {st};
  }
  if (!AboutUser(sub)) return {};
  const SV pred = s.substr(sub.end);
  // "和小雨分手了", "跟阿杰分手了"
  if (size_t k = s.find("分手"); k != SV::npos) {
    std::string who;
    for (SV w : {"和", "跟", "与"}) {
      size_t b = s.find(w);
      if (b != SV::npos && b < k) who = TrimValue(s.substr(b + w.size(), k - b - w.size()));
    }
    Statement st = Make(Kind::kPartner, who.empty() ? "分手" : who, "", 0.85);
    st.type = MemoryType::kEvent;
    if (!who.empty()) st.ends = {who};
    return {st};
  }
  // "戒咖啡了", "戒了烟", "把降压药停了", "韩语我放弃了", "放弃了X", "离开招行了", "不考公了"
  auto ended = [&](std::string what, SV slot_family) {
    what = TrimValue(what);
    if (what.empty() || Chars(what) > 10) return std::vector<Statement>{};
    Statement st = Make(Kind::kEnded, what, "", 0.85);
    st.ends = {what};
    if (!slot_family.empty()) {
      st.slot = "user/" + Str(slot_family) + ":" + what;
      st.exclusive = true;
    }
    return std::vector<Statement>{st};
  };
  if (size_t k = s.find("戒"); k != SV::npos && s.substr(k, 6) != "戒指") {
    size_t b = k + 3;
    for (SV p : {"掉", "了"}) {
      if (s.substr(b, p.size()) == p) b += p.size();
    }
    size_t e = ValueEnd(s, b);
    std::string what = Str(s.substr(b, e - b));
    if (what == "烟" || what.empty()) what = "烟";
    return ended(what, "habit");
  }
  if (size_t k = s.find("停了"); k != SV::npos) {
    size_t b = s.find("把");
    if (b != SV::npos && b < k) return ended(Str(s.substr(b + 3, k - b - 3)), "medication");
  }
  if (size_t k = s.find("放弃"); k != SV::npos) {
    if (k > 0) {
      SV before = s.substr(0, k);
      if (before.ends_with("我")) before.remove_suffix(3);
      if (!before.empty() && !Has(before, "我")) {
        std::string what = Str(before);
        SV lang = LanguageKey(what);
        return ended(what, lang.empty() ? "" : "language");
      }
    }
    size_t b = k + 6;
    if (s.substr(b, 3) == "了") b += 3;
    std::string what = Str(s.substr(b, ValueEnd(s, b) - b));
    return ended(what, LanguageKey(what).empty() ? "" : "language");
  }
  if (size_t k = s.find("离开"); k != SV::npos) {
    size_t b = k + 6;
    if (s.substr(b, 3) == "了") b += 3;
    state->topic = "employer";
    return ended(Str(s.substr(b, ValueEnd(s, b) - b)), "");
  }
  if (pred.starts_with("不") && pred.ends_with("了") && Chars(pred) <= 8 && Chars(pred) >= 3) {
    SV what = pred.substr(3, pred.size() - 6);  // "不考公了"
    if (what.starts_with("再")) what.remove_prefix(3);
    // "不再喜欢咖啡了": a like that turned, read by the likes
    if (!what.starts_with("喜欢") && !what.starts_with("爱") && !what.empty()) return ended(Str(what), "");
  }
  for (SV w : {"辞职", "离职", "跳槽", "换工作", "转岗", "新工作", "换了工作", "找到工作", "入职"}) {
    if (Has(s, w)) state->topic = "employer";
  }
  return {};
}

// ---- pets none; likes regained ----

std::vector<Statement> NoPets(SV s, const Subject& sub) {
  if (!AboutUser(sub)) return {};
  for (SV w : {"没养宠物", "没有养宠物", "没有宠物", "不养宠物", "没养过宠物"}) {
    if (!Has(s, w)) continue;
    Statement st = Make(Kind::kPet, "", "", 0.85);
    st.slot = "user/pet";
    st.exclusive = false;
    return {st};
  }
  return {};
}

// "现在能吃辣了": a like (again)
std::vector<Statement> CanHave(SV s, const Subject& sub) {
  if (!AboutUser(sub)) return {};
  for (SV w : {"能吃", "能喝", "可以吃", "可以喝", "开始吃", "开始喝", "爱上了"}) {
    size_t k = s.find(w);
    if (k == SV::npos || Has(s.substr(0, k), "不")) continue;
    size_t b = k + w.size();
    std::string what = TrimValue(s.substr(b, ValueEnd(s, b) - b));
    if (what.empty() || Chars(what) > 6) continue;
    Statement st = Make(Kind::kLike, what, SlotKey(what), 0.8);
    return {st};
  }
  return {};
}

// ---- diet ----

std::vector<Statement> Diet(SV s, const Subject& sub) {
  if (!AboutUser(sub)) return {};
  static const std::vector<std::pair<SV, SV>> kDiets = {
      {"素食主义", "素食"}, {"素食", "素食"}, {"吃素", "素食"}, {"全素", "纯素"}, {"纯素", "纯素"},
      {"生酮", "生酮"}, {"轻断食", "轻断食"}, {"开始吃肉", "吃肉"}, {"恢复吃肉", "吃肉"},
      {"清真", "清真"}};
  for (const auto& [w, value] : kDiets) {
    if (!Has(s, w)) continue;
    if ((Has(s, "不吃素") || Has(s, "不再吃素")) && value == "素食") {
      Statement st = Make(Kind::kDiet, "吃肉", "", 0.85);
      return {st};
    }
    Statement st = Make(Kind::kDiet, Str(value), "", 0.85);
    if (value == "吃肉") st.ends = {"吃素", "素食"};
    return {st};
  }
  return {};
}

// ---- children ----

std::vector<Statement> Children(SV s, const Subject& sub) {
  if (!AboutUser(sub)) return {};
  for (SV kids : {"个孩子", "个小孩", "个娃"}) {
    size_t k = s.find(kids);
    if (k == SV::npos || k == 0) continue;
    size_t b = k;
    while (b > 0) {
      size_t p = b - 1;
      while (p > 0 && (static_cast<unsigned char>(s[p]) & 0xC0) == 0x80) --p;
      if (!IsDigitOrNumeral(s.substr(p, b - p))) break;
      b = p;
    }
    if (b == k) continue;
    return {Make(Kind::kChildren, Str(s.substr(b, k - b)) + Str(kids), "", 0.85)};
  }
  return {};
}

// ---- budgets and amounts ----

std::vector<Statement> Budget(SV s, const Subject& sub, const ClauseView& c, MessageState* state) {
  if (s.find("预算") == SV::npos && c.topic == "budget" && !FindAmountZh(s).empty() &&
      sub.who != Who::kPerson) {
    Statement st = Make(Kind::kBudget, FindAmountZh(s), "");
    st.elliptical = true;
    return {st};
  }
  size_t k = s.find("预算");
  if (k == SV::npos || sub.who == Who::kPerson) return {};
  const std::string amount = FindAmountZh(s);
  if (amount.empty()) {
    state->topic = "budget";  // "预算可以再提高一点，最多八万": the amount comes next
    return {};
  }
  // The topic: what comes before 预算 ("装修预算", "婚礼预算"), minus the subject and time.
  SV topic = s.substr(0, k);
  for (SV lead : {"我们的", "我们", "我的", "我", "这次", "这回", "今年", "的"}) {
    if (topic.starts_with(lead)) topic.remove_prefix(lead.size());
  }
  while (topic.ends_with("的")) topic.remove_suffix(3);
  if (Chars(topic) > 6 || Has(topic, "，") || Has(topic, "买")) topic = {};
  std::string key = TrimValue(topic);
  Statement st = Make(Kind::kBudget, amount, key);
  st.elliptical = key.empty();
  // "我想买台笔记本电脑，预算六千左右": the topic is in the clause before (the caller's topic)
  return {st};
}

std::vector<Statement> Amount(SV s, const Subject& sub, const ClauseView& c,
                              MessageState* state) {
  static const std::vector<SV> kWords = {"房租", "月租", "租金", "工资", "月薪", "年薪", "薪水",
                                         "收入", "生活费", "体重", "房贷", "存款", "学费", "涨薪",
                                         "涨租"};
  std::string topic;
  for (SV w : kWords) {
    if (Has(s, w)) {
      topic = w == "涨薪" ? "salary" : w == "涨租" ? "rent" : Str(AmountTopic(w));
      break;
    }
  }
  const std::string amount = FindAmountZh(s);
  if (topic.empty()) {
    if (!amount.empty() && !c.topic.empty() && !AmountTopic(c.topic).empty()) {
      topic = Str(AmountTopic(c.topic));
    } else if (!amount.empty() && (c.topic == "salary" || c.topic == "rent")) {
      topic = c.topic;
    }
  }
  if (topic.empty()) return {};
  state->topic = topic;
  if (amount.empty()) return {};
  Statement st = Make(Kind::kAmount, amount, topic);
  // "给我妈的生活费": the allowance of a person is the user's payment, keyed by the person
  if (topic == "allowance") {
    for (SV r : RelationWords()) {
      if (Has(s, r)) {
        st.key = "allowance:" + Str(r);
        break;
      }
    }
  }
  return {st};
}

// ---- medication ----

std::vector<Statement> Medication(SV s, const Subject& sub) {
  // "在吃降压药", "每天吃铁剂", "睡前吃褪黑素"
  static const std::vector<SV> kMeds = {"降压药", "降糖药", "胰岛素", "褪黑素", "铁剂", "抗抑郁药",
                                        "安眠药", "消炎药", "激素", "避孕药", "阿司匹林", "二甲双胍",
                                        "优甲乐", "钙片", "维生素"};
  for (SV m : kMeds) {
    if (!Has(s, m)) continue;
    Statement st = Make(Kind::kMedication, Str(m), Str(m));
    if (sub.who == Who::kPerson) ForPerson(sub, &st, "medication:" + Str(m));
    return {st};
  }
  return {};
}

// ---- contact details and other "我的X是Y" ----

std::vector<Statement> Contact(SV s, const Subject& sub) {
  static const std::vector<std::pair<SV, SV>> kLabels = {
      {"手机号码", "phone"}, {"手机号", "phone"}, {"电话号码", "phone"}, {"电话", "phone"},
      {"邮箱", "email"}, {"电子邮件", "email"}, {"身份证号码", "id_card"}, {"身份证号", "id_card"},
      {"家庭住址", "address"}, {"住址", "address"}, {"家地址", "address"}, {"地址", "address"},
      {"微信号", "wechat"}, {"微信", "wechat"}, {"车牌号", "license_plate"},
      {"车牌", "license_plate"}, {"护照号码", "passport"}, {"护照号", "passport"},
      {"血型", "blood_type"}, {"生日", "birthday"}, {"QQ号", "qq"}, {"工号", "employee_id"},
      {"学号", "student_id"}};
  if (!AboutUser(sub)) return {};
  for (const auto& [label, key] : kLabels) {
    size_t k = s.find(label);
    if (k == SV::npos || k > 12) continue;
    size_t b = k + label.size();
    for (SV link : {"码", "是", "为", "："}) {
      if (s.substr(b, link.size()) == link) b += link.size();
    }
    if (s.substr(b, 1) == " ") ++b;
    size_t e = ValueEnd(s, b);
    std::string value = TrimValue(s.substr(b, e - b));
    if (value.empty()) continue;
    Statement st = Make(key == "birthday" ? Kind::kBirthday : Kind::kContact, value, Str(key), 0.9);
    st.slot = "user/" + Str(key);
    st.recurring = key == "birthday";
    return {st};
  }
  // "我是A型血", "我三月十二号过生日"
  if (size_t k = s.find("型血"); k != SV::npos && k >= 1) {
    size_t b = k;
    while (b > 0 && (static_cast<unsigned char>(s[b - 1]) < 0x80)) --b;
    if (b < k) {
      Statement st = Make(Kind::kContact, Str(s.substr(b, k - b)) + "型", "blood_type", 0.9);
      st.slot = "user/blood_type";
      return {st};
    }
  }
  if (size_t k = s.find("过生日"); k != SV::npos && k > 3) {
    std::string when = TrimValue(s.substr(sub.end, k - sub.end));
    if (!when.empty()) {
      Statement st = Make(Kind::kBirthday, when, "", 0.9);
      st.recurring = true;
      return {st};
    }
  }
  return {};
}

// ---- partner ----

// A noun naming a role or an occupation by its suffix ("护士", "老师", "程序员", "学生").
bool IsRoleNoun(SV v) {
  for (SV suffix : {"士", "师", "员", "生", "家", "工", "医", "者", "手", "长", "官", "警", "人",
                    "主", "司机", "老板", "会计", "律师", "销售"}) {
    if (v.ends_with(suffix)) return true;
  }
  return false;
}

std::vector<Statement> Partner(SV s, const Subject& sub) {
  // "我老公叫张伟", "我先生的名字是张伟", "我男朋友叫阿杰", "我有个女朋友叫小雨"
  auto name_after = [&](size_t from) -> std::string {
    for (SV lead : {"的名字叫", "的名字是", "名字叫", "名字是", "叫做", "叫", "是"}) {
      size_t k = s.find(lead, from);
      if (k == SV::npos || k > from + 6) continue;
      size_t b = k + lead.size();
      std::string v = TrimValue(s.substr(b, ValueEnd(s, b) - b));
      // "我老婆是护士": after 是, an occupation is no name
      if (lead == "是" && IsRoleNoun(v)) continue;
      if (!v.empty() && Chars(v) <= 4) return v;
    }
    return "";
  };
  if (sub.who == Who::kPerson && IsPartnerRelation(sub.relation)) {
    std::string name = sub.name.empty() ? name_after(sub.end) : sub.name;
    if (name.empty()) return {};
    return {Make(Kind::kPartner, name, "", 0.85)};
  }
  if (AboutUser(sub)) {
    for (SV rel : {"男朋友", "女朋友", "男友", "女友", "对象", "老公", "老婆"}) {
      size_t k = s.find(rel);
      if (k == SV::npos || k > 12 || !(Has(s.substr(0, k), "有") || Has(s.substr(0, k), "个"))) continue;
      std::string name = name_after(k + rel.size());
      if (!name.empty()) return {Make(Kind::kPartner, name, "", 0.85)};
    }
    // "我和阿杰上周领证了", "他现在是我老公啦"
    for (SV w : {"领证", "结婚了", "订婚", "在一起了", "求婚"}) {
      if (!Has(s, w)) continue;
      std::string who;
      for (SV and_word : {"和", "跟", "与"}) {
        size_t b = s.find(and_word);
        size_t e = s.find(w);
        if (b != SV::npos && b < e) who = TrimValue(s.substr(b + 3, e - b - 3));
      }
      for (SV t : {"上周", "昨天", "今天", "上个月", "前天", "去年", "刚刚", "刚", "已经"}) {
        if (who.ends_with(t)) who.resize(who.size() - t.size());
      }
      Statement st = Make(Kind::kPartner, who.empty() ? Str(w) : who, "", 0.85);
      st.type = MemoryType::kEvent;
      return {st};
    }
    if (Has(s, "单身")) return {Make(Kind::kPartner, "单身", "", 0.85)};
  }
  return {};
}

// ---- ages ----

std::vector<Statement> Age(SV s, const Subject& sub) {
  size_t k = s.find("岁");
  if (k == SV::npos || k == 0) return {};
  size_t b = k;
  while (b > 0) {
    size_t p = b - 1;
    while (p > 0 && (static_cast<unsigned char>(s[p]) & 0xC0) == 0x80) --p;
    if (!IsDigitOrNumeral(s.substr(p, b - p))) break;
    b = p;
  }
  if (b == k) return {};
  SV before = s.substr(sub.end, b - sub.end);
  if (Chars(before) > 4) return {};
  Statement st = Make(Kind::kAge, Str(s.substr(b, k + 3 - b)), "", 0.85);
  if (sub.who == Who::kPerson) ForPerson(sub, &st, "age");
  else if (!AboutUser(sub)) return {};
  return {st};
}

// ---- schools ----

bool IsSchoolName(SV v) {
  for (SV end : {"大学", "学院", "小学", "中学", "高中", "初中", "幼儿园", "学校", "大"}) {
    if (v.ends_with(end) && Chars(v) >= 2) return true;
  }
  static const std::vector<SV> kKnown = {"清华", "北大", "复旦", "浙大", "交大", "人大", "南大",
                                         "武大", "中山", "同济", "哈工大", "中科大", "北航"};
  return std::find(kKnown.begin(), kKnown.end(), v) != kKnown.end();
}

std::vector<Statement> School(SV s, const Subject& sub, const MessageState& state) {
  static const std::vector<SV> kStudy = {"读书", "上学", "读研", "读博", "念书", "读大学", "读高中",
                                         "上大学", "读本科", "读硕士", "读博士", "读的", "上幼儿园",
                                         "读初中", "读小学", "留学", "进修", "就读"};
  for (SV verb : kStudy) {
    size_t k = s.find(verb);
    if (k == SV::npos) continue;
    size_t at = s.rfind("在", k);
    if (at == SV::npos) continue;
    std::string school = TrimValue(s.substr(at + 3, k - at - 3));
    if (school.empty() || Chars(school) > 10) continue;
    Statement st = Make(Kind::kSchool, school, "", 0.85);
    if (sub.who == Who::kPerson) ForPerson(sub, &st, "school");
    return {st};
  }
  // "考上清华了", "现在在育才小学", "现在在复旦读博" (handled above)
  for (SV lead : {"考上了", "考上", "考进", "转到", "现在在", "在"}) {
    size_t k = s.find(lead);
    if (k == SV::npos) continue;
    size_t b = k + lead.size();
    std::string v = TrimValue(s.substr(b, ValueEnd(s, b) - b));
    if (v.empty() || !IsSchoolName(v)) continue;
    if (lead == "在" && state.topic != "school" && !Has(s, "读") && !Has(s, "上")) continue;
    Statement st = Make(Kind::kSchool, v, "", 0.85);
    if (sub.who == Who::kPerson) ForPerson(sub, &st, "school");
    return {st};
  }
  // "在读三年级", "上幼儿园大班"
  for (SV grade : {"年级", "大班", "中班", "小班"}) {
    size_t k = s.find(grade);
    if (k == SV::npos) continue;
    size_t b = s.rfind("读", k);
    if (b == SV::npos) b = s.rfind("上", k);
    if (b == SV::npos) continue;
    Statement st = Make(Kind::kSchool, TrimValue(s.substr(b + 3, k + grade.size() - b - 3)), "", 0.8);
    if (sub.who == Who::kPerson) ForPerson(sub, &st, "grade");
    else st.slot = "user/grade";
    return {st};
  }
  return {};
}

// ---- languages ----

std::vector<Statement> Language(SV s, const Subject& sub) {
  if (!AboutUser(sub)) return {};
  std::vector<Statement> out;
  for (size_t i = 0; i < s.size(); i += CpLen(s, i)) {
    for (size_t n : {12u, 9u, 6u}) {  // 西班牙语, 意大利语 … 日语
      if (i + n > s.size()) continue;
      SV w = s.substr(i, n);
      SV key = LanguageKey(w);
      if (key.empty()) continue;
      if (!(Has(s, "学") || Has(s, "说") || Has(s, "会") || Has(s, "水平") || Has(s, "考") ||
            Has(s, "放弃") || Has(s, "练") || Has(s, "课"))) {
        return {};
      }
      out.push_back(Make(Kind::kLanguage, Str(w), Str(key), 0.85));
      i += n - CpLen(s, i);
      break;
    }
  }
  return out;
}

// ---- devices ----

std::vector<Statement> Device(SV s, const Subject& sub) {
  if (!AboutUser(sub)) return {};
  // a brand or model: a Latin word (or two) of the lexicon, or a Chinese brand name
  std::string kind;
  size_t at = SV::npos, len = 0;
  std::string lower(s);
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (size_t i = 0; i < lower.size() && kind.empty();) {
    if (!std::isalpha(static_cast<unsigned char>(lower[i]))) {
      i += CpLen(lower, i);
      continue;
    }
    size_t e = i;
    while (e < lower.size() && std::isalpha(static_cast<unsigned char>(lower[e]))) ++e;
    size_t e2 = e;  // "apple watch": the word after it too
    if (e2 < lower.size() && lower[e2] == ' ') {
      ++e2;
      while (e2 < lower.size() && std::isalpha(static_cast<unsigned char>(lower[e2]))) ++e2;
    }
    for (size_t end : {e2, e}) {
      SV k = DeviceKind(SV(lower).substr(i, end - i));
      if (!k.empty()) {
        kind = Str(k);
        at = i;
        len = end - i;
        break;
      }
    }
    i = e;
  }
  if (kind.empty()) {
    static const std::vector<SV> kBrands = {
        "小米", "华为", "荣耀", "三星", "安卓", "苹果手机", "戴尔", "联想", "惠普", "华硕", "宏碁",
        "文石", "掌阅", "比亚迪", "特斯拉", "丰田", "本田", "大众", "宝马", "奔驰", "奥迪", "凯美瑞",
        "雅阁", "捷达", "理想", "蔚来", "小鹏", "问界"};
    for (SV b : kBrands) {
      size_t k = s.find(b);
      if (k == SV::npos || (at != SV::npos && k >= at)) continue;
      kind = Str(DeviceKind(b));
      at = k;
      len = b.size();
    }
  }
  // a generic noun decides between kinds ("华为" is a phone unless "平板", "电脑" is said)
  for (SV noun : {"平板", "电脑", "笔记本", "手机", "阅读器", "车", "手表"}) {
    if (Has(s, noun) && !kind.empty()) {
      SV nk = DeviceNounKind(noun);
      if (!nk.empty() && nk != kind && (kind == "phone" || kind == "laptop")) kind = Str(nk);
      break;
    }
  }
  if (kind.empty()) return {};
  // the model: the brand and what follows while Latin letters, digits or model words
  size_t e = at + len;
  while (e < s.size()) {
    unsigned char ch = static_cast<unsigned char>(s[e]);
    if (ch < 0x80 && (std::isalnum(ch) || ch == ' ')) {
      ++e;
      continue;
    }
    bool model_word = false;
    for (SV w : {"汉", "唐", "宋", "秦", "的"}) {
      if (s.substr(e, w.size()) == w && w != "的" && e == at + len) {
        e += w.size();
        model_word = true;
      }
    }
    if (!model_word) break;
  }
  std::string value = TrimValue(s.substr(at, e - at));
  // "丰田凯美瑞": a make before the model
  if (at >= 6) {
    SV before = s.substr(at - 6, 6);
    if (!DeviceKind(before).empty()) value = Str(before) + value;
  }
  return {Make(Kind::kDevice, value, kind, 0.8)};
}

// ---- schedules ----

std::vector<Statement> Schedule(SV s, const Subject& sub, MessageState* state) {
  static const std::vector<SV> kWhen = {"每周", "每个周", "每星期", "周一", "周二", "周三", "周四",
                                        "周五", "周六", "周日", "周末", "星期", "每天早上", "每天晚上",
                                        "每天", "点上班", "点下班", "点半上班"};
  size_t when = SV::npos;
  for (SV w : kWhen) {
    size_t k = s.find(w);
    if (k != SV::npos && k < when) when = k;
  }
  if (when == SV::npos) return {};
  if (!(Has(s, "改到") || Has(s, "换到") || Has(s, "调到") || Has(s, "每") || Has(s, "是") ||
        Has(s, "上班") || Has(s, "固定"))) {
    return {};
  }
  // the activity: a known one, else the words around the time
  static const std::vector<std::pair<SV, SV>> kActivities = {
      {"健身", "健身"}, {"钢琴", "钢琴"}, {"瑜伽", "瑜伽"}, {"游泳", "游泳"}, {"羽毛球", "羽毛球"},
      {"篮球", "篮球"}, {"足球", "足球"}, {"跑步", "跑步"}, {"上班", "上班"}, {"加班", "上班"},
      {"值班", "值班"}, {"补习", "补习"}, {"舞蹈", "舞蹈"}, {"画画", "画画"}, {"英语课", "英语"},
      {"网球", "网球"}, {"爬山", "爬山"}, {"书法", "书法"}, {"围棋", "围棋"}, {"家教", "家教"}};
  std::string activity;
  for (const auto& [w, key] : kActivities) {
    if (Has(s, w)) {
      activity = Str(key);
      break;
    }
  }
  if (activity.empty() && s.find("课") != SV::npos) {
    size_t k = s.find("课");
    size_t b = k >= 6 ? k - 6 : 0;
    activity = ActivityKey(s.substr(b, k - b + 3));
  }
  if (activity.empty()) {
    if (state->topic.empty()) return {};
    activity = state->topic;
  }
  if (activity == "上班" && Has(s, "每周") == false && !Has(s, "点")) return {};
  size_t when_end = when;
  while (when_end < s.size()) {
    static const SV kTimeChars = "每个周星期礼拜一二三四五六日天末早上晚中午下半点号月0123456789";
    const size_t n = CpLen(s, when_end);
    if (kTimeChars.find(s.substr(when_end, n)) == SV::npos) break;
    when_end += n;
  }
  Statement st = Make(Kind::kSchedule, Str(s.substr(when, when_end - when)), activity, 0.75);
  st.entities.clear();
  st.recurring = true;
  st.type = MemoryType::kFact;
  if (sub.who == Who::kPerson) ForPerson(sub, &st, "schedule:" + activity);
  return {st};
}

// ---- work the patterns do not read ----

bool LooksLikeJob(SV v) {
  static const std::vector<SV> kEnds = {"师", "员", "医生", "护士", "老师", "会计", "经理", "主管",
                                        "总监", "设计", "开发", "运营", "销售", "财务", "HR", "hr",
                                        "律师", "工程师", "产品", "分析", "编辑", "记者", "顾问",
                                        "助理", "合伙人", "前端", "后端", "测试", "客服", "主播"};
  if (v.empty() || Chars(v) > 10) return false;
  for (SV e : kEnds) {
    if (v.ends_with(e)) return true;
  }
  return false;
}

std::vector<Statement> Work(SV s, const Subject& sub, MessageState* state) {
  // "在一家教育科技公司做产品经理", "在外企做HR": employer and job
  if (size_t zai = s.find("在"); zai != SV::npos) {
    for (SV verb : {"做", "当", "任"}) {
      size_t k = s.find(verb, zai + 3);
      if (k == SV::npos || k == zai + 3) continue;
      std::string org = TrimValue(s.substr(zai + 3, k - zai - 3));
      size_t jb = k + verb.size();
      std::string job = TrimValue(s.substr(jb, ValueEnd(s, jb) - jb));
      if (org.empty() || Chars(org) > 12 || !LooksLikeJob(job)) continue;
      std::vector<Statement> out;
      Statement employer = Make(Kind::kEmployer, org, "", 0.8);
      Statement role = Make(Kind::kJob, job, "", 0.85);
      role.entities.clear();
      if (sub.who == Who::kPerson) {
        ForPerson(sub, &employer, "employer");
        ForPerson(sub, &role, "job");
        employer.content = "";
      } else if (!AboutUser(sub)) {
        return {};
      }
      role.content = "";
      out.push_back(std::move(role));
      out.push_back(std::move(employer));
      return out;
    }
  }
  // "现在在美团", "现在去了平安银行", "跳槽到字节" after a job change
  if (state->topic == "employer" || Has(s, "跳槽到") || Has(s, "入职") || Has(s, "现在的公司是")) {
    for (SV lead : {"跳槽到", "现在的公司是", "入职了", "入职", "去了", "现在在", "在"}) {
      size_t k = s.find(lead);
      if (k == SV::npos) continue;
      size_t b = k + lead.size();
      size_t e = ValueEnd(s, b);
      for (SV stop : {"上班", "工作", "做"}) {
        size_t at = s.find(stop, b);
        if (at != SV::npos && at < e) e = at;
      }
      std::string org = TrimValue(s.substr(b, e - b));
      if (org.empty() || Chars(org) > 10 || IsSchoolName(org)) continue;
      Statement st = Make(Kind::kEmployer, org, "", 0.8);
      if (!AboutUser(sub)) return {};
      return {st};
    }
  }
  // "转岗了，现在做数据分析", "现在是销售经理", "我的工作是财务"
  for (SV lead : {"我的工作是", "工作是", "现在做", "现在是", "改做", "转做", "在做", "是做"}) {
    size_t k = s.find(lead);
    if (k == SV::npos) continue;
    size_t b = k + lead.size();
    std::string job = TrimValue(s.substr(b, ValueEnd(s, b) - b));
    if (job.ends_with("的")) job.resize(job.size() - 3);
    if (!LooksLikeJob(job) && !(lead == "我的工作是" || lead == "工作是")) continue;
    if (job.empty()) continue;
    Statement st = Make(Kind::kJob, job, "", 0.85);
    st.entities.clear();
    if (sub.who == Who::kPerson) ForPerson(sub, &st, "job");
    else if (!AboutUser(sub)) return {};
    return {st};
  }
  return {};
}

// ---- what people the user knows do ----

// "我把爸妈接到深圳来跟我一起住了": where someone the user knows lives now.
std::vector<Statement> BroughtTo(SV s) {
  size_t ba = s.find("把");
  if (ba == SV::npos) return {};
  for (SV verb : {"接到", "搬到", "送到", "接来"}) {
    size_t k = s.find(verb, ba + 3);
    if (k == SV::npos) continue;
    SV who = s.substr(ba + 3, k - ba - 3);
    SV rel = RelationAt(who, 0);
    if (rel.empty()) continue;
    size_t b = k + verb.size();
    size_t e = ValueEnd(s, b);
    for (SV stop : {"来", "去", "跟", "和", "住", "一起"}) {
      size_t at = s.find(stop, b);
      if (at != SV::npos && at < e && at > b) e = at;
    }
    std::string place = TrimValue(s.substr(b, e - b));
    if (place.empty()) continue;
    Statement st = Make(Kind::kLocation, place, "", 0.85);
    st.subject = Str(rel);
    st.slot = Str(rel) + "/location";
    st.exclusive = true;
    return {st};
  }
  return {};
}

// "朵朵就是我女儿", "小林是我闺蜜": a name for someone the user knows.
std::vector<Statement> NameOfRelation(SV s) {
  for (SV is : {"就是我的", "就是我", "是我的", "是我"}) {
    size_t k = s.find(is);
    if (k == SV::npos || k == 0 || Chars(s.substr(0, k)) > 4) continue;
    SV rel = RelationAt(s, k + is.size());
    if (rel.empty()) continue;
    std::string name = Str(s.substr(0, k));
    bool bad = false;
    for (SV w : {"他", "她", "你", "我", "现在", "也", "都", "已经", "这", "那", "就"}) bad = bad || Has(name, w);
    if (bad) return {};
    Statement st = Make(Kind::kName, name, "", 0.85);
    st.subject = Str(rel);
    st.slot = Str(rel) + "/name";
    st.exclusive = true;
    return {st};
  }
  return {};
}

std::vector<Statement> PersonFacts(SV s, const Subject& sub) {
  if (sub.who != Who::kPerson) return {};
  SV rest = s.substr(sub.end);
  for (SV adv : {"现在", "目前", "一直", "也", "都", "今年", "已经", "还"}) {
    if (rest.starts_with(adv)) rest.remove_prefix(adv.size());
  }
  // 住在X / 在X定居 / 在X上班 / 是X / 有X / 对X过敏 / 叫X
  if (rest.starts_with("住在") || rest.starts_with("住") || rest.starts_with("搬到") ||
      rest.starts_with("搬去")) {
    size_t b = rest.starts_with("住在") || rest.starts_with("搬到") || rest.starts_with("搬去") ? 6 : 3;
    std::string place = TrimValue(rest.substr(b, ValueEnd(rest, b) - b));
    if (place.empty()) return {};
    Statement st = Make(Kind::kLocation, place, "", 0.8);
    ForPerson(sub, &st, "location");
    return {st};
  }
  if (rest.starts_with("在")) {
    size_t e = ValueEnd(rest, 3);
    SV inner = rest.substr(3, e - 3);
    for (SV verb : {"上班", "工作", "打工", "实习"}) {
      size_t k = inner.find(verb);
      if (k == SV::npos || k == 0) continue;
      Statement st = Make(Kind::kEmployer, TrimValue(inner.substr(0, k)), "", 0.8);
      ForPerson(sub, &st, "employer");
      return {st};
    }
    for (SV verb : {"定居", "生活", "住"}) {
      size_t k = inner.find(verb);
      if (k == SV::npos || k == 0) continue;
      Statement st = Make(Kind::kLocation, TrimValue(inner.substr(0, k)), "", 0.8);
      ForPerson(sub, &st, "location");
      return {st};
    }
  }
  if (size_t k = rest.find("定居"); k != SV::npos && k > 3) {
    std::string place = TrimValue(rest.substr(rest.starts_with("在") ? 3 : 0, k - (rest.starts_with("在") ? 3 : 0)));
    Statement st = Make(Kind::kLocation, place, "", 0.8);
    ForPerson(sub, &st, "location");
    return {st};
  }
  if (size_t k = rest.find("过敏"); k != SV::npos) {
    size_t b = rest.starts_with("对") ? 3 : 0;
    std::string what = TrimValue(rest.substr(b, k - b));
    if (!what.empty()) {
      Statement st = Make(Kind::kAllergy, what, "", 0.9);
      ForPerson(sub, &st, "allergy:" + what);
      st.exclusive = false;
      return {st};
    }
  }
  if (rest.starts_with("有")) {
    std::string what = TrimValue(rest.substr(3, ValueEnd(rest, 3) - 3));
    if (IsHealthWord(what) || HasHealthCue(what)) {
      Statement st = Make(Kind::kHealth, what, "", 0.85);
      ForPerson(sub, &st, "health:" + what);
      st.exclusive = false;
      return {st};
    }
  }
  if (rest.starts_with("是")) {
    std::string what = TrimValue(rest.substr(3, ValueEnd(rest, 3) - 3));
    if (what.starts_with("个")) what.erase(0, 3);
    if (LooksLikeJob(what)) {
      Statement st = Make(Kind::kJob, what, "", 0.8);
      ForPerson(sub, &st, "job");
      return {st};
    }
  }
  if (rest.starts_with("叫") || rest.starts_with("名字叫") || rest.starts_with("的名字是")) {
    size_t b = rest.starts_with("叫") ? 3 : rest.starts_with("名字叫") ? 9 : 12;
    std::string name = TrimValue(rest.substr(b, ValueEnd(rest, b) - b));
    if (!name.empty() && Chars(name) <= 5) {
      Statement st = Make(Kind::kName, name, "", 0.85);
      ForPerson(sub, &st, "name");
      return {st};
    }
  }
  if (Has(rest, "退休")) {
    Statement st = Make(Kind::kJob, "退休", "", 0.8);
    ForPerson(sub, &st, "job");
    return {st};
  }
  return {};
}

// ---- plans ----

std::vector<Statement> Plan(SV s, const Subject& sub, const ClauseView& c) {
  const bool event_first = s.starts_with("婚礼") || s.starts_with("考试") || s.starts_with("面试") ||
                           s.starts_with("手术") || s.starts_with("婚期") || s.starts_with("答辩");
  if (!AboutUser(sub) && !event_first) return {};
  // "下个月要搬去深圳", "我们下个月要搬进新房子": a move ahead is a plan, not the home
  for (SV move : {"搬去", "搬到", "搬进", "搬回"}) {
    size_t k = s.find(move);
    if (k == SV::npos) continue;
    const bool ahead = c.time.future_time || Has(s.substr(0, k), "要") ||
                       Has(s.substr(0, k), "准备") || Has(s.substr(0, k), "打算") ||
                       Has(s.substr(0, k), "计划") || Has(s.substr(0, k), "想");
    if (!ahead) return {};
    size_t b = k + move.size();
    std::string place = TrimValue(s.substr(b, ValueEnd(s, b) - b));
    Statement st = Make(Kind::kPlan, place, "move", 0.8);
    st.type = MemoryType::kGoal;
    return {st};
  }
  // "婚礼推迟到明年春天了", "我们的婚礼定在十月": an event's date
  static const std::vector<SV> kEvents = {"婚礼", "考试", "面试", "手术", "婚期", "考研", "雅思",
                                          "托福", "答辩", "毕业典礼", "蜜月", "旅行", "出差"};
  for (SV ev : kEvents) {
    if (!Has(s, ev)) continue;
    if (!(Has(s, "推迟") || Has(s, "提前") || Has(s, "改到") || Has(s, "定在") || Has(s, "改成") ||
          c.time.future_time || Has(s, "打算") || Has(s, "计划") || Has(s, "准备"))) {
      continue;
    }
    Statement st = Make(Kind::kPlan, Str(ev), Str(ev), 0.8);
    st.entities.clear();
    st.type = MemoryType::kGoal;
    return {st};
  }
  return {};
}

}  // namespace

namespace {

// The characters of a clause, to skip the frames none of whose trigger characters it holds: a
// frame looks for each of its words in the clause, and most clauses hold none of them.
class CharSet {
 public:
  explicit CharSet(SV s) {
    int32_t i = 0;
    const auto n = static_cast<int32_t>(s.size());
    while (i < n) {
      UChar32 c;
      U8_NEXT(s.data(), i, n, c);
      if (c >= 0 && c < 0x10000) bits_.set(static_cast<size_t>(c));
      latin_ = latin_ || (c >= 'A' && c <= 'z');
    }
  }
  // True when the clause holds any character of `chars`.
  bool Any(SV chars) const {
    int32_t i = 0;
    const auto n = static_cast<int32_t>(chars.size());
    while (i < n) {
      UChar32 c;
      U8_NEXT(chars.data(), i, n, c);
      if (c >= 0 && c < 0x10000 && bits_.test(static_cast<size_t>(c))) return true;
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
  if (has.Any("租工薪收费重贷存涨斤") || !c.topic.empty()) {
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
  if (has.Any("岁")) {
    if (auto out = Age(s, sub); !out.empty()) return out;
  }
  if (has.Any("搬婚考面手答蜜旅差辩")) {
    if (auto out = Plan(s, sub, c); !out.empty()) return out;
  }
  if (has.Any("读学考转级班校")) {
    if (auto out = School(s, sub, *state); !out.empty()) return out;
  }
  if (has.Any("语文话")) {
    if (auto out = Language(s, sub); !out.empty()) return out;
  }
  if (has.latin() || has.Any("小华荣三安苹戴联惠硕宏文掌比特丰本大宝奔奥凯雅捷理蔚鹏问机脑板器车表")) {
    if (auto out = Device(s, sub); !out.empty()) return out;
  }
  if (has.Any("周每星礼点")) {
    if (auto out = Schedule(c.raw.empty() ? s : SV(c.raw), sub, state); !out.empty()) return out;
  }
  if (has.Any("在做职司岗是当任") || state->topic == "employer") {
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
