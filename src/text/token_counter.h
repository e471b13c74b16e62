// An approximate LLM token count, used to keep packed context under a budget. It errs high:
// each CJK character counts as one token, other words as one token per 4.5 bytes (rounded up),
// and each punctuation mark or symbol as one; byte-pair tokenizers of current models produce
// fewer tokens than this for English and about as many for Chinese.
#pragma once

#include <string_view>

namespace engram {

int CountTokens(std::string_view utf8_text);

}  // namespace engram
