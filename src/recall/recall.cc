// Proactive recall (include/engram/recall.h).
//
// What a situation puts at stake is general knowledge, not a user's data: going outdoors puts
// pollen and insect allergies and joint or breathing conditions at stake; a meal, food
// allergies and diets; a booking for a meal or a date, the partner; travel, the passport and
// medication; drinking, medication and conditions; a doctor's visit, drug allergies and
// medication; animals, animal allergies. The tables below say so in Chinese and English; the
// user's memories say which of these apply.
#include "engram/recall.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>

#include "core/status_macros.h"
#include "engram/lifecycle.h"
#include "extract/clauses.h"
#include "text/find.h"

namespace engram {
namespace {

using Words = std::vector<std::string_view>;

// A kind of memory a situation puts at stake: slots containing `slot_part` (or contents
// containing one of `content_words`, for memories without such a slot), narrowed to those
// mentioning one of `keys` when keys are given.
struct Stake {
  Words slot_parts;
  Words content_words;
  Words keys;
  double score;
  std::string_view label;
};

struct Situation {
  std::string_view name;
  Words cues_en;  // whole words or phrases, lower case
  Words cues_zh;  // substrings
  std::vector<Stake> stakes;
};

const Words kPollenKeys = {"pollen", "花粉",  "grass", "hay fever", "花草",   "bee",
                           "蜜蜂",   "wasp",  "黄蜂",  "insect",    "虫",     "mosquito",
                           "蚊",     "sting", "叮",    "sun",       "紫外线", "日光",
                           "阳光",   "柳絮",  "杨絮",  "ragweed",   "tree"};
const Words kFoodKeys = {
    "peanut", "花生", "nut",    "坚果", "shellfish", "贝",     "seafood",    "海鲜",     "shrimp",
    "虾",     "crab", "蟹",     "fish", "鱼",        "gluten", "麸质",       "wheat",    "小麦",
    "dairy",  "milk", "牛奶",   "乳糖", "lactose",   "egg",    "鸡蛋",       "蛋",       "soy",
    "大豆",   "黄豆", "sesame", "芝麻", "mango",     "芒果",   "strawberry", "草莓",     "celiac",
    "乳制品", "豆",   "鸡肉",   "牛肉", "pork",      "猪肉",   "beef",       "cilantro", "香菜"};
const Words kConditionOutdoor = {"asthma", "哮喘",  "knee", "膝",       "ankle",
                                 "脚踝",   "heart", "心脏", "altitude", "高原",
                                 "高反",   "back",  "腰",   "恐高",     "heights"};
const Words kConditionExercise = {"asthma",  "哮喘", "knee",           "膝",   "ankle",   "脚踝",
                                  "heart",   "心脏", "back",           "腰",   "injur",   "伤",
                                  "pregnan", "怀孕", "blood pressure", "血压", "surgery", "手术"};
const Words kConditionDrinking = {"liver",   "肝",   "pregnan", "怀孕",   "gout",  "痛风",
                                  "alcohol", "酒精", "diabet",  "糖尿病", "sober", "戒酒"};
const Words kDrugKeys = {"penicillin", "青霉素", "aspirin",   "阿司匹林", "sulfa",      "磺胺",
                         "drug",       "药",     "ibuprofen", "布洛芬",   "antibiotic", "抗生素",
                         "anesthe",    "麻醉",   "codeine",   "latex",    "乳胶"};
const Words kAnimalKeys = {"cat",  "猫",     "dog",   "狗", "fur",     "毛",  "animal",
                           "动物", "dander", "horse", "马", "feather", "羽毛"};
const Words kTravelHealth = {"motion sick", "晕车", "晕机",   "晕船",   "flying",  "恐高",  "飞行",
                             "blood clot",  "血栓", "diabet", "糖尿病", "insulin", "胰岛素"};

const Words kAllergySlot = {"/allergy"};
const Words kHealthSlot = {"/health", "/medication", "/blood_type"};
const Words kAllergyWords = {"allerg", "过敏", "hay fever", "花粉症"};
const Words kHealthWords = {
    "asthma",      "哮喘", "diabet",     "糖尿病", "heart",          "心脏",   "pregnan", "怀孕",
    "injur",       "受伤", "surgery",    "手术",   "blood pressure", "血压",   "liver",   "肝",
    "knee",        "膝",   "medication", "吃药",   "insulin",        "胰岛素", "epilep",  "癫痫",
    "motion sick", "晕车", "晕机",       "晕船",   "intoleran",      "不耐受", "celiac",  "乳糜泻"};
// What people call their medicines in passing.
const Words kMedicationWords = {"medication",    "medicine", "meds",       "pill", "tablet",
                                "blood thinner", "insulin",  "antibiotic", "吃药", "药",
                                "胰岛素",        "抗生素",   "头孢"};
const Words kPartnerSlot = {"user/partner", "wife/",   "husband/", "girlfriend/", "boyfriend/",
                            "partner/",     "老婆/",   "老公/",    "妻子/",       "丈夫/",
                            "女朋友/",      "男朋友/", "爱人/",    "对象/"};
const Words kPartnerWords = {"wife",    "husband", "girlfriend", "boyfriend", "partner", "fiancé",
                             "fiancee", "老婆",    "老公",       "妻子",      "丈夫",    "女朋友",
                             "男朋友",  "爱人",    "对象",       "未婚妻",    "未婚夫"};

const std::vector<Situation>& Situations() {
  static const std::vector<Situation> kAll = {
      {"outdoors",
       {"hike",      "hiking",        "hikes",       "climb",     "climbing",      "mountain",
        "mountains", "trail",         "camping",     "camp",      "picnic",        "the park",
        "a park",    "national park", "garden",      "gardening", "outdoors",      "outside",
        "beach",     "countryside",   "fishing",     "cycling",   "bike ride",     "woods",
        "forest",    "meadow",        "flower show", "botanical", "spring outing", "field trip",
        "orchard"},
       {"爬山", "登山", "徒步", "露营",   "野餐", "公园",   "郊游", "海边", "沙滩",
        "踏青", "赏花", "花园", "户外",   "春游", "秋游",   "钓鱼", "骑行", "草地",
        "森林", "山上", "看花", "植物园", "果园", "摘草莓", "采摘"},
       {{kAllergySlot, kAllergyWords, kPollenKeys, 0.85, "an outdoor allergy"},
        {kHealthSlot, kHealthWords, kConditionOutdoor, 0.75, "a condition outdoors"}}},
      {"eating",
       {"restaurant", "dinner",   "lunch",  "brunch", "breakfast",  "cook",     "cooking",
        "recipe",     "bake",     "baking", "menu",   "takeout",    "takeaway", "potluck",
        "bbq",        "barbecue", "buffet", "snack",  "snacks",     "dessert",  "cake",
        "cookies",    "feast",    "eat",    "eating", "meal",       "food",     "dish",
        "sushi",      "pizza",    "thai",   "curry",  "order food", "grocery",  "groceries"},
       {"餐厅",   "饭店",   "订餐", "吃饭", "聚餐",   "做饭", "下厨",  "外卖", "烧烤",
        "火锅",   "菜谱",   "做菜", "烘焙", "蛋糕",   "点菜", "请客",  "饭局", "晚饭",
        "午饭",   "早饭",   "晚餐", "午餐", "早餐",   "甜点", "零食",  "自助", "买菜",
        "吃什么", "吃点",   "去吃", "想吃", "要吃",   "吃个", "尝尝",  "小吃", "美食",
        "炒菜",   "包饺子", "煲汤", "做点", "什么菜", "吃啥", "做饭吃"},
       {{kAllergySlot, kAllergyWords, kFoodKeys, 0.85, "a food allergy"},
        {kHealthSlot, kHealthWords, kFoodKeys, 0.8, "a food intolerance"},
        {{"/diet"},
         {"vegetarian", "vegan", "素食", "吃素", "halal", "清真", "kosher"},
         {},
         0.75,
         "a diet"}}},
      {"booking",
       {"book a table", "table for", "reservation", "reserve a table", "make a booking",
        "booked a table", "date night", "dinner date"},
       {"订位", "订桌", "订个位", "订个桌", "预订", "订座", "约会", "订餐厅", "位子", "座位"},
       {{kAllergySlot, kAllergyWords, kFoodKeys, 0.85, "a food allergy"},
        {kPartnerSlot, kPartnerWords, {}, 0.7, "the partner"}}},
      {"travel",
       {"flight",    "fly",     "flying",  "trip",     "travel",   "traveling", "travelling",
        "hotel",     "airport", "abroad",  "visa",     "vacation", "holiday",   "overseas",
        "road trip", "cruise",  "journey", "check in", "pack",     "packing",   "luggage"},
       {"出差", "旅行", "旅游", "机票", "酒店", "出国", "飞机", "航班", "高铁", "火车", "签证",
        "度假", "自驾", "行李", "出境", "机场", "坐船"},
       {{{"/passport"}, {"passport", "护照"}, {}, 0.75, "the passport"},
        {{"/medication"}, kMedicationWords, {}, 0.75, "medication"},
        {kHealthSlot, kHealthWords, kTravelHealth, 0.75, "a condition when travelling"}}},
      {"drinking",
       {"drink", "drinks", "drinking", "beer", "beers", "wine", "bar", "pub", "cocktail",
        "cocktails", "alcohol", "toast", "happy hour", "whisky", "whiskey", "shots"},
       {"喝酒", "酒吧", "啤酒", "红酒", "白酒", "干杯", "喝一杯", "喝两杯", "酒局", "鸡尾酒",
        "烈酒"},
       {{{"/medication"}, kMedicationWords, {}, 0.8, "medication"},
        {kHealthSlot, kHealthWords, kConditionDrinking, 0.8, "a condition"},
        {kAllergySlot,
         kAllergyWords,
         {"alcohol", "酒精", "wine", "酒"},
         0.85,
         "an alcohol allergy"}}},
      {"exercise",
       {"go for a run", "morning run", "a run",    "marathon",   "gym",        "workout",
        "swim",         "swimming",    "yoga",     "basketball", "football",   "soccer",
        "tennis",       "exercise",    "training", "lift",       "lifting",    "ski",
        "skiing",       "jog",         "jogging",  "sprint",     "dance class"},
       {"跑步", "健身", "游泳", "马拉松", "锻炼", "运动", "打球", "篮球", "足球", "瑜伽", "爬楼",
        "滑雪", "跳舞", "羽毛球", "网球", "夜跑", "晨跑"},
       {{kHealthSlot, kHealthWords, kConditionExercise, 0.8, "a condition"},
        {kAllergySlot, kAllergyWords, {"exercise", "运动", "bee", "sting"}, 0.8, "an allergy"}}},
      {"romance",
       {"anniversary", "valentine", "valentine's", "date night", "gift for my", "present for my",
        "surprise my", "flowers for my", "propose", "proposal"},
       {"纪念日", "情人节", "约会", "礼物", "送她", "送他", "惊喜", "求婚", "七夕"},
       {{kPartnerSlot, kPartnerWords, {}, 0.75, "the partner"}}},
      {"medical",
       {"doctor", "hospital", "clinic", "dentist", "prescription", "pharmacy", "medicine",
        "surgery", "checkup", "check-up", "vaccine", "shot", "antibiotics", "painkiller",
        "painkillers", "emergency room", "appointment with dr"},
       {"医院", "看病", "医生", "牙医", "处方", "手术", "体检", "疫苗", "打针", "输液", "抗生素",
        "止痛药", "开药", "拔牙", "急诊", "挂号"},
       {{kAllergySlot, kAllergyWords, kDrugKeys, 0.85, "a drug allergy"},
        {{"/medication"}, kMedicationWords, {}, 0.75, "medication"},
        {{"/blood_type"}, {"blood type", "血型"}, {}, 0.7, "the blood type"}}},
      {"animals",
       {"zoo", "farm", "petting", "cat", "cats", "kitten", "dog", "dogs", "puppy", "horse",
        "horses", "pet shop", "adopt", "cat cafe", "dog sitting", "pet sitting"},
       {"动物园", "农场", "猫", "狗", "宠物", "领养", "撸猫", "马场", "骑马", "猫咖"},
       {{kAllergySlot, kAllergyWords, kAnimalKeys, 0.85, "an animal allergy"}}},
  };
  return kAll;
}

// `phrase` in lower-case `text` at word boundaries (ASCII letters), or anywhere when it is not
// ASCII.
bool HasWord(std::string_view text, std::string_view phrase) {
  const bool ascii = static_cast<unsigned char>(phrase.front()) < 0x80;
  for (size_t at = text.find(phrase); at != std::string_view::npos;
       at = text.find(phrase, at + 1)) {
    if (!ascii) return true;
    const bool left = at == 0 || !std::isalpha(static_cast<unsigned char>(text[at - 1]));
    size_t end = at + phrase.size();
    if (end < text.size() && text[end] == 's') ++end;  // a plural: "peanuts", "hikes"
    const bool right = end >= text.size() || !std::isalpha(static_cast<unsigned char>(text[end]));
    if (left && right) return true;
  }
  return false;
}

bool AnyWord(std::string_view text, const Words& words) {
  for (std::string_view w : words) {
    if (HasWord(text, w)) return true;
  }
  return false;
}

bool AnyPart(std::string_view text, const Words& parts) {
  for (std::string_view p : parts) {
    if (ContainsText(text, p)) return true;
  }
  return false;
}

// The turn looks back only: something done, not something coming ("I went hiking yesterday",
// "上周去爬山了"), or said off ("we cancelled the trip", "不去了").
// The turn dates what it says in the past ("last month", "上个月").
bool DatedPast(std::string_view low) {
  static const Words kDated = {"yesterday", "last week", "last month", "last year", "ago",   "昨天",
                               "前天",      "上周",      "上个月",     "去年",      "前几天"};
  return AnyWord(low, kDated);
}

bool OnlyPastOrOff(std::string_view low) {
  static const Words kAhead = {
      "tomorrow", "tonight",   "next",     "this weekend", "this week", "going to", "gonna",
      "will",     "'ll",       "plan",     "planning",     "want to",   "wanna",    "soon",
      "later",    "today",     "about to", "thinking of",  "let's",     "help me",  "should i",
      "can you",  "could you", "明天",     "后天",         "下周",      "下个",     "今晚",
      "今天",     "周末",      "打算",     "准备",         "计划",      "想",       "要",
      "待会",     "等会",      "马上",     "帮我",         "coming up", "upcoming", "快到",
      "快要",     "就要",      "即将"};
  static const Words kBack = {
      "yesterday", "last week", "last month", "last year", "ago",  "went",         "was",    "were",
      "had",       "did",       "used to",    "昨天",      "前天", "上周",         "上个月", "去年",
      "以前",      "之前",      "了",         "完",        "过了", "just got back"};
  static const Words kOff = {"cancel", "cancelled", "canceled", "not going", "won't", "called off",
                             "不去",   "取消",      "算了",     "不想去",    "去不了"};
  if (AnyWord(low, kOff)) return true;
  return AnyWord(low, kBack) && !AnyWord(low, kAhead);
}

// The words a memory is about: its slot's key ("user/allergy:peanut" → "peanut"), entities
// and value-like parts, lower case; for matching the turns directly.
std::vector<std::string> KeysOf(const MemoryItem& m) {
  std::vector<std::string> keys;
  if (const size_t colon = m.slot.find(':'); colon != std::string::npos) {
    keys.push_back(extract::LowerAscii(m.slot.substr(colon + 1)));
  }
  for (const std::string& e : m.entities) keys.push_back(extract::LowerAscii(e));
  keys.erase(std::remove_if(keys.begin(), keys.end(),
                            [](const std::string& k) {
                              return k.size() < 3;  // a CJK character alone is 3 bytes
                            }),
             keys.end());
  return keys;
}

bool MatchesStake(const MemoryItem& m, const std::string& low_content, const Stake& stake) {
  const bool by_slot = AnyPart(m.slot, stake.slot_parts);
  const bool by_words = !by_slot && AnyPart(low_content, stake.content_words);
  if (!by_slot && !by_words) return false;
  if (stake.keys.empty()) return true;
  return AnyPart(low_content, stake.keys) || AnyPart(extract::LowerAscii(m.slot), stake.keys);
}

}  // namespace

Result<std::vector<RecallHit>> Recall(Engine& engine, const Scope& scope,
                                      const RecallRequest& request) {
  if (request.k < 1 || request.k > 20) return Status::InvalidArgument("k must be 1..20");
  if (!(request.min_score >= 0 && request.min_score <= 1)) {
    return Status::InvalidArgument("min_score must be 0..1");
  }
  if (request.turns.empty()) return Status::InvalidArgument("turns must not be empty");
  if (request.turns.size() > 64) return Status::InvalidArgument("at most 64 turns");
  // The latest turns count; the last one most. Situations are read from the last two.
  std::string all, recent;
  for (size_t i = 0; i < request.turns.size(); ++i) {
    const std::string low = extract::LowerAscii(request.turns[i]);
    all += low + "\n";
    if (i + 2 >= request.turns.size()) recent += low + "\n";
  }
  const std::string last = extract::LowerAscii(request.turns.back());
  std::vector<const Situation*> situations;
  if (!OnlyPastOrOff(last)) {
    for (const Situation& s : Situations()) {
      if (AnyWord(recent, s.cues_en) || AnyPart(recent, s.cues_zh)) situations.push_back(&s);
    }
  }

  Scope user = scope;
  user.session_id.clear();
  std::map<std::string, RecallHit> best;  // by memory id
  auto offer = [&](const MemoryItem& m, double score, std::string reason) {
    auto [it, inserted] = best.try_emplace(m.id);
    if (inserted || score > it->second.score) it->second = RecallHit{m, score, std::move(reason)};
  };
  ListQuery q;
  q.limit = 1000;
  const RetentionPolicy policy;
  const TimestampMs now = engine.Now();
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(ListPage page, engine.List(user, q));
    for (const MemoryItem& m : page.items) {
      // A kept turn counts only when nothing was extracted from it (it is then the only record
      // of what was said); an event only when it is critical ("remember this: …").
      if (IsKeptTurn(m) && !m.derived_ids.empty()) continue;
      if (m.type == MemoryType::kSummary) continue;
      if (m.expires_at && *m.expires_at <= now) continue;  // lapsed: not worth raising
      const bool critical = IsCritical(m, policy);
      if (m.type == MemoryType::kEvent && !critical) continue;
      const std::string low = extract::LowerAscii(m.content);
      // The turns say it themselves ("I'm allergic to peanuts"): nothing to raise.
      const std::vector<std::string> keys = KeysOf(m);
      bool stated = false;
      for (const std::string& key : keys) {
        if (ContainsText(all, key) && (AnyPart(all, kAllergyWords) || ContainsText(all, "记住") ||
                                       ContainsText(all, "remember"))) {
          stated = true;
        }
      }
      if (stated) continue;
      if (critical) {
        // Named outright: worth raising, unless what is said is dated in the past.
        const double direct = DatedPast(last) ? 0.5 : 0.9;
        for (const std::string& key : keys) {
          if (HasWord(last, key) || (ContainsText(recent, key) && key.size() >= 4)) {
            offer(m, direct, "the conversation mentions " + key);
          }
        }
      }
      for (const Situation* s : situations) {
        for (const Stake& stake : s->stakes) {
          if (!MatchesStake(m, low, stake)) continue;
          const double score = critical ? stake.score : stake.score - 0.05;
          offer(m, score, std::string(s->name) + ": " + std::string(stake.label));
        }
      }
    }
    if (page.next_cursor.empty()) break;
    q.cursor = page.next_cursor;
  }
  std::vector<RecallHit> out;
  for (auto& [id, hit] : best) {
    if (hit.score >= request.min_score) out.push_back(std::move(hit));
  }
  std::sort(out.begin(), out.end(), [](const RecallHit& a, const RecallHit& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.item.importance > b.item.importance;
  });
  if (out.size() > static_cast<size_t>(request.k)) out.resize(static_cast<size_t>(request.k));
  return out;
}

}  // namespace engram
