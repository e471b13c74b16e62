// engram migrate --from sqlite:PATH --to postgres://…: everything of an embedded database into
// PostgreSQL (or another Engram database), user by user, resumable, verified.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/cli_app.h"
#include "core/status_macros.h"
#include "engram/keys.h"
#include "engram/transfer.h"
#include "storage/postgres.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;

struct MigrateFlags {
  std::string from;
  std::string to;
  std::string state;
  bool verify_only = false;
};

std::string ScopeLine(const ScopeSummary& s) { return s.tenant + "\t" + s.user_id; }

// A user's export without its header line (which names the time of the export): what must be
// equal, byte for byte, on both sides.
Result<std::string> ExportBody(Engine& engine, const ScopeSummary& s) {
  std::ostringstream out;
  ENGRAM_RETURN_IF_ERROR(ExportJsonl(engine, {Scope{s.tenant, s.user_id, "", ""}}, out).status());
  std::string text = out.str();
  const size_t first = text.find('\n');
  return first == std::string::npos ? std::string() : text.substr(first + 1);
}

// Progress on standard error: a bar on a terminal, a line every tenth otherwise.
class MigrateProgress {
 public:
  explicit MigrateProgress(int64_t total) : total_(total), tty_(isatty(STDERR_FILENO)) {}
  ~MigrateProgress() {
    if (tty_ && drawn_) std::cerr << "\n";
  }
  void Update(int64_t users, int64_t memories) {
    const double frac =
        total_ > 0 ? std::min(1.0, static_cast<double>(memories) / static_cast<double>(total_))
                   : 1.0;
    const int tenth = static_cast<int>(frac * 10);
    if (tty_) {
      constexpr int kWidth = 30;
      const int filled = static_cast<int>(frac * kWidth);
      std::cerr << "\rmigrating [" << std::string(filled, '#') << std::string(kWidth - filled, '-')
                << "] " << static_cast<int>(frac * 100) << "%  " << memories << " / " << total_
                << " memories, " << users << " users" << std::flush;
      drawn_ = true;
    } else if (tenth > last_tenth_) {
      std::cerr << "migrating: " << tenth * 10 << "% (" << memories << " / " << total_
                << " memories, " << users << " users)\n";
      last_tenth_ = tenth;
    }
  }

 private:
  int64_t total_;
  bool tty_;
  bool drawn_ = false;
  int last_tenth_ = 0;
};

int RunMigrate(Context& ctx, const MigrateFlags& f) {
  std::string from = f.from;
  if (from.starts_with("sqlite:")) from = from.substr(7);
  if (from.empty() || f.to.empty()) return ctx.FailUsage("give --from and --to");
  if (from == f.to) return ctx.FailUsage("--from and --to name the same database");
  std::error_code ec;
  if (!IsPostgresUrl(from) && !std::filesystem::exists(from, ec)) {
    return ctx.Fail(Status::NotFound("no database at " + from));
  }
  if (!ctx.LoadKey()) return ctx.last_exit;
  // The source with the context's options (its key: --key-file), the destination plain.
  ctx.db_path = from;
  Engine* source = ctx.OpenEngine();
  if (!source) return ctx.last_exit;
  EngineOptions to_options;
  to_options.path = f.to;
  auto embedder = ctx.MakeEmbedder();  // the same as the source's: the vectors stay valid
  if (!embedder.ok()) return ctx.Fail(embedder.status());
  to_options.embedder = *embedder;
  auto opened = Engine::Open(to_options);
  if (!opened.ok()) {
    return ctx.Fail(Status::InvalidArgument("cannot open " + RedactedUrl(f.to) + ": " +
                                            opened.status().message()));
  }
  Engine& dest = **opened;
  auto scopes = source->ListScopes("");
  if (!scopes.ok()) return ctx.Fail(scopes.status());
  int64_t total = 0;
  for (const ScopeSummary& s : *scopes) total += s.items;

  // The users already migrated, one per line: a run that stops is resumed where it stopped.
  const std::string state_path =
      f.state.empty()
          ? (IsPostgresUrl(from) ? std::string("engram-migrate.state") : from + ".migrate-state")
          : f.state;
  std::set<std::string> done;
  {
    std::ifstream in(state_path);
    for (std::string line; std::getline(in, line);) done.insert(line);
  }
  std::ofstream state(state_path, std::ios::app);
  if (!state) return ctx.Fail(Status::IOError("cannot write " + state_path));

  int64_t users = 0, memories = 0, imported = 0, skipped = 0;
  MigrateProgress progress(total);
  const auto started = std::chrono::steady_clock::now();
  if (!f.verify_only) {
    for (const ScopeSummary& s : *scopes) {
      if (!done.count(ScopeLine(s))) {
        std::stringstream buffer;
        auto exported = ExportJsonl(*source, {Scope{s.tenant, s.user_id, "", ""}}, buffer);
        if (!exported.ok()) return ctx.Fail(exported.status());
        ImportOptions options;
        options.on_conflict = OnConflict::kSkip;  // what an interrupted run wrote stays
        auto report = ImportJsonl(dest, buffer, options);
        if (!report.ok()) return ctx.Fail(report.status());
        if (!report->ok()) {
          return ctx.Fail(Status::Internal("user " + s.user_id + " of " + s.tenant + ": " +
                                           report->errors.front().message));
        }
        imported += report->imported;
        skipped += report->skipped;
        state << ScopeLine(s) << "\n" << std::flush;
      }
      ++users;
      memories += s.items;
      progress.Update(users, memories);
    }
    // API keys, as stored (hashes, revocations).
    auto from_keys = KeyStore::Open(from, nullptr, ctx.key);
    auto to_keys = KeyStore::Open(f.to, nullptr);
    if (!from_keys.ok()) return ctx.Fail(from_keys.status());
    if (!to_keys.ok()) return ctx.Fail(to_keys.status());
    auto keys = (*from_keys)->CopyTo(**to_keys);
    if (!keys.ok()) return ctx.Fail(keys.status());
    if (!ctx.json) std::cerr << "copied " << *keys << " API keys\n";
  }

  // Verification: every user's export (memories with history and vectors, sessions and turns,
  // profile summary, maintenance log) equal on both sides, and the counts.
  int64_t checked = 0;
  std::vector<std::string> mismatches;
  uint64_t checksum = 1469598103934665603ull;  // FNV-1a 64 over every user's export
  for (const ScopeSummary& s : *scopes) {
    auto a = ExportBody(*source, s);
    auto b = ExportBody(dest, s);
    if (!a.ok()) return ctx.Fail(a.status());
    if (!b.ok()) return ctx.Fail(b.status());
    if (*a != *b) mismatches.push_back(s.tenant + "/" + s.user_id);
    for (unsigned char c : *a) checksum = (checksum ^ c) * 1099511628211ull;
    ++checked;
  }
  auto dest_scopes = dest.ListScopes("");
  if (!dest_scopes.ok()) return ctx.Fail(dest_scopes.status());
  int64_t dest_total = 0;
  for (const ScopeSummary& s : *dest_scopes) dest_total += s.items;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(checksum));
  const bool verified = mismatches.empty() && dest_total >= total;
  if (ctx.json) {
    std::cout << json{{"users", checked},
                      {"memories", total},
                      {"imported", imported},
                      {"skipped", skipped},
                      {"destination_memories", dest_total},
                      {"checksum", hex},
                      {"verified", verified},
                      {"mismatches", mismatches},
                      {"seconds", seconds}}
                     .dump()
              << "\n";
  } else {
    std::cout << (f.verify_only ? "checked " : "migrated ") << checked << " users, " << total
              << " memories (" << imported << " written now, " << skipped << " there already) in "
              << static_cast<int>(seconds) << " s; checksum " << hex
              << (verified ? ", identical on both sides\n" : "\n");
    for (const std::string& m : mismatches) std::cerr << "engram: differs: " << m << "\n";
  }
  if (!verified) {
    return ctx.Fail(Status::Internal(std::to_string(mismatches.size()) +
                                     " users differ between the databases"));
  }
  return kExitOk;
}

}  // namespace

void AddMigrateCommand(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<MigrateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "migrate",
      "Copy every user of one Engram database into another (an embedded file into PostgreSQL): "
      "resumable, then verified user by user");
  cmd->add_option("--from", flags->from, "The source: sqlite:PATH (or a path, or a URL)")
      ->required();
  cmd->add_option("--to", flags->to, "The destination: postgres://USER[:PASSWORD]@HOST/DB")
      ->required();
  cmd->add_option("--state", flags->state,
                  "The users already copied, for resuming (default: SOURCE.migrate-state)");
  cmd->add_flag("--verify-only", flags->verify_only, "Compare the two databases, copy nothing");
  cmd->callback([&ctx, flags] { ctx.action = [&ctx, flags] { return RunMigrate(ctx, *flags); }; });
}

}  // namespace engram::cli
