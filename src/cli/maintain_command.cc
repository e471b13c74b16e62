// engram maintain — one run of the lifecycle's maintenance (Engine::Maintain): expire, archive
// what faded, purge what stayed archived past its grace. Over every user of the database by
// default; --user (with --tenant) narrows it. --dry-run prints what would change, per user, and
// changes nothing. `engram maintain --log` prints a user's maintenance log instead.
#include <unistd.h>

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "api/responses.h"
#include "cli/cli_app.h"
#include "engram/clock.h"

namespace engram::cli {
namespace {

struct MaintainFlags {
  bool dry_run = false;
  bool full = false;
  bool log = false;
  int limit = 1000;
};

int RunLog(Context& ctx, const MaintainFlags& f) {
  auto scope = ctx.RequireScope();
  if (!scope) return kExitUsage;
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  auto log = engine->MaintenanceLog(*scope, f.limit);
  if (!log.ok()) return ctx.Fail(log.status());
  if (ctx.json) {
    std::cout << api::MaintenanceLogToJson(*log).dump() << "\n";
    return kExitOk;
  }
  if (log->empty()) std::cout << "(no maintenance actions)\n";
  for (const MaintenanceLogEntry& e : *log) {
    std::cout << FormatTimestamp(e.at) << "  " << std::left << std::setw(8) << ToString(e.action)
              << e.item_id << "  " << e.reason << "\n";
  }
  return kExitOk;
}

int RunMaintain(Context& ctx, const MaintainFlags& f) {
  if (f.log) return RunLog(ctx, f);
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  MaintenanceRequest request;
  if (!ctx.user.empty()) {
    request.tenant = ctx.tenant;
    request.user_id = ctx.user;
  }
  request.dry_run = f.dry_run;
  request.full = f.full;
  request.max_actions_listed = static_cast<size_t>(f.limit);
  const bool tty = isatty(STDERR_FILENO) && !ctx.json;
  auto report = engine->Maintain(request, [&](int64_t done, int64_t total) {
    if (!tty || total == 0) return;
    const int pct = static_cast<int>(100 * done / total);
    std::cerr << "\rmaintaining [" << std::string(pct * 30 / 100, '#')
              << std::string(30 - pct * 30 / 100, '-') << "] " << pct << "%  " << done << "/"
              << total << " users" << std::flush;
  });
  if (tty) std::cerr << "\n";
  if (!report.ok()) return ctx.Fail(report.status());
  if (ctx.json) {
    std::cout << api::MaintenanceReportToJson(*report).dump() << "\n";
    return kExitOk;
  }
  const MaintenanceReport& r = *report;
  const char* verb = r.dry_run ? "would " : "";
  for (const MaintenanceUserCounts& u : r.users) {
    if (u.archived + u.expired + u.purged + u.merged + u.promoted + u.summaries + u.profiles == 0) {
      continue;
    }
    std::cout << u.tenant << "/" << u.user_id << ": " << verb << "archive " << u.archived << ", "
              << verb << "expire " << u.expired << ", " << verb << "purge " << u.purged << ", "
              << verb << "merge " << u.merged << " (of " << u.examined << " examined)";
    if (u.promoted > 0) std::cout << ", " << verb << "promote " << u.promoted;
    if (u.profiles > 0) std::cout << ", " << verb << "rewrite the profile summary";
    if (u.summaries > 0) {
      std::cout << "; " << u.summarized << " faded turns " << (r.dry_run ? "would go" : "went")
                << " into " << u.summaries << " summaries";
    }
    std::cout << "\n";
    for (const MaintenanceActionRecord& a : r.actions) {
      if (a.tenant != u.tenant || a.user_id != u.user_id) continue;
      std::cout << "  " << std::left << std::setw(10) << ToString(a.action) << a.item_id << "  "
                << a.content << "\n      " << a.reason << "\n";
    }
  }
  for (const std::string& problem : r.problems)
    std::cout << "left for the next run: " << problem << "\n";
  std::cout << (r.dry_run ? "dry run: " : "") << r.examined << " memories examined ("
            << (r.full ? "full" : "incremental") << " run, " << r.users.size() << " users), "
            << r.archived << " archived, " << r.expired << " expired, " << r.purged << " purged, "
            << r.merged << " merged, " << r.summaries << " summaries written, " << r.promoted
            << " promoted, " << r.profiles << " profile summaries written in " << r.duration_ms
            << " ms" << (r.dry_run ? "; nothing was changed" : "") << "\n";
  if (static_cast<int64_t>(r.actions.size()) <
      r.archived + r.expired + r.purged + r.merged + r.summaries + r.profiles) {
    std::cout << "(" << r.actions.size() << " actions listed; --limit lists more)\n";
  }
  return kExitOk;
}

}  // namespace

void AddMaintainCommand(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<MaintainFlags>();
  auto* cmd = app.add_subcommand(
      "maintain",
      "Run the memory lifecycle's maintenance: expire memories past their expires_at, archive "
      "those whose retention fell below --archive-below, purge archived ones after "
      "--purge-after-days, merge near-duplicates (--merge-above) (every user; --user narrows "
      "it)");
  cmd->add_flag("--dry-run", flags->dry_run, "Print what would change, per user; change nothing");
  cmd->add_flag("--full", flags->full,
                "Look at every memory, not only those due or changed since the last run");
  cmd->add_flag("--log", flags->log,
                "Print the --user's maintenance log (what earlier runs did, and why) instead");
  cmd->add_option("--limit", flags->limit, "Most actions (or log rows) to print")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->callback([&ctx, flags] { ctx.action = [&ctx, flags] { return RunMaintain(ctx, *flags); }; });
}

}  // namespace engram::cli
