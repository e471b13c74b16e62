#include "retrieval/slot_terms.h"

#include <array>
#include <utility>

namespace engram {
namespace {

using Entry = std::pair<std::string_view, std::string_view>;

// Attributes (the part of a slot after the subject, before ':') and the words asked with them.
constexpr std::array<Entry, 38> kAttributes = {{
    {"work_arrangement", "work remote office home where 上班 在家 办公"},
    {"location", "live lives living home city where 住 住在 家 城市 哪里 哪儿"},
    {"hometown", "from hometown grew born origin 老家 来自 哪里人 出生"},
    {"employer", "work works working company employer job where 公司 上班 工作 单位 哪家"},
    {"work_location", "work works where 上班 工作 哪里"},
    {"job",
     "job work living occupation profession role title do 工作 职业 做什么 干什么 职位 岗位"},
    {"school", "school university college study studies attend 学校 大学 读书 上学 哪个学校"},
    {"major", "major study studying degree 专业 学什么"},
    {"grade", "grade school 年级 几年级 读书"},
    {"partner",
     "partner relationship dating married engaged single boyfriend girlfriend wife "
     "husband fiance 对象 恋爱 结婚 男朋友 女朋友 老公 老婆 关系"},
    {"children", "kids children child how many 孩子 几个 小孩"},
    {"pet", "pet pets animal dog cat name named called 宠物 狗 猫 名字 叫"},
    {"diet", "diet dietary restriction restrictions eat eating food meat 饮食 忌口 吃 吃肉 吃素"},
    {"likes", "like likes love favorite enjoy fan support team 喜欢 爱"},
    {"favorite", "favorite favourite fan support 最喜欢"},
    {"allergy", "allergic allergy allergies 过敏"},
    {"health", "health medical condition conditions doctor 健康 病 身体 医生 慢性病 毛病"},
    {"medication", "medication medicine meds drug take taking pill dose 药 吃药"},
    {"budget", "budget spend how much 预算 多少钱 花"},
    {"amount", "how much 多少 多少钱"},
    {"schedule", "when day time schedule what day 时间 什么时候 哪天 几点 时候"},
    {"device", "use using 用 用的"},
    {"language",
     "language languages native mother tongue learning learn studying speak level 语言 母语 学 "
     "外语 水平"},
    {"name", "name called 名字 叫 叫什么"},
    {"age", "age old how old 岁 年龄 多大 几岁"},
    {"birthday", "birthday born 生日"},
    {"plan", "plan plans going trip when 计划 打算 什么时候"},
    {"goal", "goal goals target aim want 目标 想 打算"},
    {"habit", "habit drink drinks still 习惯 还"},
    {"status", "status now doing how 现在 怎么样"},
    {"email", "email address mail 邮箱 邮件"},
    {"phone", "phone number cell mobile 手机号 电话 号码"},
    {"address", "address live shipping 地址 住址"},
    {"passport", "passport number 护照"},
    {"blood_type", "blood type 血型"},
    {"license_plate", "license plate car 车牌"},
    {"wechat", "wechat 微信"},
    {"id_card", "id card number 身份证"},
}};

// Keys of a keyed attribute that questions ask with words of their own.
constexpr std::array<Entry, 19> kKeys = {{
    {"colorblind", "color colors colour colours"},
    {"rent", "rent pay 房租 租金 月租"},
    {"salary", "salary pay make earn income 工资 收入 薪水 月薪 年薪"},
    {"savings", "save saving savings 存 存钱 存款"},
    {"weight", "weight weigh 体重 多重 斤"},
    {"height", "height tall 身高 多高 个子"},
    {"price", "charge price cost 价格 收费 多少钱"},
    {"allowance", "allowance give 生活费 给"},
    {"mortgage", "mortgage 房贷"},
    {"phone", "phone 手机"},
    {"laptop", "laptop computer 电脑 笔记本"},
    {"ereader", "e-reader reader read books ebooks 阅读器 看书 电子书"},
    {"tablet", "tablet 平板"},
    {"car", "car drive 车 开"},
    {"watch", "watch 手表"},
    {"shift", "shift shifts hours work 班 上班"},
    {"move", "move moving 搬 搬家"},
    {"上班", "work hours start 上班 几点"},
    {"tuition", "tuition 学费"},
}};

std::string_view Lookup(std::string_view key, const auto& table) {
  for (const auto& [k, v] : table) {
    if (k == key) return v;
  }
  return {};
}

}  // namespace

std::string SlotSearchText(std::string_view slot) {
  if (slot.empty()) return "";
  const size_t slash = slot.find('/');
  std::string out;
  std::string_view subject = slash == std::string_view::npos ? slot : slot.substr(0, slash);
  std::string_view rest = slash == std::string_view::npos ? "" : slot.substr(slash + 1);
  if (subject != "user") out += std::string(subject) + " ";
  const size_t colon = rest.find(':');
  std::string_view attribute = rest.substr(0, colon);
  std::string_view key = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
  // "medication:lisinopril", "allowance:妈妈": the nested key is the last part
  if (size_t inner = key.find(':'); inner != std::string_view::npos) {
    if (std::string_view k = Lookup(key.substr(0, inner), kKeys); !k.empty())
      out += std::string(k) + " ";
    key = key.substr(inner + 1);
  }
  if (std::string_view a = Lookup(attribute, kAttributes); !a.empty()) out += std::string(a) + " ";
  if (std::string_view k = Lookup(key, kKeys); !k.empty()) out += std::string(k) + " ";
  for (char c : key) out += c == '_' ? ' ' : c;
  return out;
}

}  // namespace engram
