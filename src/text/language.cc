#include "text/language.h"

#include <cstdint>

#include "text/utf8.h"

namespace engram {
namespace {

bool IsHan(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x2FA1F);
}
bool IsKana(char32_t c) { return (c >= 0x3040 && c <= 0x30FF) || (c >= 0x31F0 && c <= 0x31FF); }
bool IsHangul(char32_t c) { return (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0x1100 && c <= 0x11FF); }
bool IsLatin(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7);
}

}  // namespace

Language DetectLanguage(std::string_view text) {
  if (!IsValidUtf8(text)) return Language::kUnknown;
  int64_t han = 0, kana = 0, hangul = 0, latin = 0;
  // The Latin letters of an address ("我邮箱是xiaoyu_chen@163.com", a URL) are no language: a
  // run of ASCII with '@' or "://" in it, or starting "www.", is not counted.
  int64_t run_latin = 0;      // the Latin letters of the ASCII run being read
  int64_t address_latin = 0;  // … and of the addresses, for a text that is one ("a@b.com")
  size_t run_begin = 0;
  bool in_run = false;
  auto end_run = [&](size_t at) {
    const std::string_view run = text.substr(run_begin, at - run_begin);
    const bool address = run.find('@') != std::string_view::npos ||
                         run.find("://") != std::string_view::npos || run.starts_with("www.");
    (address ? address_latin : latin) += run_latin;
    run_latin = 0;
    in_run = false;
  };
  for (size_t i = 0; i < text.size();) {
    const size_t at = i;
    const char32_t c = NextCodepoint(text, &i);
    const bool ascii_word = c < 0x80 && c != ' ' && c != '\t' && c != '\n' && c != '\r';
    if (ascii_word && !in_run) {
      in_run = true;
      run_begin = at;
    } else if (!ascii_word && in_run) {
      end_run(at);
    }
    han += IsHan(c);
    kana += IsKana(c);
    hangul += IsHangul(c);
    if (IsLatin(c)) ++(in_run ? run_latin : latin);
  }
  if (in_run) end_run(text.size());
  if (kana > 0) return Language::kJapanese;
  if (han == 0 && hangul == 0 && latin == 0) {
    return address_latin > 0 ? Language::kLatin : Language::kUnknown;
  }
  if (hangul > 2 * han && hangul >= latin) return Language::kKorean;
  if (2 * han >= latin) return Language::kChinese;
  return Language::kLatin;
}

bool HasHan(std::string_view text) {
  if (!IsValidUtf8(text)) return false;
  for (size_t i = 0; i < text.size();) {
    if (IsHan(NextCodepoint(text, &i))) return true;
  }
  return false;
}

std::string_view LanguageCode(Language language) {
  switch (language) {
    case Language::kChinese:
      return "zh";
    case Language::kJapanese:
      return "ja";
    case Language::kKorean:
      return "ko";
    case Language::kLatin:
      return "en";
    case Language::kUnknown:
      break;
  }
  return "";
}

}  // namespace engram
