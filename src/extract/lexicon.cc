#include "extract/lexicon.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <vector>

#include "extract/clauses.h"
#include "text/find.h"
#include "text/lexicon_data.h"

namespace engram::extract {

bool HasWord(std::string_view text, std::string_view word) {
  for (size_t k = text.find(word); k != std::string_view::npos; k = text.find(word, k + 1)) {
    const bool left = k == 0 || !std::isalpha(static_cast<unsigned char>(text[k - 1]));
    const size_t e = k + word.size();
    const bool right = e >= text.size() || !std::isalpha(static_cast<unsigned char>(text[e]));
    if (left && right) return true;
  }
  return false;
}

bool IsTimeSpanZh(std::string_view text) {
  bool unit = false;
  for (std::string_view u : {"天", "周", "月", "年", "星期", "礼拜"})
    unit = unit || text.ends_with(u);
  if (!unit || text.empty()) return false;
  if (std::isdigit(static_cast<unsigned char>(text[0]))) return true;
  for (std::string_view n : {"一", "二", "两", "三", "四", "五", "六", "七", "八", "九", "十", "半",
                             "几", "快", "满", "刚"}) {
    if (text.starts_with(n)) return true;
  }
  return false;
}

namespace {

std::string Lower(std::string_view s) { return LowerAscii(s); }

using Table = std::unordered_map<std::string_view, std::string_view>;

std::string_view Find(const Table& table, std::string_view word) {
  const std::string low = Lower(word);
  auto it = table.find(low);
  return it == table.end() ? std::string_view() : it->second;
}

bool ContainsAny(std::string_view text, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view w) { return ContainsText(text, w); });
}

// A text's words, split once for many cue lookups: an English cue is a whole word or phrase, a
// Chinese one a substring, looked for only when the text has bytes beyond ASCII.
class Cues {
 public:
  explicit Cues(std::string_view text) : text_(text) {
    for (size_t i = 0; i < text.size();) {
      if (static_cast<unsigned char>(text[i]) >= 0x80) ascii_ = false;
      if (!std::isalpha(static_cast<unsigned char>(text[i]))) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < text.size() &&
             (std::isalpha(static_cast<unsigned char>(text[j])) || text[j] == '\''))
        ++j;
      words_.push_back(text.substr(i, j - i));
      i = j;
    }
  }
  bool Words(std::initializer_list<std::string_view> cues) const {
    for (std::string_view w : cues) {
      if (ContainsText(w, ' ')) {
        if (HasWord(text_, w)) return true;
      } else if (std::find(words_.begin(), words_.end(), w) != words_.end()) {
        return true;
      }
    }
    return false;
  }
  bool Zh(std::initializer_list<std::string_view> cues) const {
    return !ascii_ && ContainsAny(text_, cues);
  }
  std::string_view text() const { return text_; }

 private:
  std::string_view text_;
  std::vector<std::string_view> words_;
  bool ascii_ = true;
};

bool HealthCue(const Cues& t) {
  return t.Words(
             {"allergic",   "allergy",      "allergies",  "diagnosed",  "medication", "medicine",
              "meds",       "epipen",       "inhaler",    "insulin",    "asthma",     "diabetes",
              "diabetic",   "prediabetic",  "epilepsy",   "seizures",   "disease",    "disorder",
              "condition",  "pregnant",     "surgery",    "blood",      "cancer",     "doctor",
              "mg",         "dose",         "anxiety",    "depression", "adhd",       "celiac",
              "colorblind", "alzheimer's",  "alzheimer",  "intolerant", "therapy",    "injury",
              "hospital",   "prescription", "blood type", "heart",      "kidney",     "liver"}) ||
         t.Zh({"过敏", "病",     "药",   "医生",   "诊断", "确诊", "血压",
               "血糖", "血型",   "怀孕", "手术",   "哮喘", "失眠", "脂肪肝",
               "贫血", "胆固醇", "住院", "不耐受", "癫痫", "抑郁", "焦虑"});
}

bool HasAnyWord(std::string_view text, std::initializer_list<std::string_view> words) {
  // The text's words once, then each cue looked up among them.
  std::vector<std::string_view> mine;
  for (size_t i = 0; i < text.size();) {
    while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    size_t j = i;
    while (j < text.size() &&
           (std::isalpha(static_cast<unsigned char>(text[j])) || text[j] == '\''))
      ++j;
    if (j > i) mine.push_back(text.substr(i, j - i));
    i = j;
  }
  for (std::string_view w : words) {
    if (ContainsText(w, ' ')) {
      if (HasWord(text, w)) return true;
      continue;
    }
    if (std::find(mine.begin(), mine.end(), w) != mine.end()) return true;
  }
  return false;
}

}  // namespace

std::string_view DeviceKind(std::string_view word) {
  static const Table k = {
      {"iphone", "phone"},
      {"pixel", "phone"},
      {"galaxy", "phone"},
      {"oneplus", "phone"},
      {"android", "phone"},
      {"xiaomi", "phone"},
      {"huawei", "phone"},
      {"motorola", "phone"},
      {"blackberry", "phone"},
      {"nokia", "phone"},
      {"小米", "phone"},
      {"华为", "phone"},
      {"荣耀", "phone"},
      {"oppo", "phone"},
      {"vivo", "phone"},
      {"三星", "phone"},
      {"安卓", "phone"},
      {"苹果手机", "phone"},
      {"mate", "phone"},
      {"macbook", "laptop"},
      {"thinkpad", "laptop"},
      {"chromebook", "laptop"},
      {"xps", "laptop"},
      {"dell", "laptop"},
      {"lenovo", "laptop"},
      {"hp", "laptop"},
      {"asus", "laptop"},
      {"acer", "laptop"},
      {"surface", "laptop"},
      {"戴尔", "laptop"},
      {"联想", "laptop"},
      {"惠普", "laptop"},
      {"华硕", "laptop"},
      {"宏碁", "laptop"},
      {"ipad", "tablet"},
      {"kindle", "ereader"},
      {"kobo", "ereader"},
      {"nook", "ereader"},
      {"文石", "ereader"},
      {"掌阅", "ereader"},
      {"boox", "ereader"},
      {"tesla", "car"},
      {"subaru", "car"},
      {"honda", "car"},
      {"toyota", "car"},
      {"civic", "car"},
      {"accord", "car"},
      {"camry", "car"},
      {"prius", "car"},
      {"ford", "car"},
      {"bmw", "car"},
      {"audi", "car"},
      {"mercedes", "car"},
      {"volkswagen", "car"},
      {"vw", "car"},
      {"jeep", "car"},
      {"mazda", "car"},
      {"hyundai", "car"},
      {"kia", "car"},
      {"volvo", "car"},
      {"nissan", "car"},
      {"chevy", "car"},
      {"rivian", "car"},
      {"比亚迪", "car"},
      {"特斯拉", "car"},
      {"丰田", "car"},
      {"本田", "car"},
      {"大众", "car"},
      {"宝马", "car"},
      {"奔驰", "car"},
      {"奥迪", "car"},
      {"凯美瑞", "car"},
      {"雅阁", "car"},
      {"捷达", "car"},
      {"理想", "car"},
      {"蔚来", "car"},
      {"小鹏", "car"},
      {"问界", "car"},
      {"apple watch", "watch"},
      {"garmin", "watch"},
      {"fitbit", "watch"},
      {"playstation", "console"},
      {"ps5", "console"},
      {"xbox", "console"},
      {"switch", ""},
  };
  return Find(k, word);
}

std::string_view DeviceNounKind(std::string_view word) {
  static const Table k = {
      {"phone", "phone"},      {"cell", "phone"},        {"cellphone", "phone"},
      {"smartphone", "phone"}, {"手机", "phone"},        {"laptop", "laptop"},
      {"computer", "laptop"},  {"pc", "laptop"},         {"电脑", "laptop"},
      {"笔记本", "laptop"},    {"笔记本电脑", "laptop"}, {"tablet", "tablet"},
      {"平板", "tablet"},      {"e-reader", "ereader"},  {"ereader", "ereader"},
      {"reader", "ereader"},   {"阅读器", "ereader"},    {"car", "car"},
      {"车", "car"},           {"watch", "watch"},       {"手表", "watch"},
  };
  return Find(k, word);
}

std::string_view LanguageKey(std::string_view word) {
  static const Table k = {
      {"english", "english"},
      {"spanish", "spanish"},
      {"french", "french"},
      {"german", "german"},
      {"italian", "italian"},
      {"portuguese", "portuguese"},
      {"dutch", "dutch"},
      {"russian", "russian"},
      {"japanese", "japanese"},
      {"korean", "korean"},
      {"chinese", "chinese"},
      {"mandarin", "chinese"},
      {"cantonese", "cantonese"},
      {"arabic", "arabic"},
      {"hindi", "hindi"},
      {"urdu", "urdu"},
      {"turkish", "turkish"},
      {"greek", "greek"},
      {"hebrew", "hebrew"},
      {"polish", "polish"},
      {"swedish", "swedish"},
      {"norwegian", "norwegian"},
      {"danish", "danish"},
      {"finnish", "finnish"},
      {"vietnamese", "vietnamese"},
      {"thai", "thai"},
      {"indonesian", "indonesian"},
      {"tagalog", "tagalog"},
      {"swahili", "swahili"},
      {"latin", "latin"},
      {"asl", "asl"},
      {"persian", "persian"},
      {"farsi", "persian"},
      {"英语", "英语"},
      {"英文", "英语"},
      {"日语", "日语"},
      {"日文", "日语"},
      {"韩语", "韩语"},
      {"韩文", "韩语"},
      {"法语", "法语"},
      {"德语", "德语"},
      {"西班牙语", "西班牙语"},
      {"意大利语", "意大利语"},
      {"葡萄牙语", "葡萄牙语"},
      {"俄语", "俄语"},
      {"阿拉伯语", "阿拉伯语"},
      {"粤语", "粤语"},
      {"普通话", "普通话"},
      {"泰语", "泰语"},
      {"越南语", "越南语"},
      {"荷兰语", "荷兰语"},
      {"中文", "中文"},
      {"手语", "手语"},
  };
  return Find(k, word);
}

std::string ActivityKey(std::string_view phrase) {
  std::string s = Lower(phrase);
  // Chinese: the suffixes that name the occasion, not the activity.
  for (std::string_view suffix : {"课", "房", "训练", "时间", "日"}) {
    if (s.size() > suffix.size() && s.ends_with(suffix)) s.resize(s.size() - suffix.size());
  }
  // English: "piano lessons", "gym day", "swim practice" → the first word that is not one.
  static const std::vector<std::string_view> kOccasion = {
      "lessons",     "lesson",       "class",    "classes",  "day",
      "days",        "practice",     "session",  "sessions", "time",
      "appointment", "appointments", "training", "club",     "night"};
  std::vector<std::string> words;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(' ', i);
    if (j == std::string::npos) j = s.size();
    if (j > i) words.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  std::erase_if(words, [](const std::string& w) {
    return std::find(kOccasion.begin(), kOccasion.end(), w) != kOccasion.end() || w == "the" ||
           w == "my" || w == "a" || w == "our" || w == "their" || w == "his" || w == "her";
  });
  if (words.empty()) return "";
  std::string w = words.front();
  static const Table kFold = {{"swimming", "swim"}, {"running", "run"},    {"shifts", "shift"},
                              {"workouts", "gym"},  {"workout", "gym"},    {"working", "work"},
                              {"lifting", "gym"},   {"climbing", "climb"}, {"biking", "bike"},
                              {"cycling", "bike"},  {"dancing", "dance"},  {"skating", "skate"}};
  if (auto f = Find(kFold, w); !f.empty()) return std::string(f);
  if (w.size() > 4 && w.ends_with("s") && !w.ends_with("ss") && !w.ends_with("is") &&
      !w.ends_with("us")) {
    w.pop_back();  // "lessons" → "lesson", not "tennis" → "tenni"
  }
  return w;
}

std::string_view AmountTopic(std::string_view word) {
  static const Table k = {
      {"rent", "rent"},       {"rent's", "rent"},       {"房租", "rent"},
      {"月租", "rent"},       {"租金", "rent"},         {"salary", "salary"},
      {"pay", "salary"},      {"paycheck", "salary"},   {"income", "salary"},
      {"make", "salary"},     {"earn", "salary"},       {"raise", "salary"},
      {"工资", "salary"},     {"月薪", "salary"},       {"年薪", "salary"},
      {"薪水", "salary"},     {"收入", "salary"},       {"涨薪", "salary"},
      {"savings", "savings"}, {"save", "savings"},      {"存", "savings"},
      {"存款", "savings"},    {"weigh", "weight"},      {"weight", "weight"},
      {"weighed", "weight"},  {"lbs", "weight"},        {"pounds", "weight"},
      {"kg", "weight"},       {"体重", "weight"},       {"斤", "weight"},
      {"公斤", "weight"},     {"mortgage", "mortgage"}, {"房贷", "mortgage"},
      {"charge", "price"},    {"生活费", "allowance"},  {"allowance", "allowance"},
      {"tuition", "tuition"}, {"学费", "tuition"},      {"debt", "debt"},
      {"欠款", "debt"},       {"欠", "debt"},           {"到手", "salary"},
      {"cm", "height"},       {"身高", "height"},       {"height", "height"},
      {"tall", "height"},
  };
  return Find(k, word);
}

std::string_view RelationKey(std::string_view word) {
  static const Table k = {
      {"wife", "wife"},
      {"husband", "husband"},
      {"spouse", "spouse"},
      {"partner", "partner"},
      {"boyfriend", "boyfriend"},
      {"girlfriend", "girlfriend"},
      {"bf", "boyfriend"},
      {"gf", "girlfriend"},
      {"fiance", "fiance"},
      {"fiancé", "fiance"},
      {"fiancee", "fiance"},
      {"fiancée", "fiance"},
      {"son", "son"},
      {"daughter", "daughter"},
      {"kid", "kids"},
      {"kids", "kids"},
      {"children", "kids"},
      {"child", "kids"},
      {"baby", "baby"},
      {"mom", "mom"},
      {"mother", "mom"},
      {"mum", "mom"},
      {"mama", "mom"},
      {"dad", "dad"},
      {"father", "dad"},
      {"papa", "dad"},
      {"parents", "parents"},
      {"brother", "brother"},
      {"sister", "sister"},
      {"grandma", "grandma"},
      {"grandmother", "grandma"},
      {"grandpa", "grandpa"},
      {"grandfather", "grandpa"},
      {"aunt", "aunt"},
      {"uncle", "uncle"},
      {"cousin", "cousin"},
      {"niece", "niece"},
      {"nephew", "nephew"},
      {"boss", "boss"},
      {"manager", "boss"},
      {"roommate", "roommate"},
      {"friend", "friend"},
      {"coworker", "coworker"},
      {"colleague", "coworker"},
      {"neighbor", "neighbor"},
      {"neighbour", "neighbor"},
      {"stepson", "stepson"},
      {"stepdaughter", "stepdaughter"},
      {"老公", "husband"},
      {"丈夫", "husband"},
      {"先生", "husband"},
      {"老婆", "wife"},
      {"妻子", "wife"},
      {"太太", "wife"},
      {"媳妇", "wife"},
      {"爱人", "spouse"},
      {"男朋友", "boyfriend"},
      {"男友", "boyfriend"},
      {"女朋友", "girlfriend"},
      {"女友", "girlfriend"},
      {"对象", "partner"},
      {"未婚夫", "fiance"},
      {"未婚妻", "fiance"},
      {"儿子", "son"},
      {"女儿", "daughter"},
      {"闺女", "daughter"},
      {"孩子", "kids"},
      {"宝宝", "baby"},
      {"妈", "mom"},
      {"妈妈", "mom"},
      {"母亲", "mom"},
      {"老妈", "mom"},
      {"爸", "dad"},
      {"爸爸", "dad"},
      {"父亲", "dad"},
      {"老爸", "dad"},
      {"爸妈", "parents"},
      {"父母", "parents"},
      {"哥", "brother"},
      {"哥哥", "brother"},
      {"弟弟", "younger_brother"},
      {"弟", "younger_brother"},
      {"姐", "sister"},
      {"姐姐", "sister"},
      {"妹妹", "younger_sister"},
      {"妹", "younger_sister"},
      {"奶奶", "grandma"},
      {"外婆", "grandma_maternal"},
      {"姥姥", "grandma_maternal"},
      {"爷爷", "grandpa"},
      {"外公", "grandpa_maternal"},
      {"姥爷", "grandpa_maternal"},
      {"婆婆", "mother_in_law"},
      {"公公", "father_in_law"},
      {"岳母", "mother_in_law"},
      {"丈母娘", "mother_in_law"},
      {"岳父", "father_in_law"},
      {"闺蜜", "best_friend"},
      {"同事", "coworker"},
      {"领导", "boss"},
      {"老板", "boss"},
      {"室友", "roommate"},
      {"朋友", "friend"},
      {"表姐", "cousin"},
      {"表哥", "cousin"},
      {"表妹", "cousin"},
      {"表弟", "cousin"},
      {"舅舅", "uncle"},
      {"叔叔", "uncle"},
      {"阿姨", "aunt"},
      {"姑姑", "aunt"},
      {"小姨", "aunt"},
      {"侄子", "nephew"},
      {"侄女", "niece"},
      {"外甥", "nephew"},
      {"外甥女", "niece"},
      {"邻居", "neighbor"},
  };
  return Find(k, word);
}

bool IsPartnerRelation(std::string_view key) {
  return key == "wife" || key == "husband" || key == "spouse" || key == "partner" ||
         key == "boyfriend" || key == "girlfriend" || key == "fiance";
}

bool IsHealthWord(std::string_view word) {
  static const std::vector<std::string_view> k = {"asthma",
                                                  "diabetes",
                                                  "diabetic",
                                                  "prediabetic",
                                                  "prediabetes",
                                                  "epilepsy",
                                                  "epileptic",
                                                  "adhd",
                                                  "autism",
                                                  "anxiety",
                                                  "depression",
                                                  "insomnia",
                                                  "migraine",
                                                  "migraines",
                                                  "hypertension",
                                                  "celiac",
                                                  "colorblind",
                                                  "color blind",
                                                  "alzheimer",
                                                  "alzheimer's",
                                                  "dementia",
                                                  "arthritis",
                                                  "cancer",
                                                  "eczema",
                                                  "psoriasis",
                                                  "gout",
                                                  "anemia",
                                                  "anemic",
                                                  "lactose intolerant",
                                                  "gluten intolerant",
                                                  "ibs",
                                                  "crohn's",
                                                  "lupus",
                                                  "ptsd",
                                                  "ocd",
                                                  "bipolar",
                                                  "pregnant",
                                                  "sleep apnea",
                                                  "high blood pressure",
                                                  "cholesterol",
                                                  "thyroid",
                                                  "hypothyroidism",
                                                  "allergy",
                                                  "allergies",
                                                  "allergic",
                                                  "injury",
                                                  "injured",
                                                  "concussion",
                                                  "高血压",
                                                  "低血压",
                                                  "糖尿病",
                                                  "哮喘",
                                                  "心脏病",
                                                  "胃病",
                                                  "贫血",
                                                  "抑郁症",
                                                  "焦虑症",
                                                  "失眠",
                                                  "痛风",
                                                  "高血脂",
                                                  "乳糖不耐受",
                                                  "偏头痛",
                                                  "鼻炎",
                                                  "颈椎病",
                                                  "腰椎间盘突出",
                                                  "关节炎",
                                                  "癫痫",
                                                  "甲亢",
                                                  "胃炎",
                                                  "怀孕",
                                                  "近视",
                                                  "散光",
                                                  "色弱",
                                                  "色盲",
                                                  "脂肪肝",
                                                  "敏感肌",
                                                  "胆固醇",
                                                  "血压",
                                                  "血糖",
                                                  "过敏",
                                                  "受伤",
                                                  "骨折",
                                                  "抑郁",
                                                  "焦虑",
                                                  "智齿",
                                                  "体脂",
                                                  "缺铁",
                                                  "甲减",
                                                  "结石",
                                                  "湿疹",
                                                  "荨麻疹",
                                                  "老花",
                                                  "色盲",
                                                  "弱视",
                                                  "阿尔茨海默",
                                                  "帕金森"};
  const std::string low = Lower(word);
  return std::find(k.begin(), k.end(), low) != k.end();
}

bool HasHealthCue(std::string_view t) { return HealthCue(Cues(t)); }

bool CriticalCue(std::string_view text) {
  const Cues t(text);
  return t.Words({"remember this", "remember that", "please remember", "don't forget",
                  "do not forget", "keep in mind", "allergic", "allergy", "allergies", "epipen",
                  "anaphylaxis", "epilepsy", "seizures", "blood type", "hay fever"}) ||
         t.Zh({"记住", "别忘了", "不要忘了", "别忘记", "记一下", "帮我记", "过敏", "急救", "血型",
               "癫痫", "花粉症"});
}

bool CriticalSlot(std::string_view slot) {
  for (std::string_view kind : {"/allergy", "/health", "/medication", "/blood_type"}) {
    if (ContainsText(slot, kind)) return true;
  }
  return false;
}

double ImportanceFromCues(std::string_view text, double base) {
  const Cues t(text);
  double v = base;
  const bool remember = t.Words({"remember", "don't forget", "never forget", "important",
                                 "keep in mind", "note that", "fyi"}) ||
                        t.Zh({"记住", "别忘了", "不要忘", "记一下", "很重要", "千万"});
  const bool safety = t.Words({"allergic", "allergy", "epipen", "anaphylaxis", "emergency",
                               "seizures", "epilepsy", "blood type"}) ||
                      t.Zh({"过敏", "急救", "血型", "癫痫", "危险"});
  if (safety) v = std::max(v, 0.9);
  if (HealthCue(t)) v = std::max(v, 0.85);
  if (remember) v = std::max(v, 0.85);
  const bool identity =
      t.Words({"name", "named", "birthday", "born", "age", "passport", "email", "phone", "address",
               "nationality"}) ||
      t.Zh({"名字", "叫", "生日", "出生", "身份证", "护照", "手机号", "邮箱", "地址"});
  if (identity) v = std::max(v, 0.75);
  const bool money =
      t.Words({"budget", "salary", "rent", "mortgage", "savings", "debt", "income", "loan"}) ||
      ContainsText(text, '$') ||
      t.Zh({"预算", "工资", "月薪", "房租", "房贷", "存款", "收入", "欠", "贷款", "生活费"});
  if (money) v = std::max(v, 0.7);
  const bool family = t.Words({"wife", "husband", "son", "daughter", "kids", "mom", "dad", "mother",
                               "father", "baby", "pregnant", "married", "engaged", "divorced",
                               "passed away", "died", "funeral"}) ||
                      t.Zh({"老婆", "老公", "妻子", "丈夫", "儿子", "女儿", "孩子", "爸", "妈",
                            "父母", "结婚", "离婚", "怀孕", "去世", "过世", "走了"});
  if (family) v = std::max(v, 0.7);
  return std::min(v, 1.0);
}

std::optional<MemoryType> TypeFromCues(std::string_view t, bool zh) {
  if (zh) {
    // A view stated as such comes first: "我认为…是正确的决定" is an opinion, not a decision.
    for (std::string_view o :
         {"用户认为", "用户觉得", "我认为", "我觉得", "用户发现", "我发现", "用户的看法",
          "用户的观点", "用户的解读", "我的看法", "我的观点", "我的解读", "我的意见", "在用户看来",
          "在我看来", "说实话", "老实说"}) {
      if (t.starts_with(o) || t.find(o) == 0) return MemoryType::kOpinion;
    }
    if (ContainsAny(t, {"更喜欢", "偏好", "宁愿", "宁可", "比较喜欢", "最喜欢", "讨厌", "不喜欢",
                        "喜欢", "倾向", "偏爱"})) {
      return MemoryType::kPreference;
    }
    if (ContainsAny(t, {"答应", "承诺", "保证", "一定会", "说好了", "发誓"})) {
      return MemoryType::kCommitment;
    }
    if (ContainsAny(t, {"决定", "定了", "敲定", "选定", "选了", "选择", "达成一致", "商量好",
                        "改用", "采用"})) {
      return MemoryType::kDecision;
    }
    if (ContainsAny(t, {"我觉得", "我认为", "我感觉", "在我看来", "依我看", "我的看法", "我的观点",
                        "说实话", "老实说", "个人觉得", "我相信", "高估", "低估", "怀疑", "看法",
                        "观点", "认为", "觉得"})) {
      return MemoryType::kOpinion;
    }
    if (ContainsAny(t, {"打算", "计划", "准备", "想要", "希望", "梦想", "目标", "将要", "要去",
                        "想去", "想学", "想买", "想换"})) {
      return MemoryType::kGoal;
    }
    return std::nullopt;
  }
  if (HasAnyWord(t, {"promised", "promise", "committed", "committing", "commit", "pledged", "swore",
                     "vowed", "guarantee"}) ||
      ContainsAny(t, {"i'll make sure", "i will make sure", "said yes —", "agreed to"})) {
    return MemoryType::kCommitment;
  }
  if (ContainsAny(t, {"would rather", "'d rather", "d rather ", " prefers ", " prefer ",
                      "wants me to", "wants the user to", "would like me to", "asked me to",
                      "wants us to", "strongly prefer", " likes ", " loves ", " hates ", "favorite",
                      "favourite", "can't stand", "rather than"})) {
    return MemoryType::kPreference;
  }
  // A view stated as such: "I think … is exactly right" is an opinion whatever it mentions.
  for (std::string_view o :
       {"i think", "i believe", "in my opinion", "my take", "my read", "honestly, i think",
        "user thinks", "user believes", "i feel like", "imo", "i'd argue", "i reckon"}) {
    if (t.starts_with(o)) return MemoryType::kOpinion;
  }
  // An action under way, said without a subject as in notes: "Adopting the same convention
  // myself" (a choice), "Updating the auto-send schedule" (an undertaking).
  for (std::string_view w : {"adopting", "switching", "building", "adjusting", "sticking with",
                             "going with", "moving to", "dropping", "standardizing"}) {
    if (t.starts_with(w) || t.starts_with(std::string("i am ") + std::string(w))) {
      return MemoryType::kDecision;
    }
  }
  for (std::string_view w :
       {"updating", "putting", "pushing", "re-running", "rerunning", "scheduling", "sending",
        "routing", "restructuring", "following up", "blocking", "setting up", "reserving"}) {
    if (t.starts_with(w) || t.starts_with(std::string("i am ") + std::string(w))) {
      return MemoryType::kCommitment;
    }
  }
  if (HasAnyWord(
          t, {"decided", "decide", "decision", "chose", "chosen", "opted", "settled", "agreed"}) ||
      ContainsAny(t, {"made up my mind", "going with", "we'll go with", "switching to",
                      "switching entirely", "signed off"})) {
    return MemoryType::kDecision;
  }
  if (ContainsAny(
          t, {"i think",      "i believe",    "i feel like",   "i feel that",   "in my opinion",
              "my take",      "my view",      "my read",       "i'm skeptical", "i am skeptical",
              "overrated",    "underrated",   "i find ",       "i'd say",       "imo",
              "imho",         "my opinion",   "i reckon",      "i doubt",       "is the best",
              "is the worst", "are the best", "are the worst", "better than",   "worse than"})) {
    return MemoryType::kOpinion;
  }
  if (ContainsAny(
          t, {"want to",       "wanna",         "plan to",     "planning to",    "hope to",
              "planning on",   "planning a",    "planning an", "planning my",    "planning our",
              "planning the",  "hoping to",     "going to",    "gonna",          "goal",
              "dream",         "aim to",        "intend",      "trying to",      "saving up",
              "saving for",    "would like to", "'d like to",  "thinking about", "thinking of",
              "at some point", "someday",       "one day"})) {
    return MemoryType::kGoal;
  }
  return std::nullopt;
}

bool IsPassingMood(std::string_view t, bool zh) {
  if (zh) {
    return ContainsAny(
        t, {"好累", "很累", "累死", "难过", "伤心",     "开心",     "高兴",     "郁闷", "烦",
            "无聊", "紧张", "害怕", "好怕", "压力好大", "压力很大", "心情",     "饿了", "困了",
            "好困", "激动", "崩溃", "生气", "兴奋",     "期待",     "紧张死了", "疼啊", "好疼"});
  }
  const Cues cues(t);
  return cues.Words({"tired",    "exhausted",  "sad",        "happy",       "bored",
                     "nervous",  "excited",    "stressed",   "anxious",     "upset",
                     "angry",    "annoyed",    "hungry",     "sleepy",      "heartbroken",
                     "thrilled", "miserable",  "devastated", "overwhelmed", "grumpy",
                     "cranky",   "frustrated", "scared",     "terrified",   "worried",
                     "ancient",  "dying"}) &&
         !cues.Words({"always", "usually", "diagnosed", "disorder"});
}

bool IsOrganizationSuffix(std::string_view word) {
  static const std::vector<std::string> suffixes = [] {
    std::vector<std::string> out;
    for (const auto& [key, words] : LexiconEntries("en/graph_names.tsv")) {
      if (key != "organization_suffix") continue;
      for (const std::string& w : words) out.push_back(LowerAscii(w));
    }
    return out;
  }();
  const std::string low = LowerAscii(word);
  return std::find(suffixes.begin(), suffixes.end(), low) != suffixes.end();
}

bool NamesPet(std::string_view text, bool zh) {
  static const auto load = [](const char* file) {
    std::vector<std::string> out;
    for (const auto& [key, words] : LexiconEntries(file)) {
      if (key == "pet") out.insert(out.end(), words.begin(), words.end());
    }
    return out;
  };
  static const std::vector<std::string> en = load("en/pets.tsv"), zh_pets = load("zh/pets.tsv");
  if (zh) {
    return std::any_of(zh_pets.begin(), zh_pets.end(),
                       [&](const std::string& p) { return ContainsText(text, p); });
  }
  const std::string low = " " + LowerAscii(text) + " ";
  return std::any_of(en.begin(), en.end(), [&](const std::string& p) {
    for (size_t k = low.find(p); k != std::string::npos; k = low.find(p, k + 1)) {
      if (!std::isalnum(static_cast<unsigned char>(low[k - 1])) &&
          !std::isalnum(static_cast<unsigned char>(low[k + p.size()]))) {
        return true;
      }
    }
    return false;
  });
}

}  // namespace engram::extract
