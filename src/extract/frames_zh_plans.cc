// Chinese frames (frames.h, frames_zh.cc) for plans, budgets and amounts, schedules, devices and
// what stops holding (a death, a breakup, quitting, a condition that passed).
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "extract/frames.h"
#include "extract/frames_zh_internal.h"
#include "extract/lexicon.h"
#include "text/find.h"

namespace engram::extract::frames_zh {

// ---- plans ----

std::vector<Statement> Plan(SV s, const Subject& sub, const ClauseView& c) {
  const bool event_first = s.starts_with("婚礼") || s.starts_with("考试") ||
                           s.starts_with("面试") || s.starts_with("手术") ||
                           s.starts_with("婚期") || s.starts_with("答辩");
  // a booking said with no subject is the speaker's ("订好了去东京的机票")
  const bool booking =
      sub.who != Who::kPerson && (Has(s, "订好了") || Has(s, "定好了") || Has(s, "订了") ||
                                  Has(s, "买好了") || Has(s, "抢到了"));
  if (!AboutUser(sub) && !event_first && !booking) return {};
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
  // "订好了4月去东京的机票", "八月去喀纳斯的行程订好了": something booked for a trip is a plan
  for (SV booked : {"订好了", "定好了", "订了", "买好了", "抢到了"}) {
    if (!Has(s, booked)) continue;
    bool trip = false;
    for (SV t : {"机票", "酒店", "行程", "门票", "车票", "火车票", "高铁", "民宿", "船票"}) {
      trip = trip || Has(s, t);
    }
    if (!trip) break;
    std::string place;
    if (const size_t k = s.find("去"); k != SV::npos) {
      const size_t b = k + std::string_view("去").size();
      place = TrimValue(s.substr(b, ValueEnd(s, b) - b));
      if (const size_t de = place.find("的"); de != std::string::npos) place.resize(de);
    }
    Statement st =
        Make(Kind::kPlan, place.empty() ? "行程" : place, place.empty() ? "行程" : place, 0.8);
    if (place.empty()) st.entities.clear();
    st.type = MemoryType::kGoal;
    return {st};
  }
  // "婚礼推迟到明年春天了", "我们的婚礼定在十月": an event's date
  static const std::vector<SV> kEvents = {"婚礼", "考试", "面试", "手术", "婚期",
                                          "考研", "雅思", "托福", "答辩", "毕业典礼",
                                          "蜜月", "旅行", "出差"};
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

// ---- budgets and amounts ----

std::vector<Statement> Budget(SV s, const Subject& sub, const ClauseView& c, MessageState* state) {
  if (!ContainsText(s, "预算") && c.topic == "budget" && !FindAmountZh(s).empty() &&
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
  if (CountCodepoints(topic) > 6 || Has(topic, "，") || Has(topic, "买")) topic = {};
  std::string key = TrimValue(topic);
  Statement st = Make(Kind::kBudget, amount, key);
  st.elliptical = key.empty();
  // "我想买台笔记本电脑，预算六千左右": the topic is in the clause before (the caller's topic)
  return {st};
}

std::vector<Statement> Amount(SV s, const Subject& sub, const ClauseView& c, MessageState* state) {
  static const std::vector<SV> kWords = {"房租", "月租",   "租金", "工资", "月薪", "年薪", "薪水",
                                         "收入", "生活费", "体重", "房贷", "存款", "学费", "涨薪",
                                         "涨租", "身高",   "欠款", "欠",   "到手"};
  std::string topic;
  for (SV w : kWords) {
    if (Has(s, w)) {
      topic = w == "涨薪" ? "salary" : w == "涨租" ? "rent" : Str(AmountTopic(w));
      break;
    }
  }
  const std::string amount = FindAmountZh(s);
  // "我现在80公斤", "瘦到72公斤了": a weight said with its unit is the user's weight; one lost
  // or gained ("瘦了5斤", "胖了三公斤") or wanted ("想减到70公斤") is not
  const bool weight_unit = amount.ends_with("斤") || amount.ends_with("千克");
  if (topic.empty() && weight_unit && AboutUser(sub) && !Has(s, "了" + amount) && !Has(s, "想") &&
      !Has(s, "要") && !Has(s, "目标") && !Has(s, "希望")) {
    topic = "weight";
  }
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

// ---- schedules ----

std::vector<Statement> Schedule(SV s, const Subject& sub, MessageState* state) {
  static const std::vector<SV> kWhen = {
      "每周", "每个周", "每星期", "周一",     "周二",     "周三", "周四",   "周五",   "周六",
      "周日", "周末",   "星期",   "每天早上", "每天晚上", "每天", "点上班", "点下班", "点半上班"};
  size_t when = SV::npos;
  for (SV w : kWhen) {
    size_t k = s.find(w);
    if (k != SV::npos && k < when) when = k;
  }
  // "游泳改到下班后了", "瑜伽改成晚上八点": a time no list names, after the verb that moves it
  size_t moved_to = SV::npos;
  for (SV verb : {"改到", "换到", "调到", "改成", "挪到"}) {
    if (size_t k = s.find(verb); k != SV::npos && when == SV::npos) moved_to = k + verb.size();
  }
  if (when == SV::npos && moved_to == SV::npos) return {};
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
  if (activity.empty() && ContainsText(s, "课")) {
    size_t k = s.find("课");
    size_t b = k >= 6 ? k - 6 : 0;
    activity = ActivityKey(s.substr(b, k - b + 3));
  }
  if (activity.empty()) {
    if (state->topic.empty()) return {};
    activity = state->topic;
  }
  if (when == SV::npos) {
    // (only for an activity named: "改到下周" alone moves nothing known)
    const size_t e = ValueEnd(s, moved_to);
    if (e <= moved_to || !std::any_of(kActivities.begin(), kActivities.end(),
                                      [&](const auto& a) { return Has(s, a.first); })) {
      return {};
    }
    Statement st =
        Make(Kind::kSchedule, TrimValue(s.substr(moved_to, e - moved_to)), activity, 0.75);
    st.entities.clear();
    st.recurring = true;
    st.type = MemoryType::kFact;
    if (sub.who == Who::kPerson) ForPerson(sub, &st, "schedule:" + activity);
    return {st};
  }
  if (activity == "上班" && Has(s, "每周") == false && !Has(s, "点")) return {};
  size_t when_end = when;
  while (when_end < s.size()) {
    static const SV kTimeChars = "每个周星期礼拜一二三四五六日天末早上晚中午下半点号月0123456789";
    const size_t n = CodepointLength(s, when_end);
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
      i += CodepointLength(lower, i);
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
        "小米", "华为",   "荣耀", "三星",   "安卓",   "苹果手机", "戴尔", "联想", "惠普", "华硕",
        "宏碁", "文石",   "掌阅", "比亚迪", "特斯拉", "丰田",     "本田", "大众", "宝马", "奔驰",
        "奥迪", "凯美瑞", "雅阁", "捷达",   "理想",   "蔚来",     "小鹏", "问界"};
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

// ---- things that stop holding ----

std::vector<Statement> Ended(SV s, const Subject& sub, MessageState* state) {
  // "旺财上个月去世了", "奶奶上个月走了", "小绿飞走了", "Kindle坏了", "我儿子的猫丢了",
  // "团子寿终正寝了"
  static const std::vector<SV> kGone = {
      "去世", "过世", "走了", "死了", "没了", "飞走", "跑丢", "丢了", "跑了", "坏了", "病逝",
      "离世", "不在了", "送人", "卖了", "扔了", "淘汰",
      // how people say a pet died
      "寿终正寝", "去喵星", "去汪星", "去了喵星", "去了汪星", "安乐死", "离开了我们"};
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
      if (lead.starts_with("我的"))
        lead.remove_prefix(6);
      else if (lead.starts_with("我家"))
        lead.remove_prefix(6);
      for (SV adv : {"已经", "上个月", "昨天", "今天", "前天", "突然", "终于", "也"}) {
        if (lead.ends_with(adv)) lead.remove_suffix(adv.size());
      }
      if (lead.empty() || CountCodepoints(lead) > 8 || Has(lead, "我") || Has(lead, "你")) continue;
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
    if (lead.starts_with("我的"))
      lead.remove_prefix(6);
    else if (lead.starts_with("我"))
      lead.remove_prefix(3);
    for (SV adv : {"已经", "也", "都", "基本"}) {
      if (lead.ends_with(adv)) lead.remove_suffix(adv.size());
    }
    static const std::vector<SV> kBody = {"膝盖", "腰",   "手腕", "脚踝", "肩膀", "颈椎", "胃",
                                          "牙",   "嗓子", "感冒", "发烧", "伤",   "腿",   "手",
                                          "脚",   "背",   "眼睛", "咳嗽", "过敏"};
    const bool body = IsHealthWord(lead) || std::any_of(kBody.begin(), kBody.end(), [&](SV b) {
                        return ContainsText(lead, b);
                      });
    if (lead.empty() || !body || CountCodepoints(lead) > 6) continue;
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
    if (what.empty() || CountCodepoints(what) > 10) return std::vector<Statement>{};
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
  if (pred.starts_with("不") && pred.ends_with("了") && CountCodepoints(pred) <= 8 &&
      CountCodepoints(pred) >= 3) {
    SV what = pred.substr(3, pred.size() - 6);  // "不考公了"
    if (what.starts_with("再")) what.remove_prefix(3);
    // "不再喜欢咖啡了": a like that turned, read by the likes
    if (!what.starts_with("喜欢") && !what.starts_with("爱") && !what.empty())
      return ended(Str(what), "");
  }
  for (SV w :
       {"辞职", "离职", "跳槽", "换工作", "转岗", "新工作", "换了工作", "找到工作", "入职"}) {
    if (Has(s, w)) state->topic = "employer";
  }
  return {};
}

}  // namespace engram::extract::frames_zh
