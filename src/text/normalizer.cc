#include "text/normalizer.h"

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

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

}  // namespace engram
