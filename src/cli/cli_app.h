// The `engram` command line: shared context, exit codes and the command registrations.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engram/encryption.h"
#include "engram/engine.h"
#include "engram/llm.h"
#include "engram/status.h"
#include "engram/write_path.h"

namespace engram::cli {

// Exit codes (documented in the README and `engram --help`).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;    // I/O, corruption, database unavailable, bugs
inline constexpr int kExitUsage = 2;       // bad flags or invalid input
inline constexpr int kExitNotFound = 3;    // no such memory in this scope
inline constexpr int kExitConflict = 4;    // e.g. updating a deleted memory, duplicate id
inline constexpr int kExitDataErrors = 5;  // import finished but rejected some lines
inline constexpr int kExitTraces = 6;      // purge --verify found purged data still on disk

int ExitCodeFor(const Status& status);

// Options shared by every command, and the engine they open.
struct Context {
  std::string db_path;
  std::string tenant = "default";
  std::string user;
  std::string agent;
  std::string session;
  bool json = false;
  size_t max_content_bytes = 16 * 1024;
  KnowledgeOptions knowledge;  // --max-document-bytes, --parser-timeout-ms
  int busy_timeout_ms = EngineOptions{}.busy_timeout_ms;  // a write waits this long for a lock
  // Memory the loaded search indexes may use before the least recently used are evicted:
  // a quarter of physical memory, at least 2 GiB.
  size_t index_memory_mb = DefaultIndexMemoryMb();
  size_t item_cache_mb = EngineOptions{}.item_cache_bytes >> 20;
  bool huge_pages = EngineOptions{}.huge_pages;
  static size_t DefaultIndexMemoryMb();
  std::string embedder = "hash";  // hash | openai
  int embed_dim = 384;            // hash dimension, or the expected remote dimension (0: any)
  std::string embed_url = "https://api.openai.com/v1";
  std::string embed_model = "text-embedding-3-small";
  std::string embed_key_env = "OPENAI_API_KEY";

  // The write path: extraction and decisions by "rules" (built in) or "llm" (any
  // OpenAI-compatible /v1/chat/completions), and the privacy policy (PiiPolicy::Parse).
  std::string extractor = "rules";
  std::string llm_url = "https://api.openai.com/v1";
  std::string llm_model = "gpt-4o-mini";
  std::string llm_key_env = "OPENAI_API_KEY";
  int llm_timeout_ms = 60000;
  std::string pii = "keep";
  std::string pii_key_env = "ENGRAM_PII_HASH_KEY";
  bool keep_turns = WriterOptions{}.keep_turns;  // keep user turns as episodic items
  RuleResolverOptions rules;                     // duplicate thresholds of the rule resolver
  // The lifecycle (include/engram/lifecycle.h): --half-life TYPE=DAYS entries, thresholds,
  // and the serve schedule (seconds; 0: off).
  std::vector<std::string> half_lives;
  RetentionPolicy retention;
  MaintenancePolicy maintenance;
  int64_t maintenance_interval_ms = 0;  // EngineOptions::maintenance_interval_ms (serve sets it)

  // Encryption at rest: the key file (--key-file / ENGRAM_KEY_FILE), or the key itself in
  // ENGRAM_KEY (64 hex digits); neither: plain files.
  std::string key_file;
  // The key, loaded on first use; null when none is configured. Prints the error and returns
  // false when the key cannot be read.
  bool LoadKey();
  std::shared_ptr<const EncryptionKey> key;

  std::unique_ptr<Engine> engine;
  std::unique_ptr<MemoryWriter> writer;
  // The action the chosen subcommand registered; run after parsing.
  std::function<int()> action;

  // The embedder the --embedder flags describe.
  Result<std::shared_ptr<Embedder>> MakeEmbedder() const;
  // Opens the database on first use; prints the error and returns nullptr on failure (the
  // exit code in last_exit). Only commands that write pass `create`: a read of a mistyped
  // --db fails (not found) instead of creating an empty database and reporting nothing.
  Engine* OpenEngine(bool create = false);
  // NotFound (printed) when --db names no file: for commands that open the database other
  // than through OpenEngine and only read it.
  bool RequireDatabase();
  // The write path over OpenEngine(/*create=*/true) from the flags above; nullptr (error printed)
  // on failure.
  MemoryWriter* OpenWriter();
  // The LLM client the --llm flags describe (for summaries too); null unless --extractor llm.
  Result<std::shared_ptr<LlmClient>> MakeLlm() const;
  // Scope from --tenant/--user/--agent/--session; prints an error if --user is missing.
  std::optional<Scope> RequireScope();
  // The command being run, as typed ("add", "bench locomo"): set once parsing succeeded.
  std::string command;
  // A usage error of `command` (a missing or contradictory argument): prints `message` with an
  // example of the command (kCommandHelp) and returns kExitUsage.
  int FailUsage(const std::string& message) const;
  // Prints `status` (human text or a JSON error body with --json) and returns its exit code,
  // also kept in last_exit (for the Open* helpers, which return nullptr after failing).
  int Fail(const Status& status) const;
  mutable int last_exit = kExitInternal;
};

void AddItemCommands(CLI::App& app, Context& ctx);
// `engram extract`: what the write path would extract, storing nothing.
void AddExtractCommand(CLI::App& app, Context& ctx);
void AddMaintainCommand(CLI::App& app, Context& ctx);  // maintain (the lifecycle)
// `engram bench writepath`, under the `bench` command.
void AddWritePathBenchCommand(CLI::App* bench, Context& ctx);
void AddMaintenanceBenchCommand(CLI::App* bench, Context& ctx);  // bench maintenance
void AddEncryptionBenchCommand(CLI::App* bench, Context& ctx);   // bench encryption
void AddTransferCommands(CLI::App& app, Context& ctx);
void AddMigrateCommand(CLI::App& app, Context& ctx);
void AddSearchCommands(CLI::App& app, Context& ctx);
void AddBenchCommands(CLI::App& app, Context& ctx);
void AddServeCommands(CLI::App& app, Context& ctx);         // serve, keys
void AddMcpCommands(CLI::App& app, Context& ctx);           // mcp (stdio MCP server)
void AddEncryptionCommands(CLI::App& app, Context& ctx);    // keygen, rekey
void AddKnowledgeCommands(CLI::App& app, Context& ctx);     // ingest (the knowledge tier)
void AddIngestBenchCommand(CLI::App* bench, Context& ctx);  // bench ingest
void AddGraphCommands(CLI::App& app, Context& ctx);         // entities, graph (entity graph)

int RunCli(int argc, char** argv);

}  // namespace engram::cli
