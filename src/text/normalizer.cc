#include "text/normalizer.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <cctype>
#include <vector>

#include "text/utf8.h"

namespace engram {

std::string NormalizeForMatching(std::string_view text) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(status);
  if (U_FAILURE(status)) return std::string(text);  // ICU data missing: match unnormalized
  icu::UnicodeString in = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  icu::UnicodeString out = nfkc_cf->normalize(in, status);
  if (U_FAILURE(status)) return std::string(text);
  std::string result;
  out.toUTF8String(result);
  return result;
}

bool IsCjkCodepoint(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) ||    // CJK Unified Ideographs
         (c >= 0x3400 && c <= 0x4DBF) ||    // Extension A
         (c >= 0x20000 && c <= 0x2EBEF) ||  // Extensions B–F
         (c >= 0xF900 && c <= 0xFAFF) ||    // Compatibility Ideographs
         (c >= 0x3040 && c <= 0x30FF) ||    // Hiragana, Katakana
         (c >= 0x31F0 && c <= 0x31FF) ||    // Katakana extensions
         (c >= 0xAC00 && c <= 0xD7AF);      // Hangul syllables
}

std::string WithoutKaomoji(std::string_view text) {
  if (text.find('(') == std::string_view::npos &&
      text.find("\xEF\xBC\x88") == std::string_view::npos) {  // （
    return std::string(text);
  }
  // the text's code points, with their byte offsets
  std::vector<std::pair<size_t, char32_t>> cps;
  for (size_t i = 0; i < text.size();) {
    const size_t at = i;
    cps.emplace_back(at, NextCodepoint(text, &i));
  }
  auto letter = [](char32_t c) { return c < 0x80 && std::isalpha(static_cast<int>(c)); };
  auto han = [](char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF);
  };
  // what may stand against a face: anything but a space, a Han character, an ASCII letter or
  // digit, and the punctuation that ends a clause
  auto arm = [&](char32_t c) {
    return (c > 0x7F || c == '/' || c == '\\') && !han(c) && c != 0x3002 && c != 0xFF0C &&
           c != 0xFF01 && c != 0xFF1F && c != 0x3001;
  };
  std::vector<bool> drop(cps.size(), false);
  for (size_t k = 0; k < cps.size(); ++k) {
    if (cps[k].second != '(' && cps[k].second != 0xFF08) continue;
    size_t close = k + 1;
    while (close < cps.size() && close - k <= 16 && cps[close].second != ')' &&
           cps[close].second != 0xFF09) {
      ++close;
    }
    if (close >= cps.size() || close - k > 16 || close == k + 1) continue;
    bool face = true;
    bool odd = false;  // something no bracketed word holds: a face has one
    for (size_t j = k + 1; j < close && face; ++j) {
      const char32_t c = cps[j].second;
      if (han(c) || (letter(c) && j + 1 < close && letter(cps[j + 1].second))) face = false;
      odd = odd || c > 0x7F || c == '^' || c == '_' || c == ';' || c == '*';
    }
    if (!face || !odd) continue;
    size_t b = k, e = close + 1;
    while (b > 0 && arm(cps[b - 1].second)) --b;
    while (e < cps.size() && arm(cps[e].second)) ++e;
    for (size_t j = b; j < e; ++j) drop[j] = true;
    k = e - 1;
  }
  std::string out;
  out.reserve(text.size());
  for (size_t k = 0; k < cps.size(); ++k) {
    if (drop[k]) {
      // a face between two words leaves a space, so that they are not joined into one nobody
      // typed ("pI(…)e" is not "pIe")
      if (k + 1 < cps.size() && !drop[k + 1] && !out.empty() && out.back() != ' ' &&
          cps[k + 1].second != ' ') {
        out += ' ';
      }
      continue;
    }
    const size_t end = k + 1 < cps.size() ? cps[k + 1].first : text.size();
    out.append(text.substr(cps[k].first, end - cps[k].first));
  }
  return out;
}

}  // namespace engram
