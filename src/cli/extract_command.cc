// engram extract — what the write path would extract from a message, without storing anything:
// the candidate memories of the configured extractor (--extractor rules | llm) after the
// privacy policy, in the extraction contract's JSON (extract/candidate_json.h). --jsonl reads
// many messages from standard input, one JSON object per line, and answers one line each.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_app.h"
#include "cli/flag_parsing.h"
#include "engram/privacy.h"
#include "extract/candidate_json.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;

struct ExtractFlags {
  std::string text;
  std::string created_at;
  std::string role = "user";
  bool jsonl = false;
};

class ExtractRunner {
 public:
  explicit ExtractRunner(Context& ctx) : ctx_(ctx) {}

  Status Open() {
    auto policy = PiiPolicy::Parse(ctx_.pii);
    if (!policy.ok()) return policy.status().WithContext("--pii");
    policy_ = std::move(policy).value();
    policy_.hash_key = getenv(ctx_.pii_key_env.c_str()) ? getenv(ctx_.pii_key_env.c_str()) : "";
    auto llm = ctx_.MakeLlm();
    if (!llm.ok()) return llm.status();
    extractor_ = *llm ? std::shared_ptr<Extractor>(MakeLlmExtractor(*llm))
                      : std::shared_ptr<Extractor>(MakeRuleExtractor());
    return Status::Ok();
  }

  // The reply for one message: {"extractor", "memories": [...]}.
  Result<nlohmann::ordered_json> Extract(const std::string& text, const std::string& role,
                                         TimestampMs at) {
    if (text.empty()) return Status::InvalidArgument("the message is empty");
    auto clean = ApplyPiiPolicy(text, policy_);
    if (!clean.ok()) return clean.status();
    ExtractionInput in;
    in.turns.push_back(Turn{role, clean->text, at != 0 ? at : SystemClock::Default()->NowMs(), ""});
    auto r = extractor_->Extract(in);
    if (!r.ok()) return r.status();
    nlohmann::ordered_json memories = nlohmann::ordered_json::array();
    for (const Candidate& c : r->candidates) memories.push_back(CandidateToJson(c));
    return nlohmann::ordered_json{{"extractor", r->extractor}, {"memories", std::move(memories)}};
  }

 private:
  Context& ctx_;
  PiiPolicy policy_;
  std::shared_ptr<Extractor> extractor_;
};

void PrintText(const nlohmann::ordered_json& reply) {
  if (reply["memories"].empty()) {
    std::cout << "nothing to extract\n";
    return;
  }
  for (const auto& m : reply["memories"]) {
    std::cout << "[" << m["type"].get<std::string>() << "] " << m["content"].get<std::string>();
    if (!m["slot"].get<std::string>().empty())
      std::cout << "  slot=" << m["slot"].get<std::string>();
    if (m["exclusive"].get<bool>()) std::cout << " (one value)";
    if (!m["valid_from"].is_null()) std::cout << "  from " << m["valid_from"].get<std::string>();
    for (const auto& e : m["ends"]) std::cout << "  ends \"" << e.get<std::string>() << "\"";
    if (m["correction"].get<bool>()) std::cout << "  correction";
    std::cout << "\n";
  }
}

// Standard input, one {"content", "at"?, "role"?} per line → one reply (or {"error": …}) per
// line. "text" is the deprecated name of "content" (as in POST /v1/memories): accepted, and the
// reply carries a "warnings" entry saying so; both with different values is an error.
int RunLines(Context& ctx, ExtractRunner& runner) {
  std::string line;
  int64_t n = 0;
  bool failed = false;
  while (std::getline(std::cin, line)) {
    ++n;
    if (line.empty()) continue;
    json in = json::parse(line, nullptr, false);
    Status st = Status::Ok();
    nlohmann::ordered_json reply;
    std::string where = "line " + std::to_string(n);
    const bool has_content = in.is_object() && in.contains("content");
    const bool has_text = in.is_object() && in.contains("text");
    std::string warning;
    if (!in.is_object() || (!has_content && !has_text)) {
      st = Status::InvalidArgument(where + ": expected {\"content\": …}");
    } else if ((has_content && !in["content"].is_string()) ||
               (has_text && !in["text"].is_string())) {
      st = Status::InvalidArgument(where + ": \"content\" must be a string");
    } else if (has_content && has_text && in["content"] != in["text"]) {
      st = Status::InvalidArgument(where +
                                   ": \"text\" is the deprecated name of \"content\"; give one");
    } else {
      if (!has_content) warning = "\"text\" is deprecated: use \"content\"";
      const std::string content =
          has_content ? in["content"].get<std::string>() : in["text"].get<std::string>();
      auto at = OptTime(in.value("at", ""));
      if (!at.ok()) {
        st = at.status().WithContext(where);
      } else {
        auto r = runner.Extract(content, in.value("role", "user"), at->value_or(0));
        if (r.ok())
          reply = std::move(r).value();
        else
          st = r.status().WithContext(where);
      }
    }
    if (st.ok() && !warning.empty()) reply["warnings"] = nlohmann::ordered_json::array({warning});
    if (!st.ok()) {
      failed = true;
      reply = nlohmann::ordered_json{
          {"error", {{"code", std::string(StatusCodeName(st.code()))}, {"message", st.message()}}}};
    }
    std::cout << reply.dump() << "\n";
  }
  (void)ctx;
  return failed ? kExitDataErrors : kExitOk;
}

int RunExtract(Context& ctx, const ExtractFlags& f) {
  ExtractRunner runner(ctx);
  if (Status st = runner.Open(); !st.ok()) return ctx.Fail(st);
  if (f.jsonl) {
    if (!f.text.empty())
      return ctx.Fail(Status::InvalidArgument("--jsonl reads standard input; give no text"));
    return RunLines(ctx, runner);
  }
  if (f.text.empty()) return ctx.FailUsage("the text to extract from is required");
  auto at = OptTime(f.created_at);
  if (!at.ok()) return ctx.Fail(at.status().WithContext("--created-at"));
  std::string text = f.text;
  if (text == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  }
  auto reply = runner.Extract(text, f.role, at->value_or(0));
  if (!reply.ok()) return ctx.Fail(reply.status());
  if (ctx.json)
    std::cout << reply->dump() << "\n";
  else
    PrintText(*reply);
  return kExitOk;
}

}  // namespace

void AddExtractCommand(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<ExtractFlags>();
  auto* cmd =
      app.add_subcommand("extract",
                         "Show what the write path would extract from a message, storing nothing "
                         "(--extractor, --pii apply; --json prints the extraction contract)");
  cmd->add_option("text", flags->text, "The message ('-' reads standard input)");
  cmd->add_option("--created-at", flags->created_at,
                  "When it was said (ISO-8601; default now): relative dates resolve from it");
  cmd->add_option("--role", flags->role, "Who said it (user, or a speaker's name)")
      ->capture_default_str();
  cmd->add_flag("--jsonl", flags->jsonl,
                "Read {\"content\", \"at\"?, \"role\"?} objects from standard input, one per "
                "line (\"text\": deprecated name of \"content\"), and print one JSON reply per "
                "line");
  cmd->callback([&ctx, flags] { ctx.action = [&ctx, flags] { return RunExtract(ctx, *flags); }; });
}

}  // namespace engram::cli
