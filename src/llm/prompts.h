// The versioned prompts under prompts/ (compiled in by CMake) and the one way they are filled.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engram::llm {

// A prompt file is the system message, then a line "=== user ===", then the user message
// template with {{name}} placeholders.
struct Prompt {
  std::string_view version;  // the file name without ".txt": "extract-v4"; recorded with items
  std::string_view system;
  std::string_view user_template;
};

const Prompt& ExtractPrompt();  // prompts/extract-v4.txt
const Prompt& DecidePrompt();   // prompts/decide-v1.txt
// prompts/summarize-v1.txt: faded turns into one summary (the lifecycle's maintenance).
const Prompt& SummarizePrompt();
// prompts/profile-v1.txt: a user's profile lines into a short summary citing them.
const Prompt& ProfilePrompt();

// Replaces each {{name}} of `values` in `tmpl`. Values are inserted verbatim and never
// rescanned, so a placeholder inside user text stays text.
std::string FillTemplate(std::string_view tmpl,
                         const std::vector<std::pair<std::string_view, std::string>>& values);

// The raw file texts, defined in the generated prompt_texts.cc.
extern const char* const kExtractV4Text;
extern const char* const kDecideV1Text;
extern const char* const kSummarizeV1Text;
extern const char* const kProfileV1Text;

}  // namespace engram::llm
