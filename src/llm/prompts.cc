#include "llm/prompts.h"

#include <cstdio>
#include <cstdlib>

namespace engram::llm {
namespace {

constexpr std::string_view kUserMarker = "\n=== user ===\n";

Prompt Split(std::string_view version, std::string_view text) {
  const size_t marker = text.find(kUserMarker);
  if (marker == std::string_view::npos) {
    // A prompt file without its marker is a build mistake that every test of the prompt shows.
    std::fprintf(stderr, "prompt %.*s has no \"=== user ===\" line\n", int(version.size()),
                 version.data());
    std::abort();
  }
  return Prompt{version, text.substr(0, marker), text.substr(marker + kUserMarker.size())};
}

}  // namespace

const Prompt& ExtractPrompt() {
  static const Prompt prompt = Split("extract-v4", kExtractV4Text);
  return prompt;
}

const Prompt& SummarizePrompt() {
  static const Prompt prompt = Split("summarize-v1", kSummarizeV1Text);
  return prompt;
}

const Prompt& ProfilePrompt() {
  static const Prompt prompt = Split("profile-v1", kProfileV1Text);
  return prompt;
}

const Prompt& DecidePrompt() {
  static const Prompt prompt = Split("decide-v1", kDecideV1Text);
  return prompt;
}

std::string FillTemplate(std::string_view tmpl,
                         const std::vector<std::pair<std::string_view, std::string>>& values) {
  std::string out;
  size_t pos = 0;
  while (pos < tmpl.size()) {
    const size_t open = tmpl.find("{{", pos);
    const size_t close = open == std::string_view::npos ? open : tmpl.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    out.append(tmpl.substr(pos, open - pos));
    const std::string_view name = tmpl.substr(open + 2, close - open - 2);
    bool found = false;
    for (const auto& [key, value] : values) {
      if (key == name) {
        out += value;
        found = true;
        break;
      }
    }
    if (!found) out.append(tmpl.substr(open, close + 2 - open));
    pos = close + 2;
  }
  if (pos < tmpl.size()) out.append(tmpl.substr(pos));
  return out;
}

}  // namespace engram::llm
