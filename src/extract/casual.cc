#include "extract/casual.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <vector>

#include "extract/clauses.h"
#include "text/lexicon_data.h"
#include "text/normalizer.h"
#include "text/utf8.h"

namespace engram::extract {
namespace {

// Variant (lowercase) → standard; an empty standard drops the word.
const std::unordered_map<std::string, std::string>& Table() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string, std::string>;
    for (const auto& [standard, variants] : LexiconEntries("en/casual.tsv")) {
      for (const std::string& v : variants) (*t)[v] = standard == "-" ? "" : standard;
    }
    return t;
  }();
  return *table;
}

// A word's characters: letters and the apostrophe and slash a casual spelling holds ("i'm",
// "w/", "b/c"). Digits count too, so "b4" is one word and "4x" is not "x".
bool WordChar(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return std::isalnum(c) || c == '\'' || c == '/' || c >= 0x80;
}

// The last word written to `out` is an article or a possessive ("a", "an", "the", "my", …).
bool PrecededByDeterminer(const std::string& out) {
  size_t e = out.size();
  while (e > 0 && out[e - 1] == ' ') --e;
  if (e == out.size()) return false;  // no space: not a word before this one
  size_t b = e;
  while (b > 0 && WordChar(out[b - 1])) --b;
  const std::string before = LowerAscii(std::string_view(out).substr(b, e - b));
  for (std::string_view d : {"a", "an", "the", "my", "our", "his", "her", "their"}) {
    if (before == d) return true;
  }
  return false;
}

}  // namespace

std::string UnshoutEn(std::string_view text) {
  // the words of the text: [begin, end) of each run of letters (an apostrophe within: "DON'T")
  struct Word {
    size_t b, e;
    bool upper;  // every letter a capital
    bool long_;  // two letters or more ("I" and "A" alone make no shouting)
  };
  std::vector<Word> words;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!std::isalpha(c)) {
      ++i;
      continue;
    }
    size_t e = i;
    bool upper = true;
    size_t letters = 0;
    while (e < text.size() && (std::isalpha(static_cast<unsigned char>(text[e])) ||
                               (text[e] == '\'' && e + 1 < text.size() &&
                                std::isalpha(static_cast<unsigned char>(text[e + 1]))))) {
      if (std::islower(static_cast<unsigned char>(text[e]))) upper = false;
      letters += text[e] != '\'';
      ++e;
    }
    words.push_back({i, e, upper, letters >= 2});
    i = e;
  }
  std::string out(text);
  for (size_t w = 0; w < words.size();) {
    size_t end = w;
    size_t long_words = 0;
    while (end < words.size() && words[end].upper) long_words += words[end++].long_;
    if (end - w >= 3 && long_words >= 2) {
      for (size_t k = w; k < end; ++k) {
        for (size_t i = words[k].b; i < words[k].e; ++i) {
          out[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[i])));
        }
      }
    }
    w = end == w ? w + 1 : end;
  }
  return out;
}

std::string WithoutAddressTermsEn(std::string_view text) {
  static constexpr std::string_view kCourtesies[] = {
      "sorry", "thanks", "thank you", "yes", "no", "ok", "okay", "please", "pardon", "morning"};
  static constexpr std::string_view kTerms[] = {"ma'am", "maam", "madam", "mam", "ma", "sir"};
  std::string out(text);
  const std::string low = LowerAscii(text);
  // (right to left, so that each cut leaves the offsets before it as they were)
  for (size_t k = low.size(); k-- > 0;) {
    if (k > 0 && std::isalpha(static_cast<unsigned char>(low[k - 1]))) continue;
    for (std::string_view c : kCourtesies) {
      if (low.compare(k, c.size(), c) != 0) continue;
      size_t t = k + c.size();
      if (t >= low.size() || low[t] != ' ') continue;
      ++t;
      for (std::string_view term : kTerms) {
        const size_t e = t + term.size();
        if (low.compare(t, term.size(), term) == 0 &&
            (e == low.size() || !std::isalpha(static_cast<unsigned char>(low[e])))) {
          out.erase(t - 1, term.size() + 1);  // the space before it, and it
          break;
        }
      }
      break;
    }
  }
  return out;
}

std::string NormalizeCasualEn(std::string_view text) {
  const auto& table = Table();
  std::string out;
  out.reserve(text.size() + 16);
  size_t i = 0;
  while (i < text.size()) {
    if (!WordChar(text[i])) {
      out += text[i++];
      continue;
    }
    size_t e = i;
    while (e < text.size() && WordChar(text[e])) ++e;
    std::string_view word = text.substr(i, e - i);
    // "w/o" and "w/" are words; "and/or" and "24/7" are not in the table and stay. No variant is
    // longer than 8 letters: a longer word is kept without a look-up.
    if (word.size() > 8) {
      out.append(word);
      i = e;
      continue;
    }
    auto it = table.find(LowerAscii(word));
    // After an article or a possessive the word is a noun: "as an RN" is a nurse, not "as an
    // right now". A phrase of several words ("right now", "to be honest") is never one; a word
    // may be ("my bf" is "my boyfriend", "a lil" "a little").
    if (it != table.end() && it->second.find(' ') != std::string::npos &&
        PrecededByDeterminer(out)) {
      it = table.end();
    }
    if (it == table.end() && word.ends_with('/')) {
      // "w/": the slash is the word's; "them/" is a word and a slash
      it = table.find(LowerAscii(word.substr(0, word.size() - 1)));
      if (it != table.end()) {
        out += it->second.empty() ? "" : it->second;
        out += '/';
        i = e;
        continue;
      }
    }
    if (it == table.end()) {
      out.append(word);
    } else if (!it->second.empty()) {
      out += it->second;
    } else {
      // A dropped marker: the space before it goes, and a comma right after it with its space
      // ("ngl, i go" → "i go"; "i go lol, anyway" → "i go, anyway").
      while (!out.empty() && out.back() == ' ') out.pop_back();
      size_t k = e;
      if (out.empty() || out.back() == ',' || out.back() == '.') {
        while (k < text.size() && (text[k] == ',' || text[k] == ' ')) ++k;
        if (!out.empty() && k < text.size()) out += ' ';
      }
      e = k;
    }
    i = e;
  }
  // Leading spaces a dropped first word leaves
  const size_t b = out.find_first_not_of(' ');
  return b == std::string::npos ? std::string() : out.substr(b);
}

namespace {

// "我 用 的 是 华为 手机 ，字 太 小 了": a space after nearly every word, as some older users
// and some input methods type, separates words, not clauses. Four chunks or more between spaces,
// most (seven in ten) of the Chinese ones one or two characters long, and at most one longer
// than four ("帮我改下签名 张伟 高级前端 手机…" is a list of clauses).
bool SpacedWordByWordZh(std::string_view text) {
  size_t chunks = 0, short_chunks = 0, cjk_chunks = 0, long_chunks = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t cjk = 0, other = 0;
    while (i < text.size()) {
      size_t k = i;
      const char32_t c = NextCodepoint(text, &k);
      if (c == U' ' || c == U'\u3000') break;
      (IsCjkCodepoint(c) ? cjk : other) += 1;
      i = k;
    }
    if (cjk + other > 0) {
      ++chunks;
      if (cjk > 0) {
        ++cjk_chunks;
        short_chunks += cjk <= 2;
        long_chunks += cjk > 4;
      }
    }
    while (i < text.size()) {
      size_t k = i;
      const char32_t c = NextCodepoint(text, &k);
      if (c != U' ' && c != U'\u3000') break;
      i = k;
    }
  }
  return chunks >= 4 && cjk_chunks > 0 && short_chunks * 10 >= cjk_chunks * 7 && long_chunks <= 1;
}

}  // namespace

std::string SpacesAsCommasZh(std::string_view text) {
  if (SpacedWordByWordZh(text)) {
    // the spaces go where Chinese (or its punctuation) meets Chinese; a Latin word keeps them
    std::string out;
    out.reserve(text.size());
    char32_t before = 0;
    size_t i = 0;
    while (i < text.size()) {
      const size_t start = i;
      const char32_t c = NextCodepoint(text, &i);
      if (c == U' ' || c == U'\u3000') {
        size_t end = i;
        char32_t after = 0;
        while (end < text.size()) {
          size_t k = end;
          after = NextCodepoint(text, &k);
          if (after != U' ' && after != U'\u3000') break;
          after = 0;
          end = k;
        }
        auto chinese = [](char32_t x) {
          return IsCjkCodepoint(x) || (x >= 0x3000 && x <= 0x303F) || (x >= 0xFF00 && x <= 0xFFEF);
        };
        if (!(chinese(before) || chinese(after))) out.append(text.substr(start, end - start));
        i = end;
        continue;
      }
      out.append(text.substr(start, i - start));
      before = c;
    }
    return out;
  }
  std::string out;
  out.reserve(text.size() + 8);
  char32_t before = 0;  // the codepoint before the current run of spaces
  // The Latin word or number before the spaces is written onto a Chinese word ("做PM 压力好大",
  // "是iPhone 12 不是13"): it ends a clause as a Chinese word would. One set apart by spaces on
  // both sides ("我在 Google 工作") is a word inside the clause.
  bool attached = false;
  bool after_space = false;
  size_t i = 0;
  while (i < text.size()) {
    const size_t start = i;
    const char32_t c = NextCodepoint(text, &i);
    if (c != U' ' && c != U'\u3000') {
      if (!IsCjkCodepoint(c)) {
        if (IsCjkCodepoint(before) && !after_space) attached = true;
        if (after_space && IsCjkCodepoint(before)) attached = false;
      } else {
        attached = false;
      }
      out.append(text.substr(start, i - start));
      before = c;
      after_space = false;
      continue;
    }
    size_t end = i;
    while (end < text.size()) {
      size_t k = end;
      const char32_t d = NextCodepoint(text, &k);
      if (d != U' ' && d != U'\u3000') break;
      end = k;
    }
    size_t k = end;
    const char32_t after = end < text.size() ? NextCodepoint(text, &k) : 0;
    // "7点半 7点是我老公出门": a number or Latin word written onto the Chinese after it starts
    // a clause too
    bool leads_on = false;
    if (IsCjkCodepoint(before) && !IsCjkCodepoint(after) && after != 0) {
      size_t m = end;
      while (m < text.size()) {
        size_t n = m;
        const char32_t d = NextCodepoint(text, &n);
        if (d == U' ' || d == U'\u3000' || IsCjkCodepoint(d)) {
          leads_on = IsCjkCodepoint(d);
          break;
        }
        if (d < 0x80 && !std::isalnum(static_cast<unsigned char>(d))) break;
        m = n;
      }
    }
    // "310013 刚才输错了": a number or Latin word that opens the message, then Chinese, is a
    // clause of its own (a value said first)
    const bool opens =
        !out.empty() && IsCjkCodepoint(after) && std::none_of(out.begin(), out.end(), [](char ch) {
          return ch == ' ' || static_cast<unsigned char>(ch) >= 0x80;
        });
    // "我邮箱是 a_b@163.com 以后发这个": an address is a value, not a word inside a phrase ("我在
    // Google 工作"): the Chinese after it starts a clause
    bool address = false;
    if (IsCjkCodepoint(after)) {
      size_t word = out.size();  // the ASCII word just written
      while (word > 0 && out[word - 1] != ' ' && static_cast<unsigned char>(out[word - 1]) < 0x80)
        --word;
      const std::string_view last = std::string_view(out).substr(word);
      address =
          last.find('@') != std::string_view::npos || last.find("://") != std::string_view::npos;
    }
    if ((IsCjkCodepoint(after) && (IsCjkCodepoint(before) || attached)) || leads_on || opens ||
        address) {
      out += "，";
    } else {
      out.append(text.substr(start, end - start));
    }
    after_space = true;
    i = end;
  }
  return out;
}

std::string CorrectionWithoutStopsZh(std::string_view given) {
  std::string text(given);
  const size_t bu = text.find("不是");
  // (at the start, or after a comma: three bytes before it, when there are three)
  if (bu == std::string::npos || (bu != 0 && (bu < 3 || text.compare(bu - 3, 3, "，") != 0))) {
    return text;
  }
  // the value taken back is at most eight characters, with no comma or 我 in it, and the 是 that
  // gives the value is not "就是", "还是", "也是"
  const size_t shi = text.find("是", bu + 6);
  if (shi == std::string::npos || shi == bu + 6 || shi - bu > 6 + 8 * 3) return text;
  for (std::string_view lead : {"，", "就", "还", "也"}) {
    if (text.compare(shi - 3, 3, lead) == 0) return text;
  }
  const std::string_view between = std::string_view(text).substr(bu + 6, shi - bu - 6);
  if (between.find("，") != std::string_view::npos ||
      between.find("我") != std::string_view::npos) {
    return text;
  }
  text.insert(shi, "，");
  // "…是浙工大刚才语音识别错了": what follows the value is the slip's talk
  for (std::string_view just : {"刚才", "刚刚"}) {
    const size_t k = text.find(just, shi + 3);
    if (k != std::string::npos && text.compare(k - 3, 3, "，") != 0) {
      text.insert(k, "，");
      break;
    }
  }
  return text;
}

namespace {

// A role is words ("paralegal", "night-shift nurse", "老师"), not punctuation (":e 00").
bool RoleWords(std::string_view role) {
  return std::all_of(role.begin(), role.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == ' ' || c == '-' || c == '\'' ||
           static_cast<unsigned char>(c) >= 0x80;
  });
}

}  // namespace

std::string RolesAsStatements(std::string_view text, bool zh) {
  std::string out(text);
  if (zh) {
    for (std::string_view lead : {"作为一个", "作为一名", "作为一位", "作为"}) {
      const size_t k = out.find(lead);
      if (k == std::string::npos) continue;
      // the role ends at the comma, or at the 我 that starts the statement
      const size_t start = k + lead.size();
      size_t end = out.find("，", start);
      const size_t me = out.find("我", start);
      if (me != std::string::npos && (end == std::string::npos || me < end)) end = me;
      if (end == std::string::npos || end == start || end - start > 24) return out;
      const std::string role = out.substr(start, end - start);
      if (role.find("我") != std::string::npos || role.find("你") != std::string::npos) return out;
      const bool comma = out.compare(end, 3, "，") == 0;
      out = out.substr(0, k) + "我是" + role + "，" + out.substr(comma ? end + 3 : end);
      return out;
    }
    return out;
  }
  const std::string low = LowerAscii(out);
  // "as a paralegal i …", "As an ER nurse, I …" (at the start of a sentence)
  for (std::string_view lead : {"as a ", "as an "}) {
    if (!low.starts_with(lead)) continue;
    const size_t start = lead.size();
    size_t end = std::string::npos;
    for (std::string_view stop : {", ", " i ", " i'm ", " i've ", " my ", " we "}) {
      const size_t k = low.find(stop, start);
      if (k != std::string::npos && (end == std::string::npos || k < end)) end = k;
    }
    if (end == std::string::npos || end == start) return out;
    const std::string role = out.substr(start, end - start);
    if (std::count(role.begin(), role.end(), ' ') > 4) return out;
    // a role is words ("paralegal", "night-shift nurse"), not punctuation (":e 00")
    if (!RoleWords(role) || !std::isalpha(static_cast<unsigned char>(role[0]))) {
      return out;
    }
    // "as a kid i loved trains": a time of life, not a role held now
    for (std::string_view past : {"kid", "child", "teen", "teenager", "baby", "boy", "girl"}) {
      if (LowerAscii(role) == past) return out;
    }
    const size_t rest = out.compare(end, 2, ", ") == 0 ? end + 2 : end + 1;
    return "I am " + std::string(lead.substr(3)) + role + ". " + out.substr(rest);
  }
  // "being a pharmacist in retail is brutal"
  for (std::string_view lead : {"being a ", "being an "}) {
    const size_t k = low.find(lead);
    if (k == std::string::npos || (k > 0 && low[k - 1] != ' ' && low[k - 1] != ',')) continue;
    const size_t start = k + lead.size();
    const size_t end = low.find(" is ", start);
    if (end == std::string::npos) return out;
    const std::string role = out.substr(start, end - start);
    if (std::count(role.begin(), role.end(), ' ') > 4 || role.empty() || !RoleWords(role)) {
      return out;
    }
    // the role is said before the sentence that holds it
    size_t sentence = out.rfind(". ", k);
    sentence = sentence == std::string::npos ? 0 : sentence + 2;
    return out.substr(0, sentence) + "I am " + std::string(lead.substr(6)) + role + ". " +
           out.substr(sentence);
  }
  return out;
}

}  // namespace engram::extract
