// engram export | import
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_app.h"
#include "engram/transfer.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;

// A one-line progress bar on standard error, drawn only when it is a terminal.
class ProgressBar {
 public:
  ProgressBar(std::string label, int64_t total)
      : label_(std::move(label)), total_(total), enabled_(total > 0 && isatty(STDERR_FILENO)) {}
  ~ProgressBar() {
    if (enabled_ && drawn_) std::cerr << "\n";
  }
  void Update(int64_t done) {
    if (!enabled_) return;
    constexpr int kWidth = 30;
    double frac = std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
    int filled = static_cast<int>(frac * kWidth);
    std::cerr << "\r" << label_ << " [" << std::string(filled, '#')
              << std::string(kWidth - filled, '-') << "] " << static_cast<int>(frac * 100) << "%  "
              << done / 1024 << " / " << total_ / 1024 << " KiB" << std::flush;
    drawn_ = true;
  }

 private:
  std::string label_;
  int64_t total_;
  bool enabled_;
  bool drawn_ = false;
};

struct TransferState {
  std::string out_path = "-";
  bool all_users = false;
  bool all_tenants = false;
  std::string in_path;
  std::string on_conflict = "fail";
  size_t batch_size = 1000;
};

int RunExport(Context& ctx, const TransferState& st) {
  if (!st.all_users && !st.all_tenants && ctx.user.empty()) {
    return ctx.FailUsage("give --user, --all (every user of --tenant) or --all-tenants");
  }
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  std::vector<Scope> scopes;
  if (st.all_users || st.all_tenants) {
    auto list = engine->ListScopes(st.all_tenants ? "" : ctx.tenant);
    if (!list.ok()) return ctx.Fail(list.status());
    for (const ScopeSummary& s : *list) scopes.push_back(Scope{s.tenant, s.user_id, "", ""});
  } else {
    scopes.push_back(Scope{ctx.tenant, ctx.user, ctx.agent, ctx.session});
  }
  std::ofstream file;
  std::ostream* out = &std::cout;
  if (st.out_path != "-") {
    file.open(st.out_path, std::ios::binary | std::ios::trunc);
    if (!file) return ctx.Fail(Status::IOError("cannot write " + st.out_path));
    out = &file;
  }
  auto stats = ExportJsonl(*engine, scopes, *out);
  if (!stats.ok()) return ctx.Fail(stats.status());
  if (st.out_path != "-") {
    if (ctx.json) {
      std::cout << json{{"exported", stats->memories},
                        {"sessions", stats->sessions},
                        {"turns", stats->turns},
                        {"profiles", stats->profiles},
                        {"log_entries", stats->log_entries},
                        {"file", st.out_path}}
                       .dump()
                << "\n";
    } else {
      std::cout << "exported " << stats->memories << " memories";
      if (stats->sessions + stats->profiles + stats->log_entries > 0) {
        std::cout << ", " << stats->sessions << " sessions (" << stats->turns << " turns), "
                  << stats->profiles << " profile summaries, " << stats->log_entries
                  << " maintenance log entries";
      }
      std::cout << " to " << st.out_path << "\n";
    }
  }
  return kExitOk;
}

int RunImport(Context& ctx, const TransferState& st) {
  ImportOptions options;
  options.batch_size = st.batch_size;
  if (st.on_conflict == "skip") {
    options.on_conflict = OnConflict::kSkip;
  } else if (st.on_conflict != "fail") {
    return ctx.Fail(Status::InvalidArgument("--on-conflict must be fail or skip"));
  }
  std::ifstream file;
  std::istream* in = &std::cin;
  int64_t total = 0;
  if (st.in_path != "-") {
    file.open(st.in_path, std::ios::binary);
    if (!file) return ctx.Fail(Status::NotFound("cannot read " + st.in_path));
    std::error_code ec;
    total = static_cast<int64_t>(std::filesystem::file_size(st.in_path, ec));
    if (ec) total = 0;
    in = &file;
  }
  Engine* engine = ctx.OpenEngine(/*create=*/true);
  if (!engine) return ctx.last_exit;
  ProgressBar bar("importing", total);
  options.progress = [&](int64_t bytes) { bar.Update(bytes); };
  auto report = ImportJsonl(*engine, *in, options);
  if (!report.ok()) return ctx.Fail(report.status());
  const ImportReport& r = *report;
  if (ctx.json) {
    json errors = json::array();
    for (const ImportLineError& e : r.errors)
      errors.push_back({{"line", e.line}, {"message", e.message}});
    std::cout << json{{"imported", r.imported},
                      {"sessions", r.sessions},
                      {"turns", r.turns},
                      {"profiles", r.profiles},
                      {"log_entries", r.log_entries},
                      {"skipped", r.skipped},
                      {"rejected", r.rejected},
                      {"errors", errors}}
                     .dump()
              << "\n";
  } else {
    for (const ImportLineError& e : r.errors) std::cerr << "engram: " << e.message << "\n";
    std::cout << "imported " << r.imported << " memories";
    if (r.sessions + r.profiles + r.log_entries > 0) {
      std::cout << ", " << r.sessions << " sessions (" << r.turns << " turns), " << r.profiles
                << " profile summaries, " << r.log_entries << " maintenance log entries";
    }
    if (r.skipped) std::cout << ", skipped " << r.skipped << " already present";
    if (r.rejected)
      std::cout << ", rejected " << r.rejected << " (batches with errors are not written)";
    std::cout << "\n";
  }
  return r.ok() ? kExitOk : kExitDataErrors;
}

}  // namespace

void AddTransferCommands(CLI::App& app, Context& ctx) {
  auto state = std::make_shared<TransferState>();
  TransferState& st = *state;

  auto* exp = app.add_subcommand(
      "export",
      "Write everything stored about users (memories, history, vectors, sessions, "
      "profile summary, maintenance log) as JSON Lines");
  exp->add_option("--out,-o", st.out_path, "Output file ('-' for standard output)");
  exp->add_flag("--all", st.all_users, "Every user of --tenant");
  exp->add_flag("--all-tenants", st.all_tenants, "Every user of every tenant");
  exp->callback([&ctx, state] { ctx.action = [&ctx, state] { return RunExport(ctx, *state); }; });

  auto* imp = app.add_subcommand("import", "Read a JSON Lines export into the database");
  imp->add_option("file", st.in_path, "Export file ('-' for standard input)")->required();
  imp->add_option("--on-conflict", st.on_conflict, "When an id exists: fail or skip")
      ->capture_default_str();
  imp->add_option("--batch-size", st.batch_size, "Lines per transaction")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  imp->callback([&ctx, state] { ctx.action = [&ctx, state] { return RunImport(ctx, *state); }; });
}

}  // namespace engram::cli
