#include "llm/prompts.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace engram::llm {
namespace {

std::string ReadSource(const std::string& path) {
  std::ifstream in(std::string(ENGRAM_SOURCE_DIR) + "/" + path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The binary carries the files as they are in the repository, byte for byte.
TEST(LlmPromptsTest, CompiledPromptsAreTheFiles) {
  EXPECT_EQ(std::string(kExtractV4Text), ReadSource("prompts/extract-v4.txt"));
  EXPECT_EQ(std::string(kDecideV1Text), ReadSource("prompts/decide-v1.txt"));
  EXPECT_EQ(std::string(kSummarizeV1Text), ReadSource("prompts/summarize-v1.txt"));
  EXPECT_EQ(SummarizePrompt().version, "summarize-v1");
  EXPECT_NE(SummarizePrompt().user_template.find("{{turns}}"), std::string_view::npos);
  EXPECT_EQ(std::string(kProfileV1Text), ReadSource("prompts/profile-v1.txt"));
  EXPECT_EQ(ProfilePrompt().version, "profile-v1");
  EXPECT_NE(ProfilePrompt().user_template.find("{{lines}}"), std::string_view::npos);
  EXPECT_NE(ProfilePrompt().system.find("\"cites\""), std::string_view::npos);
}

TEST(LlmPromptsTest, SplitIntoSystemAndUserTemplate) {
  const Prompt& extract = ExtractPrompt();
  EXPECT_EQ(extract.version, "extract-v4");
  EXPECT_NE(extract.system.find("Example 1"), std::string_view::npos);
  EXPECT_EQ(extract.system.find("=== user ==="), std::string_view::npos);
  for (const char* name : {"{{now}}", "{{context}}", "{{turns}}"}) {
    EXPECT_NE(extract.user_template.find(name), std::string_view::npos) << name;
  }
  const Prompt& decide = DecidePrompt();
  EXPECT_EQ(decide.version, "decide-v1");
  for (const char* name : {"{{candidate}}", "{{neighbours}}"}) {
    EXPECT_NE(decide.user_template.find(name), std::string_view::npos) << name;
  }
  // OpenAI's JSON mode refuses a request whose messages never say "JSON".
  EXPECT_NE(extract.system.find("JSON"), std::string_view::npos);
  EXPECT_NE(decide.system.find("JSON"), std::string_view::npos);
}

TEST(LlmPromptsTest, FillTemplateReplacesKnownNamesOnce) {
  EXPECT_EQ(FillTemplate("a {{x}} b {{y}} {{x}}", {{"x", "1"}, {"y", "{{x}}"}}), "a 1 b {{x}} 1");
  EXPECT_EQ(FillTemplate("{{unknown}} {{", {{"x", "1"}}), "{{unknown}} {{");
  EXPECT_EQ(FillTemplate("", {}), "");
}

}  // namespace
}  // namespace engram::llm
