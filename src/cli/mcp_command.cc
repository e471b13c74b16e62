// engram mcp: a Model Context Protocol server on standard input and output.
//
// The stdio transport: one JSON-RPC message per line in, one per line out; standard output
// carries nothing else, so every diagnostic goes to standard error. The session ends when the
// client closes standard input (exit 0) or sends SIGTERM/SIGINT (the engine is closed cleanly
// either way, flushing access statistics and index snapshots).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <iostream>
#include <memory>
#include <string>

#include "cli/cli_app.h"
#include "mcp/mcp_server.h"

#ifndef ENGRAM_VERSION
#define ENGRAM_VERSION "0.0.0"
#endif

namespace engram::cli {
namespace {

volatile std::sig_atomic_t g_stop = 0;

// Puts /dev/null under standard input (all async-signal-safe calls), so a read that has not
// started yet sees end of input: no window between checking g_stop and blocking in read().
void OnStopSignal(int) {
  g_stop = 1;
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) {
    dup2(null_fd, STDIN_FILENO);
    close(null_fd);
  }
}

// SIGTERM/SIGINT interrupt a blocking read (no SA_RESTART) or empty standard input, so the
// loop ends and the engine closes. SIGPIPE is ignored: a client that went away shows up as a
// failed write instead.
void InstallSignalHandlers() {
  struct sigaction sa = {};
  sa.sa_handler = &OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

int RunMcp(Context& ctx, const api::Limits& limits) {
  Engine* engine = ctx.OpenEngine(/*create=*/true);
  if (!engine) return ctx.last_exit;
  mcp::McpOptions options;
  options.tenant = ctx.tenant;
  options.default_user = ctx.user;
  options.server_version = ENGRAM_VERSION;
  options.limits = limits;
  options.log = [](std::string_view line) { std::cerr << "engram mcp: " << line << "\n"; };
  MemoryWriter* writer = ctx.OpenWriter();
  if (!writer) return ctx.last_exit;  // a bad --pii is a usage error, a bad database not
  mcp::McpServer server(engine, std::move(options), writer);
  InstallSignalHandlers();
  std::cerr << "engram mcp: serving on stdio (database " << ctx.db_path << ", tenant " << ctx.tenant
            << ", default user "
            << (ctx.user.empty() ? std::string("none: tools need user_id") : ctx.user) << ")\n";

  std::string line;
  while (!g_stop && std::getline(std::cin, line)) {
    std::string reply = server.HandleLine(line);
    if (reply.empty()) continue;
    std::cout << reply << '\n' << std::flush;
    if (!std::cout) {
      std::cerr << "engram mcp: standard output closed; stopping\n";
      break;
    }
  }
  std::cerr << "engram mcp: " << (g_stop ? "stopped by signal" : "end of input")
            << "; closing the database\n";
  ctx.engine.reset();  // flushes access statistics and index snapshots
  return kExitOk;
}

}  // namespace

void AddMcpCommands(CLI::App& app, Context& ctx) {
  auto limits = std::make_shared<api::Limits>();
  CLI::App* cmd = app.add_subcommand(
      "mcp",
      "Run a Model Context Protocol server on stdin/stdout (Claude Desktop, Claude "
      "Code, Cursor...); tools act for --tenant, and for --user unless given user_id");
  cmd->add_option("--max-k", limits->max_k, "Largest k a search may ask for (at most 100)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--max-token-budget", limits->max_token_budget,
                  "Largest token_budget of get_context")
      ->capture_default_str()
      ->check(CLI::Range(16, 32768));
  cmd->callback([&ctx, limits] { ctx.action = [&ctx, limits] { return RunMcp(ctx, *limits); }; });
}

}  // namespace engram::cli
