// Chinese frames (frames.h, frames_zh.cc) for the people the user knows: partner and family,
// what people do and are called, children, pets (none), ages, contact details, and likes regained.
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "extract/frames.h"
#include "extract/frames_zh_internal.h"
#include "extract/lexicon.h"

namespace engram::extract::frames_zh {

// ---- partner ----

namespace {

// A noun naming a role or an occupation by its suffix ("护士", "老师", "程序员", "学生").
bool IsRoleNoun(SV v) {
  for (SV suffix : {"士", "师", "员", "生", "家", "工", "医", "者", "手", "长", "官", "警", "人",
                    "主", "司机", "老板", "会计", "律师", "销售"}) {
    if (v.ends_with(suffix)) return true;
  }
  return false;
}

}  // namespace

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
      if (!v.empty() && CountCodepoints(v) <= 4) return v;
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
      if (k == SV::npos || k > 12 || !(Has(s.substr(0, k), "有") || Has(s.substr(0, k), "个")))
        continue;
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
    if (k == SV::npos || k == 0 || CountCodepoints(s.substr(0, k)) > 4) continue;
    SV rel = RelationAt(s, k + is.size());
    if (rel.empty()) continue;
    std::string name = Str(s.substr(0, k));
    bool bad = false;
    for (SV w : {"他", "她", "你", "我", "现在", "也", "都", "已经", "这", "那", "就"})
      bad = bad || Has(name, w);
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
    size_t b =
        rest.starts_with("住在") || rest.starts_with("搬到") || rest.starts_with("搬去") ? 6 : 3;
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
    std::string place = TrimValue(
        rest.substr(rest.starts_with("在") ? 3 : 0, k - (rest.starts_with("在") ? 3 : 0)));
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
    if (!name.empty() && CountCodepoints(name) <= 5) {
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

// ---- ages ----

std::vector<Statement> Age(SV s, const Subject& sub, SV raw) {
  size_t k = s.find("岁");
  // "我今年31", "今年30了": with 今年 said (`raw`, before the time was taken out), a number
  // that is all that is left after the subject is an age
  if (k == SV::npos && AboutUser(sub) && raw.find("今年") != SV::npos) {
    SV n = s.substr(std::min(sub.end, s.size()));
    if (n.ends_with("了")) n.remove_suffix(3);
    if (n.size() == 2 && std::isdigit(static_cast<unsigned char>(n[0])) &&
        std::isdigit(static_cast<unsigned char>(n[1])) && n[0] != '0') {
      // said as an age, without the year 今年 resolved to ("用户2026年29" reads as a date)
      Statement st = Make(Kind::kAge, Str(n) + "岁", "", 0.8);
      st.content = "今年" + Str(n);
      return {st};
    }
  }
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
  if (CountCodepoints(before) > 4) return {};
  // "我们家狗旺财十二岁了": the pet's age, not the user's
  if (AboutUser(sub) && NamesPet(before, true)) return {};
  Statement st = Make(Kind::kAge, Str(s.substr(b, k + 3 - b)), "", 0.85);
  if (sub.who == Who::kPerson)
    ForPerson(sub, &st, "age");
  else if (!AboutUser(sub))
    return {};
  return {st};
}

// ---- contact details and other "我的X是Y" ----

std::vector<Statement> Contact(SV s, const Subject& sub) {
  static const std::vector<std::pair<SV, SV>> kLabels = {
      {"手机号码", "phone"},     {"手机号", "phone"},      {"电话号码", "phone"},
      {"电话", "phone"},         {"邮箱", "email"},        {"电子邮件", "email"},
      {"身份证号码", "id_card"}, {"身份证号", "id_card"},  {"家庭住址", "address"},
      {"住址", "address"},       {"家地址", "address"},    {"地址", "address"},
      {"微信号", "wechat"},      {"微信", "wechat"},       {"车牌号", "license_plate"},
      {"车牌", "license_plate"}, {"护照号码", "passport"}, {"护照号", "passport"},
      {"血型", "blood_type"},    {"生日", "birthday"},     {"QQ号", "qq"},
      {"工号", "employee_id"},   {"学号", "student_id"}};
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
    if (what.empty() || CountCodepoints(what) > 6) continue;
    Statement st = Make(Kind::kLike, what, SlotKey(what), 0.8);
    return {st};
  }
  return {};
}

}  // namespace engram::extract::frames_zh
