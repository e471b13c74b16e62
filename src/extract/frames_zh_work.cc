// Chinese frames (frames.h, frames_zh.cc) for work and school, medication, diet and languages.
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "extract/changes.h"
#include "extract/frames.h"
#include "extract/frames_zh_internal.h"
#include "extract/lexicon.h"

namespace engram::extract::frames_zh {

// ---- schools ----

namespace {

bool IsSchoolName(SV v) {
  for (SV end : {"大学", "学院", "小学", "中学", "高中", "初中", "幼儿园", "学校", "大"}) {
    if (v.ends_with(end) && CountCodepoints(v) >= 2) return true;
  }
  static const std::vector<SV> kKnown = {"清华", "北大", "复旦", "浙大",   "交大",   "人大", "南大",
                                         "武大", "中山", "同济", "哈工大", "中科大", "北航"};
  return std::find(kKnown.begin(), kKnown.end(), v) != kKnown.end();
}

}  // namespace

std::vector<Statement> School(SV s, const Subject& sub, const MessageState& state) {
  static const std::vector<SV> kStudy = {"读书", "上学", "读研", "读博", "念书", "读大学", "读高中",
                                         "上大学", "读本科", "读硕士", "读博士", "读的", "上幼儿园",
                                         "读初中", "读小学", "留学", "进修", "就读",
                                         // "在华科读大二", "在人大读研一": a year of study after 读
                                         "读大", "读研", "读高", "读初"};
  for (SV verb : kStudy) {
    size_t k = s.find(verb);
    if (k == SV::npos) continue;
    size_t at = s.rfind("在", k);
    if (at == SV::npos) continue;
    std::string school = TrimValue(s.substr(at + 3, k - at - 3));
    if (school.empty() || CountCodepoints(school) > 10) continue;
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
    Statement st =
        Make(Kind::kSchool, TrimValue(s.substr(b + 3, k + grade.size() - b - 3)), "", 0.8);
    if (sub.who == Who::kPerson)
      ForPerson(sub, &st, "grade");
    else
      st.slot = "user/grade";
    return {st};
  }
  return {};
}

// ---- languages ----

std::vector<Statement> Language(SV s, const Subject& sub) {
  if (!AboutUser(sub)) return {};
  std::vector<Statement> out;
  for (size_t i = 0; i < s.size(); i += CodepointLength(s, i)) {
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
      i += n - CodepointLength(s, i);
      break;
    }
  }
  return out;
}

// ---- work the patterns do not read ----

bool LooksLikeJob(SV v) {
  static const std::vector<SV> kEnds = {
      "师", "员", "医生", "护士", "老师", "会计", "经理", "主管", "总监", "设计", "开发", "运营",
      "销售", "财务", "HR", "hr", "律师", "工程师", "产品", "分析", "编辑", "记者", "顾问", "助理",
      "合伙人", "前端", "后端", "测试", "客服", "主播",
      // a line of work said as its trade: "现在在做保险", "做电商的"
      "保险", "电商", "外贸", "房产", "中介", "自媒体", "直播", "餐饮", "物流"};
  if (v.empty() || CountCodepoints(v) > 10) return false;
  for (SV e : kEnds) {
    if (v.ends_with(e)) return true;
  }
  return false;
}

std::vector<Statement> Work(SV s, const Subject& sub, MessageState* state) {
  // "在一家教育科技公司做产品经理", "在外企做HR": employer and job
  size_t zai = s.find("在");
  // "现在在一家外企做财务": the 在 of 现在 leads no employer; the next one may
  if (zai != SV::npos && zai >= 3 && s.substr(zai - 3, 3) == "现") zai = s.find("在", zai + 3);
  if (zai != SV::npos) {
    for (SV verb : {"做", "当", "任"}) {
      size_t k = s.find(verb, zai + 3);
      if (k == SV::npos || k == zai + 3) continue;
      std::string org = TrimValue(s.substr(zai + 3, k - zai - 3));
      size_t jb = k + verb.size();
      std::string job = TrimValue(s.substr(jb, ValueEnd(s, jb) - jb));
      if (org.empty() || CountCodepoints(org) > 12 || !LooksLikeJob(job)) continue;
      std::vector<Statement> out;
      Statement employer = Make(Kind::kEmployer, org, "", 0.8);
      Statement role = Make(Kind::kJob, job, "", 0.85);
      // the employer is what the fact names (a correction of it, "打错了 饿了么", replaces it)
      role.entities = {org};
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
  // "在腾讯已经上了两周班了", "在阿里干了三年了": where the user works, by how long
  if (size_t zai = s.find("在"); zai != SV::npos && (zai == 0 || AboutUser(sub))) {
    for (SV verb : {"上了", "上班", "干了", "工作了", "待了"}) {
      size_t k = s.find(verb, zai + 3);
      if (k == SV::npos || k == zai + 3 || k - zai > 36) continue;
      std::string org = TrimValue(s.substr(zai + 3, k - zai - 3));
      for (SV adverb : {"已经", "都", "快", "也", "又"}) {
        if (std::string_view(org).ends_with(adverb)) org.resize(org.size() - adverb.size());
      }
      const std::string_view rest = s.substr(k + verb.size());
      // "上了两周班", "干了三年": a span of time, or 班 (not "在家待了一天", "在北京上了大学")
      const bool work = verb == "上班" || Has(rest.substr(0, 18), "班") ||
                        ((verb == "干了" || verb == "工作了") &&
                         (Has(rest.substr(0, 12), "年") || Has(rest.substr(0, 12), "月") ||
                          Has(rest.substr(0, 12), "周")));
      if (!work || org.empty() || CountCodepoints(org) > 10 || IsSchoolName(org) ||
          IsKnownCity(org, true) || LooksLikeJob(org)) {
        continue;
      }
      bool place = false;
      for (SV here : {"家", "这", "那", "公司", "单位", "老家", "国外", "外地"}) {
        place = place || org == here || org.starts_with(here);
      }
      if (place || sub.who == Who::kPerson || !AboutUser(sub)) continue;
      return {Make(Kind::kEmployer, org, "", 0.8)};
    }
  }
  // "现在在美团", "现在去了平安银行", "跳槽到字节" after a job change
  // ("跳去腾讯了", "跳到快手": the hop said short)
  if (state->topic == "employer" || Has(s, "跳槽到") || Has(s, "跳槽去") || Has(s, "跳去") ||
      Has(s, "跳到") || Has(s, "入职") || Has(s, "现在的公司是")) {
    for (SV lead : {"跳槽到", "跳槽去", "跳去", "跳到", "现在的公司是", "入职了", "入职", "去了",
                    "现在在", "在"}) {
      size_t k = s.find(lead);
      if (k == SV::npos) continue;
      size_t b = k + lead.size();
      size_t e = ValueEnd(s, b);
      for (SV stop : {"上班", "工作", "做"}) {
        size_t at = s.find(stop, b);
        if (at != SV::npos && at < e) e = at;
      }
      std::string org = TrimValue(s.substr(b, e - b));
      if (org.empty() || CountCodepoints(org) > 10 || IsSchoolName(org)) continue;
      // "现在是产品经理了": the 在 of 现在 leads no employer, and a job is none
      if (lead == "在" && k >= 3 && s.substr(k - 3, 3) == "现") continue;
      if (LooksLikeJob(org)) continue;
      if (IsTimeSpanZh(org)) continue;  // "已经入职两周": how long, not where
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
    if (sub.who == Who::kPerson)
      ForPerson(sub, &st, "job");
    else if (!AboutUser(sub))
      return {};
    return {st};
  }
  return {};
}

// ---- medication ----

std::vector<Statement> Medication(SV s, const Subject& sub) {
  // "在吃降压药", "每天吃铁剂", "睡前吃褪黑素"
  static const std::vector<SV> kMeds = {"降压药",   "降糖药",   "胰岛素", "褪黑素", "铁剂",
                                        "抗抑郁药", "安眠药",   "消炎药", "激素",   "避孕药",
                                        "阿司匹林", "二甲双胍", "优甲乐", "钙片",   "维生素"};
  for (SV m : kMeds) {
    if (!Has(s, m)) continue;
    Statement st = Make(Kind::kMedication, Str(m), Str(m));
    if (sub.who == Who::kPerson) ForPerson(sub, &st, "medication:" + Str(m));
    return {st};
  }
  return {};
}

// ---- diet ----

std::vector<Statement> Diet(SV s, const Subject& sub) {
  if (!AboutUser(sub)) return {};
  static const std::vector<std::pair<SV, SV>> kDiets = {
      {"素食主义", "素食"}, {"素食", "素食"}, {"吃素", "素食"},     {"全素", "纯素"},
      {"纯素", "纯素"},     {"生酮", "生酮"}, {"轻断食", "轻断食"}, {"开始吃肉", "吃肉"},
      {"恢复吃肉", "吃肉"}, {"清真", "清真"}};
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

}  // namespace engram::extract::frames_zh
