#include "cli/cli_app.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command_help.h"
#include "storage/postgres.h"

namespace engram::cli {
namespace {

std::string EnvOr(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : std::move(fallback);
}

constexpr const char* kExitCodes =
    "Exit codes: 0 ok, 1 error, 2 usage, 3 not found, 4 conflict, 5 import rejected lines, "
    "6 purge traces";
constexpr const char* kEnvironment =
    "Environment: ENGRAM_DB, ENGRAM_TENANT, ENGRAM_USER, ENGRAM_MAX_CONTENT_BYTES, "
    "ENGRAM_EMBEDDER,\n  ENGRAM_EMBED_URL, ENGRAM_EMBED_MODEL, ENGRAM_EXTRACTOR, ENGRAM_LLM_URL, "
    "ENGRAM_LLM_MODEL, ENGRAM_PII,\n  and those shown as Env: above.";

// The global options' groups. `engram help` shows those of kEssential; `engram help flags`
// every group, in this order.
constexpr const char* kEssential = "Options";
constexpr const char* kMore = "More options";
constexpr const char* kResources = "Memory and storage";
constexpr const char* kWritePath = "Write path: extraction, LLM, privacy";
constexpr const char* kEmbedding = "Embedding";
constexpr const char* kLifecycle = "Lifecycle: retention and maintenance";

const CommandHelp* FindCommandHelp(std::string_view path) {
  for (const CommandHelp& c : kCommandHelp) {
    if (c.path == path) return &c;
  }
  return nullptr;
}

std::string ExampleOf(std::string_view path) {
  const CommandHelp* c = FindCommandHelp(path);
  return c ? std::string(c->example) : std::string();
}

// The command as typed, "bench locomo"; empty for the root.
std::string CommandPath(const CLI::App* cmd) {
  std::string path;
  for (; cmd->get_parent() != nullptr; cmd = cmd->get_parent()) {
    path = path.empty() ? cmd->get_name() : cmd->get_name() + " " + path;
  }
  return path;
}

// The deepest command named on the command line, even when its parsing failed.
const CLI::App* SelectedCommand(const CLI::App& app) {
  const CLI::App* cmd = &app;
  while (!cmd->get_subcommands().empty()) cmd = cmd->get_subcommands().front();
  return cmd;
}

// `engram help`: the commands first, one line each (kCommandHelp), then the few options a first
// session needs; the rest is under `engram help flags`. A command's help keeps CLI11's layout.
class RootHelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    if (app->get_parent() != nullptr || mode != CLI::AppFormatMode::Normal) {
      return Formatter::make_help(app, std::move(name), mode);
    }
    std::ostringstream out;
    out << app->get_description() << "\nUsage: engram [OPTIONS] COMMAND [ARGS]...   "
        << "(options may also follow the command)\n\nCommands:\n";
    size_t width = 0;
    for (const CommandHelp& c : kCommandHelp) width = std::max(width, c.listing.size());
    auto line = [&](std::string_view left, std::string_view right) {
      out << "  " << std::left << std::setw(static_cast<int>(width) + 2) << left << right << "\n";
    };
    for (const CommandHelp& c : kCommandHelp) {
      if (!c.listing.empty()) line(c.listing, c.summary);
    }
    for (const CLI::App* sub : app->get_subcommands({})) {  // one the table lacks still shows
      if (FindCommandHelp(sub->get_name()) == nullptr) {
        line(sub->get_name(), sub->get_description());
      }
    }
    CLI::Formatter options;  // aligned with the commands' summaries
    options.column_width(width + 4);
    out << options.make_group("Options (every one: engram help flags)", false,
                              app->get_options([](const CLI::Option* o) {
                                return o->get_group() == kEssential && o->nonpositional();
                              }))
        << "\n"
        << kExitCodes << "\n";
    return out.str();
  }
};

// `engram help flags`: every global option, by group.
std::string FlagsHelp(const CLI::App& app) {
  std::ostringstream out;
  out << "Every global option of engram: give it before or after the command, at the top of a "
         "--config file,\nor by the environment variable named.\n"
      << "Usage: engram [OPTIONS] COMMAND [ARGS]...\n";
  std::vector<std::string> groups = {kEssential, kMore,      kWritePath,
                                     kEmbedding, kResources, kLifecycle};
  for (const std::string& group : app.get_groups()) {  // any other, after these
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
  }
  const CLI::Formatter formatter;
  for (const std::string& group : groups) {
    auto options = app.get_options(
        [&group](const CLI::Option* o) { return o->get_group() == group && o->nonpositional(); });
    if (!options.empty()) out << formatter.make_group(group, false, options);
  }
  out << "\n" << kEnvironment << "\n" << kExitCodes << "\n";
  return out.str();
}

int RunHelp(const CLI::App& app, const Context& ctx, const std::vector<std::string>& topic) {
  if (topic.empty()) {  // app.help() would show the help of the command running: `help`
    std::cout << app.get_formatter()->make_help(&app, "engram", CLI::AppFormatMode::Normal);
    return kExitOk;
  }
  if (topic.size() == 1 && topic[0] == "flags") {
    std::cout << FlagsHelp(app);
    return kExitOk;
  }
  if (topic.size() == 1 && topic[0] == "all") {  // every command with its options (engram.1)
    std::cout << "Every command of engram with its options; the global options are under "
                 "`engram help flags`.\n"
              << CLI::Formatter().make_subcommands(&app, CLI::AppFormatMode::All);
    return kExitOk;
  }
  const CLI::App* cmd = &app;
  for (const std::string& word : topic) {
    auto found = cmd->get_subcommands([&word](const CLI::App* s) { return s->get_name() == word; });
    if (found.empty()) {
      return ctx.FailUsage("no command '" + CommandPath(cmd) + (cmd == &app ? "" : " ") + word +
                           "': `engram help` lists them");
    }
    cmd = found.front();
  }
  const std::string parent = CommandPath(cmd->get_parent());
  std::cout << cmd->help(parent.empty() ? "engram" : "engram " + parent);
  return kExitOk;
}

void AddHelpCommand(CLI::App& app, Context& ctx) {
  auto topic = std::make_shared<std::vector<std::string>>();
  CLI::App* help = app.add_subcommand(
      "help",
      "The commands (engram help), every global option (engram help flags), a command's "
      "options (engram help COMMAND), or every command's (engram help all)");
  help->add_option("topic", *topic, "flags, all, or a command: add, bench locomo, ...");
  help->callback([&app, &ctx, topic] {
    ctx.action = [&app, &ctx, topic] { return RunHelp(app, ctx, *topic); };
  });
}

// Each command's help ends with its example.
void AddExamples(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    const std::string example = ExampleOf(CommandPath(sub));
    if (!example.empty() && sub->get_footer().empty()) sub->footer("Example: " + example);
    AddExamples(*sub);
  }
}

// A usage error; with an example of the command (kCommandHelp) when there is one.
int FailWithExample(const Context& ctx, const std::string& message, const std::string& example) {
  if (example.empty()) return ctx.Fail(Status::InvalidArgument(message));
  if (ctx.json) return ctx.Fail(Status::InvalidArgument(message + " (e.g. " + example + ")"));
  const int code = ctx.Fail(Status::InvalidArgument(message));
  std::cerr << "  e.g. " << example << "\n";
  return code;
}

// A command-line error: what is wrong, what a missing argument is, an example of the command
// (when an argument is missing or too many were given) and where its help is.
int FailParse(const CLI::App& app, const CLI::ParseError& e, const Context& ctx) {
  const CLI::App* cmd = SelectedCommand(app);
  const std::string path = CommandPath(cmd);
  std::string message = e.what();
  const bool required = dynamic_cast<const CLI::RequiredError*>(&e) != nullptr;
  if (required && cmd->get_require_subcommand_min() > 0 && cmd->get_subcommands().empty()) {
    message = "which command?";  // CLI11 says "A subcommand is required"
    if (cmd != &app) {
      for (const CLI::App* sub : cmd->get_subcommands({})) message += " " + sub->get_name();
    }
  } else if (required) {
    auto missing =
        cmd->get_options([](const CLI::Option* o) { return o->get_required() && o->count() == 0; });
    if (!missing.empty() && !missing.front()->get_description().empty()) {
      std::string what = missing.front()->get_description();
      // "The latest turns" reads "the latest turns" after the colon; "LoCoMo's" stays.
      const size_t word = std::min(what.find(' '), what.size());
      if (std::none_of(what.begin() + 1, what.begin() + word,
                       [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; })) {
        what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
      }
      message += ": " + what;
    }
  }
  const bool show_example = required || dynamic_cast<const CLI::ArgumentMismatch*>(&e) ||
                            dynamic_cast<const CLI::ExtrasError*>(&e);
  const int code = FailWithExample(ctx, message, show_example ? ExampleOf(path) : "");
  if (!ctx.json) std::cerr << "  More: engram help" << (path.empty() ? "" : " " + path) << "\n";
  return code;
}

// "preference=90" → (preference, 90 days).
Result<std::pair<MemoryType, double>> ParseHalfLife(const std::string& entry) {
  const size_t eq = entry.find('=');
  if (eq == std::string::npos) {
    return Status::InvalidArgument("expected TYPE=DAYS, got '" + entry + "'");
  }
  auto type = ParseMemoryType(entry.substr(0, eq));
  if (!type.ok()) return type.status();
  const std::string days_text = entry.substr(eq + 1);
  char* end = nullptr;
  const double days = std::strtod(days_text.c_str(), &end);
  if (days_text.empty() || end != days_text.c_str() + days_text.size() || !(days >= 0) ||
      days > 36500) {
    return Status::InvalidArgument("days must be a number 0..36500, got '" + days_text + "'");
  }
  return std::pair{*type, days};
}

}  // namespace

size_t Context::DefaultIndexMemoryMb() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const size_t ram_mb = pages > 0 && page > 0 ? static_cast<size_t>(pages) * page >> 20 : 0;
  return std::max<size_t>(2048, ram_mb / 4);
}

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kInvalidArgument:
    case StatusCode::kPermissionDenied:  // e.g. the wrong encryption key
      return kExitUsage;
    case StatusCode::kNotFound:
      return kExitNotFound;
    case StatusCode::kConflict:
      return kExitConflict;
    default:
      return kExitInternal;
  }
}

int Context::Fail(const Status& status) const {
  if (json) {
    nlohmann::json body = {
        {"error", {{"code", StatusCodeName(status.code())}, {"message", status.message()}}}};
    std::cerr << body.dump() << "\n";
  } else {
    std::cerr << "engram: " << status.message() << " (" << StatusCodeName(status.code()) << ")\n";
  }
  last_exit = ExitCodeFor(status);
  return last_exit;
}

Result<std::shared_ptr<Embedder>> Context::MakeEmbedder() const {
  if (embedder == "hash") {
    auto e = MakeHashEmbedder({.dimension = embed_dim});
    if (!e.ok()) return e.status();
    return std::shared_ptr<Embedder>(std::move(e).value());
  }
  if (embedder == "openai") {
    OpenAIEmbedderOptions o;
    o.base_url = embed_url;
    o.model = embed_model;
    o.api_key_env = embed_key_env;
    o.dimension = embed_dim;
    auto e = MakeOpenAIEmbedder(o);
    if (!e.ok()) return e.status();
    return std::shared_ptr<Embedder>(std::move(e).value());
  }
  return Status::InvalidArgument("--embedder must be hash or openai, got '" + embedder + "'");
}

bool Context::RequireDatabase() {
  // A PostgreSQL server: whether its database holds Engram's tables is for opening to say.
  if (IsPostgresUrl(db_path)) return true;
  std::error_code ec;
  if (std::filesystem::exists(db_path, ec)) return true;
  Fail(Status::NotFound("no database at " + db_path + " (only commands that write create one)"));
  return false;
}

bool Context::LoadKey() {
  if (key) return true;
  if (!key_file.empty()) {
    auto loaded = EncryptionKey::FromFile(key_file);
    if (!loaded.ok()) {
      Fail(loaded.status().WithContext("--key-file"));
      return false;
    }
    key = std::make_shared<const EncryptionKey>(*loaded);
  } else if (const char* hex = std::getenv("ENGRAM_KEY"); hex && *hex) {
    auto loaded = EncryptionKey::FromHex(hex);
    if (!loaded.ok()) {
      Fail(loaded.status().WithContext("ENGRAM_KEY"));
      return false;
    }
    key = std::make_shared<const EncryptionKey>(*loaded);
  }
  return true;
}

Engine* Context::OpenEngine(bool create) {
  if (engine) return engine.get();
  if (!LoadKey()) return nullptr;
  EngineOptions options;
  options.path = db_path;
  options.encryption_key = key;
  options.create_if_missing = create;
  options.max_content_bytes = max_content_bytes;
  options.knowledge = knowledge;
  options.busy_timeout_ms = busy_timeout_ms;
  options.index_memory_budget = index_memory_mb << 20;
  options.item_cache_bytes = item_cache_mb << 20;
  options.huge_pages = huge_pages;
  options.retention = retention;
  for (const std::string& entry : half_lives) {
    auto parsed = ParseHalfLife(entry);
    if (!parsed.ok()) {
      Fail(parsed.status().WithContext("--half-life"));
      return nullptr;
    }
    options.retention.half_life_days[parsed->first] = parsed->second;
  }
  options.maintenance = maintenance;
  options.maintenance_interval_ms = maintenance_interval_ms;
  if (extractor == "llm") {  // the same model writes the maintenance's summaries
    auto llm = MakeLlm();
    if (!llm.ok()) {
      Fail(llm.status());
      return nullptr;
    }
    options.summarizer = *llm;
  }
  auto made = MakeEmbedder();
  if (!made.ok()) {
    Fail(made.status());
    return nullptr;
  }
  options.embedder = std::move(made).value();
  auto opened = Engine::Open(options);
  if (!opened.ok()) {
    if (IsPostgresUrl(db_path)) {
      // A server that cannot be reached, a wrong password, a database of a newer or another
      // schema: the configuration is wrong (exit 2), and the URL is shown without its password.
      Fail(Status::InvalidArgument("cannot open " + RedactedUrl(db_path) + ": " +
                                   opened.status().message() + " (" +
                                   std::string(StatusCodeName(opened.status().code())) + ")"));
      return nullptr;
    }
    Fail(opened.status().code() == StatusCode::kNotFound
             ? opened.status()
             : opened.status().WithContext("cannot open " + db_path));
    return nullptr;
  }
  engine = std::move(opened).value();
  return engine.get();
}

Result<std::shared_ptr<LlmClient>> Context::MakeLlm() const {
  if (extractor == "rules") return std::shared_ptr<LlmClient>();
  if (extractor != "llm") {
    return Status::InvalidArgument("--extractor must be rules or llm, got '" + extractor + "'");
  }
  OpenAIChatOptions o;
  o.base_url = llm_url;
  o.model = llm_model;
  o.api_key_env = llm_key_env;
  o.timeout_ms = llm_timeout_ms;
  auto client = MakeOpenAIChatClient(o);
  if (!client.ok()) return client.status();
  return std::shared_ptr<LlmClient>(std::move(client).value());
}

MemoryWriter* Context::OpenWriter() {
  if (writer) return writer.get();
  Engine* e = OpenEngine(/*create=*/true);
  if (!e) return nullptr;
  WriterOptions options;
  auto policy = PiiPolicy::Parse(pii);
  if (!policy.ok()) {
    Fail(policy.status().WithContext("--pii"));
    return nullptr;
  }
  options.privacy = std::move(policy).value();
  options.keep_turns = keep_turns;
  options.rules = rules;
  options.privacy.hash_key = EnvOr(pii_key_env.c_str(), "");
  bool hashes = options.privacy.action == PiiAction::kHash;
  for (const auto& [kind, action] : options.privacy.overrides) hashes |= action == PiiAction::kHash;
  if (hashes && options.privacy.hash_key.empty()) {
    // Unkeyed hashes of short values (phone numbers) could be reversed by trying them all.
    Fail(Status::InvalidArgument("--pii hash needs a secret in $" + pii_key_env));
    return nullptr;
  }
  auto llm = MakeLlm();
  if (!llm.ok()) {
    Fail(llm.status());
    return nullptr;
  }
  if (*llm) {
    options.extractor = MakeLlmExtractor(*llm);
    options.resolver = MakeLlmResolver(*llm);
  }
  writer = std::make_unique<MemoryWriter>(e, std::move(options));
  return writer.get();
}

std::optional<Scope> Context::RequireScope() {
  if (user.empty()) {
    FailUsage("--user is required (or set ENGRAM_USER)");
    return std::nullopt;
  }
  return Scope{tenant, user, agent, session};
}

int Context::FailUsage(const std::string& message) const {
  return FailWithExample(*this, message, ExampleOf(command));
}

int RunCli(int argc, char** argv) {
  Context ctx;
  ctx.db_path = EnvOr("ENGRAM_DB", "./engram-data/engram.db");
  ctx.tenant = EnvOr("ENGRAM_TENANT", "default");
  ctx.user = EnvOr("ENGRAM_USER", "");
  ctx.embedder = EnvOr("ENGRAM_EMBEDDER", ctx.embedder);
  ctx.embed_url = EnvOr("ENGRAM_EMBED_URL", ctx.embed_url);
  ctx.embed_model = EnvOr("ENGRAM_EMBED_MODEL", ctx.embed_model);
  ctx.extractor = EnvOr("ENGRAM_EXTRACTOR", ctx.extractor);
  ctx.llm_url = EnvOr("ENGRAM_LLM_URL", ctx.llm_url);
  ctx.llm_model = EnvOr("ENGRAM_LLM_MODEL", ctx.llm_model);
  ctx.pii = EnvOr("ENGRAM_PII", ctx.pii);

  CLI::App app{"engram: long-term memory for LLM applications", "engram"};
  app.require_subcommand(1);
  app.fallthrough(true);  // global options may follow the subcommand
  app.option_defaults()->always_capture_default();
  app.add_option(
         "--db", ctx.db_path,
         "SQLite database file, or a PostgreSQL URL postgres://USER[:PASSWORD]@HOST[:PORT]/DB "
         "(env ENGRAM_DB; default ./engram-data/engram.db)")
      ->option_text("PATH");
  app.add_option("--key-file", ctx.key_file,
                 "Key file of an encrypted database (env ENGRAM_KEY_FILE, or the key in "
                 "ENGRAM_KEY)")
      ->envname("ENGRAM_KEY_FILE")
      ->option_text("FILE");
  app.add_option("--tenant", ctx.tenant, "Tenant (env ENGRAM_TENANT; default 'default')")
      ->option_text("NAME");
  app.add_option("--user,-u", ctx.user, "User id the command acts for (env ENGRAM_USER)")
      ->option_text("ID");
  app.add_option("--agent", ctx.agent, "Agent id: recorded on writes, narrows reads")->group(kMore);
  app.add_option("--session", ctx.session, "Session id: recorded on writes, narrows reads")
      ->group(kMore);
  app.add_flag("--json", ctx.json, "Print JSON instead of text");
  app.add_option("--index-memory-mb", ctx.index_memory_mb,
                 "Memory for loaded search indexes; least recently used scopes are evicted "
                 "past it (env ENGRAM_INDEX_MEMORY_MB; default: a quarter of RAM, ≥ 2048)")
      ->envname("ENGRAM_INDEX_MEMORY_MB")
      ->group(kResources)
      ->capture_default_str()
      ->check(CLI::Range(size_t{64}, size_t{1} << 24));
  app.add_option("--item-cache-mb", ctx.item_cache_mb,
                 "MiB of RAM for memories served to searches without reading the database "
                 "(packed, ~360 bytes each with short content; filled as scopes load, least "
                 "recently used evicted); 0: off (env ENGRAM_ITEM_CACHE_MB)")
      ->envname("ENGRAM_ITEM_CACHE_MB")
      ->group(kResources)
      ->capture_default_str()
      ->check(CLI::Range(size_t{0}, size_t{1} << 20));
  app.add_flag("--huge-pages,!--no-huge-pages", ctx.huge_pages,
               "Keep search indexes' vector rows in the system's reserved huge pages while "
               "there are free ones (sysctl vm.nr_hugepages), else in ordinary memory "
               "(env ENGRAM_HUGE_PAGES; default off)")
      ->envname("ENGRAM_HUGE_PAGES")
      ->group(kResources);
  app.add_option("--half-life", ctx.half_lives,
                 "Retention half-life of a memory type in days, TYPE=DAYS (repeatable; 0: never "
                 "decays). Defaults: message 30, event 60, commitment 30, goal 90, opinion 120, "
                 "preference 180, decision 180, fact 365, summary 365, skill 365, knowledge 0, "
                 "profile 0")
      ->delimiter(',')
      ->group(kLifecycle);
  app.add_option("--retention-weight", ctx.retention.ranking_weight,
                 "Share of a search score retention can take away (0: no effect on ranking)")
      ->envname("ENGRAM_RETENTION_WEIGHT")
      ->check(CLI::Range(0.0, 1.0))
      ->group(kLifecycle);
  app.add_option("--critical-importance", ctx.retention.critical_importance,
                 "Importance from which a memory is critical (never decays below the floor, "
                 "never archived or purged by maintenance); so is one tagged 'critical'")
      ->check(CLI::Range(0.0, 1.0))
      ->group(kLifecycle);
  app.add_option("--archive-below", ctx.maintenance.archive_below,
                 "Maintenance archives memories whose retention is below this (0: never)")
      ->envname("ENGRAM_ARCHIVE_BELOW")
      ->check(CLI::Range(0.0, 1.0))
      ->group(kLifecycle);
  app.add_option("--purge-after-days", ctx.maintenance.purge_after_days,
                 "Maintenance purges archived memories this many days after they were archived "
                 "(0: never)")
      ->envname("ENGRAM_PURGE_AFTER_DAYS")
      ->check(CLI::Range(0.0, 36500.0))
      ->group(kLifecycle);
  app.add_option("--merge-above", ctx.maintenance.merge_above,
                 "Maintenance merges two memories of one type whose vectors are at least this "
                 "similar (cosine) into the older (0: never)")
      ->envname("ENGRAM_MERGE_ABOVE")
      ->check(CLI::Range(0.0, 1.0))
      ->group(kLifecycle);
  app.add_option("--summarize-at-least", ctx.maintenance.summarize_at_least,
                 "Maintenance folds this many or more faded turns of a session (or day) into one "
                 "summary (0: never)")
      ->check(CLI::Range(0, 100000))
      ->group(kLifecycle);
  app.add_option("--promote-heat", ctx.maintenance.promote_heat,
                 "Maintenance promotes a conversation at least this hot (reads + 0.5·turns + "
                 "2·recency) once (0: never)")
      ->check(CLI::Range(0.0, 1e9))
      ->group(kLifecycle);
  app.add_option("--busy-timeout-ms", ctx.busy_timeout_ms,
                 "How long a write waits for the database's write lock when another process "
                 "(or connection) holds it before failing as unavailable "
                 "(env ENGRAM_BUSY_TIMEOUT_MS)")
      ->envname("ENGRAM_BUSY_TIMEOUT_MS")
      ->capture_default_str()
      ->check(CLI::Range(0, 600000))
      ->group(kResources);
  app.add_option("--max-content-bytes", ctx.max_content_bytes,
                 "Reject content longer than this (env ENGRAM_MAX_CONTENT_BYTES)")
      ->check(CLI::PositiveNumber)
      ->group(kMore);
  app.add_option("--max-document-bytes", ctx.knowledge.max_document_bytes,
                 "Refuse knowledge documents larger than this (413 document_too_large)")
      ->envname("ENGRAM_MAX_DOCUMENT_BYTES")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->group(kMore);
  app.add_option("--parser-timeout-ms", ctx.knowledge.parser_timeout_ms,
                 "Time a PDF's text extraction (pdftotext) may take before it is killed")
      ->envname("ENGRAM_PARSER_TIMEOUT_MS")
      ->capture_default_str()
      ->check(CLI::Range(100, 600000))
      ->group(kMore);
  app.add_option("--embedder", ctx.embedder,
                 "hash (built in, offline) or openai (any "
                 "OpenAI-compatible /v1/embeddings) (env ENGRAM_EMBEDDER)")
      ->group(kEmbedding);
  app.add_option("--embed-dim", ctx.embed_dim,
                 "Hash embedder dimension, or the remote model's expected dimension (0: any)")
      ->group(kEmbedding);
  app.add_option("--embed-url", ctx.embed_url,
                 "Base URL of the embeddings API (env ENGRAM_EMBED_URL)")
      ->group(kEmbedding);
  app.add_option("--embed-model", ctx.embed_model,
                 "Remote embedding model (env ENGRAM_EMBED_MODEL)")
      ->group(kEmbedding);
  app.add_option("--embed-key-env", ctx.embed_key_env, "Environment variable holding the API key")
      ->group(kEmbedding);
  app.add_option("--extractor", ctx.extractor,
                 "Write path for infer=true: rules (built in, zh/en, offline) or llm (any "
                 "OpenAI-compatible /v1/chat/completions) (env ENGRAM_EXTRACTOR)")
      ->group(kWritePath);
  app.add_option("--llm-url", ctx.llm_url,
                 "Base URL of the chat completions API (env ENGRAM_LLM_URL)")
      ->group(kWritePath);
  app.add_option("--llm-model", ctx.llm_model,
                 "Chat model for extraction, decisions and "
                 "summaries (env ENGRAM_LLM_MODEL)")
      ->group(kWritePath);
  app.add_option("--llm-key-env", ctx.llm_key_env, "Environment variable holding the LLM API key")
      ->group(kWritePath);
  app.add_option("--llm-timeout-ms", ctx.llm_timeout_ms, "Timeout of one LLM request")
      ->check(CLI::Range(100, 600000))
      ->group(kWritePath);
  app.add_option("--pii", ctx.pii,
                 "Privacy policy at write time: keep, redact, hash or reject, optionally per kind "
                 "(email, phone, cn_id, bank_card, ip, secret), e.g. "
                 "'redact,email=keep,secret=reject' (env ENGRAM_PII)")
      ->group(kWritePath);
  app.add_option("--pii-key-env", ctx.pii_key_env,
                 "Environment variable holding the secret of --pii hash placeholders")
      ->group(kWritePath);
  app.add_option("--keep-turns", ctx.keep_turns,
                 "With extraction (infer): keep each user turn that is not chit-chat as an "
                 "episodic memory of its own, linked to what is extracted from it; false keeps "
                 "extracted facts only (env ENGRAM_KEEP_TURNS; default true)")
      ->envname("ENGRAM_KEEP_TURNS")
      ->group(kWritePath);
  app.add_option("--duplicate-similarity", ctx.rules.duplicate_similarity,
                 "Vector similarity at or above which a new memory is a paraphrase of a stored "
                 "one (NOOP), for the rule resolver (env ENGRAM_DUPLICATE_SIMILARITY)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str()
      ->envname("ENGRAM_DUPLICATE_SIMILARITY")
      ->group(kWritePath);
  app.add_option("--duplicate-overlap", ctx.rules.duplicate_overlap,
                 "Share of words two statements must have in common to be the same one (NOOP), "
                 "for the rule resolver; 1 turns it off (env ENGRAM_DUPLICATE_OVERLAP)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str()
      ->envname("ENGRAM_DUPLICATE_OVERLAP")
      ->group(kWritePath);
  app.set_version_flag("--version", "engram 0.1.0")->group(kMore);
  // Global options at the top of the file, a command's under its section ([serve]).
  // CLI11 applies the file before environment variables, so the order of precedence is
  // command line > file > environment.
  app.set_config("--config", "",
                 "Read options from this TOML/INI file (env ENGRAM_CONFIG): "
                 "globals at the top, a command's options under [command]; command-line flags "
                 "win over the file, the file over environment variables")
      ->envname("ENGRAM_CONFIG")
      ->group(kMore);

  AddItemCommands(app, ctx);
  AddExtractCommand(app, ctx);
  AddMaintainCommand(app, ctx);
  AddTransferCommands(app, ctx);
  AddMigrateCommand(app, ctx);
  AddSearchCommands(app, ctx);
  AddKnowledgeCommands(app, ctx);
  AddBenchCommands(app, ctx);
  AddServeCommands(app, ctx);
  AddMcpCommands(app, ctx);
  AddGraphCommands(app, ctx);
  AddEncryptionCommands(app, ctx);
  AddHelpCommand(app, ctx);
  AddExamples(app);
  // Set last: the commands keep CLI11's formatter, the root's help is the short list.
  app.formatter(std::make_shared<RootHelpFormatter>());

  // --json is honoured even when parsing fails before CLI11 reaches it.
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--json") ctx.json = true;
  }
  std::string max_bytes = EnvOr("ENGRAM_MAX_CONTENT_BYTES", "");
  if (!max_bytes.empty()) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(max_bytes.c_str(), &end, 10);
    if (*end != '\0' || v == 0) {
      return ctx.Fail(
          Status::InvalidArgument("ENGRAM_MAX_CONTENT_BYTES must be a positive integer"));
    }
    ctx.max_content_bytes = static_cast<size_t>(v);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return FailParse(app, e, ctx);
  }
  if (!ctx.action) return kExitUsage;
  ctx.command = CommandPath(SelectedCommand(app));
  return ctx.action();
}

}  // namespace engram::cli
