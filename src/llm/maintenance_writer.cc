// Maintenance's LLM writes (maintenance_writer.h): one request each, no repair round; a bad
// reply is reported and the next run asks again.
#include "llm/maintenance_writer.h"

#include <cctype>
#include <set>

#include "core/status_macros.h"
#include "engram/clock.h"
#include "llm/json_exchange.h"
#include "llm/prompts.h"
#include "text/utf8.h"

namespace engram::llm {
namespace {

// The "summary" string of a reply: trimmed, non-empty, within max_bytes, UTF-8.
Status ReadSummary(const nlohmann::json& doc, size_t max_bytes, std::string* out) {
  auto summary = doc.find("summary");
  if (summary == doc.end() || !summary->is_string())
    return Status::InvalidArgument("no \"summary\" string");
  std::string text = summary->get<std::string>();
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t lead = 0;
  while (lead < text.size() && std::isspace(static_cast<unsigned char>(text[lead]))) ++lead;
  text.erase(0, lead);
  if (text.empty()) return Status::InvalidArgument("empty summary");
  if (text.size() > max_bytes) return Status::InvalidArgument("summary too long");
  if (!IsValidUtf8(text)) return Status::InvalidArgument("not UTF-8");
  *out = std::move(text);
  return Status::Ok();
}

Result<ChatReply> Ask(LlmClient& llm, const Prompt& prompt, std::string_view name,
                      std::string values, int max_tokens) {
  ChatRequest request;
  request.messages = {{"system", std::string(prompt.system)},
                      {"user", FillTemplate(prompt.user_template, {{name, std::move(values)}})}};
  request.max_tokens = max_tokens;
  auto reply = llm.Chat(request);
  if (!reply.ok()) return ProviderFailure(reply.status(), "maintenance");
  return reply;
}

}  // namespace

Result<std::string> WriteTurnSummary(LlmClient& llm, const std::vector<const MemoryItem*>& turns,
                                     size_t max_bytes) {
  std::string listed;
  for (const MemoryItem* t : turns) {
    listed += "[" + FormatTimestamp(t->created_at).substr(0, 16) + "] " +
              (t->source.role.empty() ? std::string("user") : t->source.role) + ": " + t->content +
              "\n";
  }
  ENGRAM_ASSIGN_OR_RETURN(ChatReply reply, Ask(llm, SummarizePrompt(), "turns", listed, 512));
  std::string text;
  const Status checked = CheckJsonReply(
      reply, [&](const nlohmann::json& doc) { return ReadSummary(doc, max_bytes, &text); });
  if (!checked.ok()) {
    return Status::Unavailable("summary reply unusable (" + checked.message() +
                               "); the turns stay as they were");
  }
  return text;
}

Result<ProfileSummary> WriteProfileSummary(LlmClient& llm, const Profile& profile, size_t max_bytes,
                                           TimestampMs now) {
  std::string listed;
  std::set<std::string> ids;
  for (const ProfileSection& section : profile.sections) {
    for (const ProfileLine& line : section.lines) {
      std::string text = line.text;
      for (char& c : text) {
        if (c == '\n') c = ' ';
      }
      listed += "[" + (line.item_ids.empty() ? std::string() : line.item_ids.front()) + "] " +
                section.kind + ": " + text + "\n";
      ids.insert(line.item_ids.begin(), line.item_ids.end());
    }
  }
  ENGRAM_ASSIGN_OR_RETURN(ChatReply reply, Ask(llm, ProfilePrompt(), "lines", listed, 512));
  ProfileSummary out;
  const Status checked = CheckJsonReply(reply, [&](const nlohmann::json& doc) -> Status {
    ENGRAM_RETURN_IF_ERROR(ReadSummary(doc, max_bytes, &out.text));
    auto cites = doc.find("cites");
    if (cites == doc.end() || !cites->is_array() || cites->empty()) {
      return Status::InvalidArgument("no \"cites\" list of memory ids");
    }
    std::set<std::string> seen;
    for (const nlohmann::json& id : *cites) {
      if (!id.is_string()) return Status::InvalidArgument("a cite that is not a string");
      const std::string s = id.get<std::string>();
      if (!ids.count(s))
        return Status::InvalidArgument("cites \"" + s + "\", not a line of the profile");
      if (seen.insert(s).second) out.item_ids.push_back(s);
    }
    return Status::Ok();
  });
  if (!checked.ok()) {
    return Status::Unavailable("profile summary reply unusable (" + checked.message() +
                               "); the summary written before stays");
  }
  out.fingerprint = ProfileFingerprint(profile);
  out.model = llm.model();
  out.prompt_version = std::string(ProfilePrompt().version);
  out.generated_at = now;
  out.current = true;
  return out;
}

}  // namespace engram::llm
