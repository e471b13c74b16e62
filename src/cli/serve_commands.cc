// engram serve | keys create | keys list | keys revoke
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "api/responses.h"
#include "cli/cli_app.h"
#include "cli/output.h"
#include "engram/jobs.h"
#include "engram/keys.h"
#include "engram/sessions.h"
#include "server/audit_trail.h"
#include "server/http_server.h"
#include "server/routes.h"
#include "shared/redis.h"
#include "storage/audit_store.h"

namespace engram::server {
// The OpenAPI document, compiled in from docs/openapi.json (generated source).
extern const char* const kOpenApiDocument;
}  // namespace engram::server

namespace engram::cli {
namespace {

using json = nlohmann::json;

void AddServeOptions(CLI::App* cmd, server::ServerOptions& o) {
  cmd->add_option("--host", o.host, "Address to listen on; non-loopback needs an API key")
      ->envname("ENGRAM_HOST")
      ->capture_default_str();
  cmd->add_option("--tls-cert", o.tls_cert_file,
                  "PEM certificate (chain) to serve HTTPS with (with --tls-key)")
      ->envname("ENGRAM_TLS_CERT");
  cmd->add_option("--tls-key", o.tls_key_file, "PEM private key of --tls-cert")
      ->envname("ENGRAM_TLS_KEY");
  cmd->add_flag("--allow-plain-http", o.allow_plain_http,
                "Serve plain HTTP on a non-loopback address (a TLS-terminating proxy in front)")
      ->envname("ENGRAM_ALLOW_PLAIN_HTTP");
  cmd->add_option("--upstream-url", o.chat.upstream_url,
                  "The chat proxy's upstream: an OpenAI-compatible base URL (https://api.openai"
                  ".com/v1, http://localhost:11434/v1, ...); set, POST /v1/chat/completions adds "
                  "the user's memory to each request and writes the exchange back")
      ->envname("ENGRAM_UPSTREAM_URL");
  cmd->add_option("--proxy-budget", o.chat.token_budget,
                  "Tokens of memory the chat proxy puts into the system message (a request's "
                  "X-Engram-Budget or engram.token_budget overrides it)")
      ->envname("ENGRAM_PROXY_BUDGET")
      ->capture_default_str()
      ->check(CLI::Range(16, 32768));
  cmd->add_flag("--proxy-profile", o.chat.profile,
                "The chat proxy includes the user's profile (a request may say otherwise)")
      ->envname("ENGRAM_PROXY_PROFILE");
  cmd->add_flag("--proxy-recall", o.chat.recall,
                "The chat proxy includes proactive recall (a request may say otherwise)")
      ->envname("ENGRAM_PROXY_RECALL");
  cmd->add_flag("!--no-console", o.console, "Serve no web console at / (the API only)")
      ->envname("ENGRAM_NO_CONSOLE");
  cmd->add_option("--console-dir", o.console_dir,
                  "Serve the web console's files from this folder instead of the built-in ones "
                  "(console/dist while working on the console)")
      ->envname("ENGRAM_CONSOLE_DIR")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--port", o.port, "TCP port (0: any free port, printed at start)")
      ->envname("ENGRAM_PORT")
      ->capture_default_str();
  cmd->add_option("--event-threads", o.event_threads,
                  "Event loops reading and answering connections (0: one per core)")
      ->envname("ENGRAM_EVENT_THREADS")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  cmd->add_option("--threads", o.threads,
                  "Worker threads for requests that may block (writes, remote embedders, export)")
      ->envname("ENGRAM_THREADS")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--max-body-bytes", o.max_body_bytes, "Largest request body (else 413)")
      ->envname("ENGRAM_MAX_BODY_BYTES")
      ->capture_default_str();
  cmd->add_option("--knowledge-dir", o.knowledge_dir,
                  "POST /v1/knowledge may name files under this directory by `path` (any key "
                  "may then read them); unset: only uploaded documents")
      ->envname("ENGRAM_KNOWLEDGE_DIR")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--max-batch", o.limits.max_batch_items, "Most memories in one request")
      ->envname("ENGRAM_MAX_BATCH")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--max-k", o.limits.max_k, "Largest k a search may ask for (at most 100)")
      ->envname("ENGRAM_MAX_K")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--max-token-budget", o.limits.max_token_budget,
                  "Largest token_budget of a context request")
      ->envname("ENGRAM_MAX_TOKEN_BUDGET")
      ->capture_default_str()
      ->check(CLI::Range(16, 32768));
  cmd->add_option("--rate-limit", o.rate_limit, "Requests per second per API key (0: off)")
      ->envname("ENGRAM_RATE_LIMIT")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--rate-burst", o.rate_burst, "Requests a key may make at once (0: the rate)")
      ->envname("ENGRAM_RATE_BURST")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--access-log", o.access_log,
                  "JSON-lines access log: a file, '-' for standard output, '' for none")
      ->envname("ENGRAM_ACCESS_LOG")
      ->capture_default_str();
  cmd->add_option("--keep-alive-timeout", o.keep_alive_timeout_s,
                  "Seconds an idle keep-alive connection stays open")
      ->envname("ENGRAM_KEEP_ALIVE_TIMEOUT")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  cmd->add_option("--keep-alive-max", o.keep_alive_max_requests,
                  "Requests served on one connection before it is closed")
      ->envname("ENGRAM_KEEP_ALIVE_MAX")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--read-timeout", o.read_timeout_s,
                  "Seconds a client may stay silent in the middle of a request or its reply")
      ->envname("ENGRAM_READ_TIMEOUT")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  cmd->add_option("--request-timeout", o.request_timeout_s,
                  "Seconds a request's head and body may take to arrive in all, however "
                  "steadily they trickle; a slower client gets 408 (or is closed)")
      ->envname("ENGRAM_REQUEST_TIMEOUT")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  cmd->add_option_function<std::string>(
         "--http-edge", [&o](const std::string& mode) { o.relay_heads = mode == "relay"; },
         "relay (default): Engram reads and checks every request head itself (and terminates "
         "TLS) and answers a bad one with JSON; direct: the HTTP library reads them (a reverse "
         "proxy in front checks framing), saving the relay's hop")
      ->envname("ENGRAM_HTTP_EDGE")
      ->check(CLI::IsMember({"relay", "direct"}));
  cmd->add_option("--max-connections", o.max_connections,
                  "Open connections in total; more are answered 503 and closed")
      ->envname("ENGRAM_MAX_CONNECTIONS")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--max-connections-per-ip", o.max_connections_per_ip,
                  "Open connections from one client address; more are answered 503 and closed")
      ->envname("ENGRAM_MAX_CONNECTIONS_PER_IP")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
}

// SIGINT and SIGTERM, the signals that stop the server.
sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// Blocks the stop signals in this thread and so in every thread it starts from now on. Called
// before the engine, the job queue or the server start a thread: a thread that does not block
// them could take a SIGTERM meant for the watcher (the kernel gives a process's signal to any
// thread not blocking it), and its default action would end the process without a clean stop.
// One sent before the watcher starts stays pending and stops the server once it does.
void BlockStopSignals() {
  const sigset_t set = StopSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

// A watcher that stops the server when a stop signal arrives (BlockStopSignals first). Returns
// the watcher (joined by the caller).
std::thread WatchSignals(server::HttpServer* srv, std::atomic<int>* received) {
  return std::thread([srv, received, set = StopSignals()] {
    int sig = 0;
    sigwait(&set, &sig);
    received->store(sig);
    srv->Stop();
  });
}

// The write path's serve options (sessions, asynchronous jobs).
struct WriteFlags {
  SessionOptions sessions;
  int job_workers = 1;
  int64_t session_ttl_s = 1800;
  int64_t maintain_interval_s = 3600;
  double job_retention_days = 7;
  double audit_retention_days = 365;
  bool no_audit = false;
  std::string upstream_key_env = "OPENAI_API_KEY";  // the chat proxy's upstream key
  int upstream_timeout_s = 120;
  std::string redis_url;  // shared state of the replicas; empty: none
};

void AddWriteOptions(CLI::App* cmd, WriteFlags& w) {
  cmd->add_option("--redis", w.redis_url,
                  "Redis shared by the replicas of one database, redis://[:PASSWORD@]HOST[:PORT]"
                  "[/DB]: rate limits and session summary counts across replicas (without it, "
                  "or while it is down, each replica keeps its own)")
      ->envname("ENGRAM_REDIS");
  cmd->add_option("--working-token-budget", w.sessions.working_token_budget,
                  "Tokens of recent turns a session's working memory keeps")
      ->check(CLI::Range(16, 1 << 20));
  cmd->add_option("--session-ttl", w.session_ttl_s,
                  "Seconds an idle session's working memory stays loaded (turns stay stored)")
      ->check(CLI::Range(int64_t{1}, int64_t{86400 * 30}));
  cmd->add_option("--summarize-every", w.sessions.summarize_every,
                  "Write a session summary every this many turns (0: only on close)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--upstream-key-env", w.upstream_key_env,
                  "Environment variable holding the chat proxy upstream's API key")
      ->envname("ENGRAM_UPSTREAM_KEY_ENV")
      ->capture_default_str();
  cmd->add_option("--upstream-timeout", w.upstream_timeout_s,
                  "Seconds the chat proxy waits for the upstream's next bytes")
      ->envname("ENGRAM_UPSTREAM_TIMEOUT")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  cmd->add_option("--job-workers", w.job_workers, "Threads running asynchronous adds")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--job-retention-days", w.job_retention_days,
                  "Days a finished asynchronous job (its text and result) is kept for "
                  "GET /v1/jobs/{id}; 0: forever")
      ->envname("ENGRAM_JOB_RETENTION_DAYS")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3650.0));
  cmd->add_option("--audit-retention-days", w.audit_retention_days,
                  "Days the audit log (who read, changed, exported or purged which user's data) "
                  "keeps an entry; 0: forever")
      ->envname("ENGRAM_AUDIT_RETENTION_DAYS")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 36500.0));
  cmd->add_flag("--no-audit", w.no_audit, "Keep no audit log")->envname("ENGRAM_NO_AUDIT");
  cmd->add_option("--maintain-interval", w.maintain_interval_s,
                  "Seconds between incremental maintenance runs (what `engram maintain` does: "
                  "expire, archive faded memories, purge after the grace), on a thread of their "
                  "own; 0: off (env ENGRAM_MAINTAIN_INTERVAL)")
      ->envname("ENGRAM_MAINTAIN_INTERVAL")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{0}, int64_t{86400 * 365}));
}

int RunServe(Context& ctx, server::ServerOptions options, WriteFlags flags) {
  SessionOptions& sessions = flags.sessions;
  sessions.ttl_ms = flags.session_ttl_s * 1000;
  const int job_workers = flags.job_workers;
  options.openapi_json = server::kOpenApiDocument;
  if (!options.chat.upstream_url.empty()) {
    const std::string& url = options.chat.upstream_url;
    if (!url.starts_with("http://") && !url.starts_with("https://")) {
      return ctx.Fail(
          Status::InvalidArgument("--upstream-url must be an http:// or https:// URL, "
                                  "got '" +
                                  url + "'"));
    }
    while (options.chat.upstream_url.ends_with("/")) options.chat.upstream_url.pop_back();
    const char* key = std::getenv(flags.upstream_key_env.c_str());
    options.chat.api_key = key ? key : "";
    options.chat.timeout_ms = flags.upstream_timeout_s * 1000;
  }
  options.reads_block = ctx.embedder != "hash";  // the openai embedder: a request per query
  ctx.maintenance_interval_ms = flags.maintain_interval_s * 1000;
  BlockStopSignals();
  Engine* engine = ctx.OpenEngine(/*create=*/true);
  if (!engine) return ctx.last_exit;
  MemoryWriter* writer = ctx.OpenWriter();
  if (!writer) return ctx.last_exit;  // a bad --pii is a usage error, a bad database not
  SessionOptions session_options = sessions;
  std::unique_ptr<shared::Redis> redis;
  if (!flags.redis_url.empty()) {
    auto opened = shared::Redis::Open(flags.redis_url);
    if (!opened.ok()) return ctx.Fail(opened.status());
    redis = std::move(opened).value();
    // Not required to start: unreachable, it is logged now and the replica runs on its own.
    (void)redis->Command({"PING"});
    session_options.redis = redis.get();
    options.redis = redis.get();
  }
  auto llm = ctx.MakeLlm();
  if (!llm.ok()) return ctx.Fail(llm.status());
  session_options.llm = *llm;
  SessionManager session_manager(engine, writer, session_options);
  JobQueueOptions job_options;
  job_options.workers = job_workers;
  job_options.finished_retention_ms =
      static_cast<int64_t>(flags.job_retention_days * 24 * 60 * 60 * 1000);
  auto jobs = JobQueue::Open(engine, job_options);
  if (!jobs.ok()) return ctx.Fail(jobs.status());
  (*jobs)->Handle(server::kRememberJob, server::RememberJobHandler(writer));
  if (!ctx.LoadKey()) return ctx.last_exit;
  auto keys = KeyStore::Open(ctx.db_path, nullptr, ctx.key);
  if (!keys.ok()) return ctx.Fail(keys.status());
  auto active = (*keys)->CountActive();
  if (!active.ok()) return ctx.Fail(active.status());
  std::unique_ptr<server::AuditTrail> audit;
  if (!flags.no_audit) {
    auto store = AuditStore::Open(ctx.db_path, SystemClock::Default()->NowMs(), ctx.key);
    if (!store.ok()) return ctx.Fail(store.status());
    audit = std::make_unique<server::AuditTrail>(
        std::move(store).value(),
        static_cast<int64_t>(flags.audit_retention_days * 24 * 60 * 60 * 1000), nullptr);
    options.audit = audit.get();
  }

  // A relayed connection holds three descriptors (the client's socket and the relay's socket
  // pair), a direct one one: the soft limit (often 1,024) is raised to the hard one, and a hard
  // limit too low for --max-connections is said at start rather than found as EMFILE.
  if (rlimit fds{}; getrlimit(RLIMIT_NOFILE, &fds) == 0) {
    if (fds.rlim_cur < fds.rlim_max) {
      fds.rlim_cur = fds.rlim_max;
      setrlimit(RLIMIT_NOFILE, &fds);
    }
    const rlim_t need = static_cast<rlim_t>(options.max_connections) * 3 + 256;
    if (fds.rlim_cur != RLIM_INFINITY && fds.rlim_cur < need) {
      std::cerr << "engram serve: warning: the open-file limit (" << fds.rlim_cur
                << ") is below the " << need << " descriptors --max-connections "
                << options.max_connections
                << " may need; raise it (ulimit -n, LimitNOFILE=) or lower --max-connections\n";
    }
  }

  std::atomic<int> received{0};
  server::HttpServer srv(engine, keys->get(),
                         server::WritePath{writer, &session_manager, jobs->get()}, options);
  std::thread watcher = WatchSignals(&srv, &received);
  Status started = srv.Start();
  if (!started.ok()) {
    pthread_kill(watcher.native_handle(), SIGTERM);
    watcher.join();
    return ctx.Fail(started);
  }
  const std::string scheme = options.tls_cert_file.empty() ? "http://" : "https://";
  std::cerr << "engram serve: listening on " << scheme << options.host << ":" << srv.port()
            << "  (database " << ctx.db_path << ", embedder " << ctx.embedder << ")\n";
  if (*active == 0) {
    std::cerr << "engram serve: no API keys exist: requests without a key act as tenant "
                 "'default'; this is allowed only on loopback addresses\n";
  }
  std::cout << scheme << options.host << ":" << srv.port() << std::endl;
  (*jobs)->Start();
  srv.Wait();
  (*jobs)->Stop();  // a job cut short by the stop is queued again at the next start
  if (received.load() == 0) pthread_kill(watcher.native_handle(), SIGTERM);
  watcher.join();
  std::cerr << "engram serve: stopped; closing the database\n";
  ctx.engine.reset();  // flushes access statistics and index snapshots
  return kExitOk;
}

void PrintKey(const ApiKeyInfo& k, bool as_json, const std::string& secret = "") {
  if (as_json) {
    json j = api::KeyToJson(k);
    if (!secret.empty()) j["secret"] = secret;
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << std::left << std::setw(18) << k.id << " " << std::setw(16) << k.tenant << " "
            << std::setw(7) << ToString(k.role) << " " << std::setw(11) << k.prefix << " "
            << ShortTime(k.created_at) << "  "
            << (k.revoked_at ? "revoked " + ShortTime(*k.revoked_at) : std::string("active"))
            << "  " << k.name << "\n";
}

// Flag values of the key commands, read by their callbacks after parsing.
struct KeyFlags {
  std::string name;
  bool admin = false;
  std::string only_tenant;
  std::string id;
};

void AddKeyCommands(CLI::App& app, Context& ctx) {
  CLI::App* keys = app.add_subcommand("keys", "Manage the server's API keys");
  keys->require_subcommand(1);
  auto flags = std::make_shared<KeyFlags>();

  CLI::App* create =
      keys->add_subcommand("create", "Create a key for --tenant; its secret is shown once");
  create->add_option("--name", flags->name, "A label for the key");
  create->add_flag("--admin", flags->admin, "May also create, list and revoke keys over HTTP");
  create->callback([&ctx, flags] {
    ctx.action = [&ctx, flags] {
      const bool admin = flags->admin;
      if (!ctx.LoadKey()) return ctx.last_exit;
      auto store = KeyStore::Open(ctx.db_path, nullptr, ctx.key);
      if (!store.ok()) return ctx.Fail(store.status());
      auto key =
          (*store)->Create(ctx.tenant, flags->name, admin ? KeyRole::kAdmin : KeyRole::kTenant);
      if (!key.ok()) return ctx.Fail(key.status());
      if (ctx.json) {
        PrintKey(key->info, true, key->secret);
      } else {
        std::cout << "created " << key->info.id << " for tenant " << key->info.tenant
                  << (admin ? " (admin)" : "") << "\nsecret (shown only now): " << key->secret
                  << "\n";
      }
      return kExitOk;
    };
  });

  CLI::App* list = keys->add_subcommand("list", "List keys (never their secrets)");
  list->add_option("--for", flags->only_tenant, "Only this tenant's keys (default: every tenant)");
  list->callback([&ctx, flags] {
    ctx.action = [&ctx, flags] {
      if (!ctx.RequireDatabase()) return ctx.last_exit;
      if (!ctx.LoadKey()) return ctx.last_exit;
      auto store = KeyStore::Open(ctx.db_path, nullptr, ctx.key);
      if (!store.ok()) return ctx.Fail(store.status());
      auto all = (*store)->List(flags->only_tenant);
      if (!all.ok()) return ctx.Fail(all.status());
      for (const ApiKeyInfo& k : *all) PrintKey(k, ctx.json);
      return kExitOk;
    };
  });

  CLI::App* revoke = keys->add_subcommand("revoke", "Revoke a key at once");
  revoke->add_option("id", flags->id, "The key's id (key_…)")->required();
  revoke->callback([&ctx, flags] {
    ctx.action = [&ctx, flags] {
      if (!ctx.RequireDatabase()) return ctx.last_exit;
      if (!ctx.LoadKey()) return ctx.last_exit;
      auto store = KeyStore::Open(ctx.db_path, nullptr, ctx.key);
      if (!store.ok()) return ctx.Fail(store.status());
      Status st = (*store)->Revoke(flags->id);
      if (!st.ok()) return ctx.Fail(st);
      if (!ctx.json) std::cout << "revoked " << flags->id << "\n";
      return kExitOk;
    };
  });
}

struct AuditFlags {
  std::string only_tenant;
  std::string since;
  int limit = 100;
};

// `engram audit`: the server's audit log, newest first (what GET /v1/admin/audit serves).
void AddAuditCommand(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<AuditFlags>();
  CLI::App* audit = app.add_subcommand(
      "audit", "Show the audit log: who read, changed, exported or purged which user's data");
  audit->add_option("--for", flags->only_tenant, "Only this tenant (default: every tenant)");
  audit->add_option("--since", flags->since, "Only entries at or after this time (ISO-8601)");
  audit->add_option("--limit", flags->limit, "Most entries shown (1..10000)")
      ->capture_default_str();
  audit->callback([&ctx, flags] {
    ctx.action = [&ctx, flags] {
      if (!ctx.RequireDatabase() || !ctx.LoadKey()) return ctx.last_exit;
      AuditQuery q;
      q.tenant = flags->only_tenant;
      q.user_id = ctx.user;
      q.limit = flags->limit;
      if (!flags->since.empty()) {
        auto since = ParseTimestamp(flags->since);
        if (!since.ok()) return ctx.Fail(since.status().WithContext("--since"));
        q.since = *since;
      }
      auto store = AuditStore::Open(ctx.db_path, SystemClock::Default()->NowMs(), ctx.key);
      if (!store.ok()) return ctx.Fail(store.status());
      auto rows = (*store)->List(q);
      if (!rows.ok()) return ctx.Fail(rows.status());
      for (const AuditEntry& e : *rows) {
        if (ctx.json) {
          std::cout << server::AuditEntryToJson(e).dump() << "\n";
          continue;
        }
        std::cout << FormatTimestamp(e.at) << "  " << std::left << std::setw(8) << e.action << " "
                  << e.status << "  " << e.method << " " << e.route << "  tenant " << e.tenant
                  << (e.user_id.empty() ? "" : " user " + e.user_id)
                  << (e.target.empty() ? "" : " id " + e.target) << "  key "
                  << (e.key_id.empty() ? "(none)" : e.key_id) << "  from " << e.remote << "  "
                  << e.request_id << "\n";
      }
      return kExitOk;
    };
  });
}

}  // namespace

void AddServeCommands(CLI::App& app, Context& ctx) {
  auto options = std::make_shared<server::ServerOptions>();
  auto write = std::make_shared<WriteFlags>();
  CLI::App* serve = app.add_subcommand(
      "serve", "Run the HTTP API server (v1) on the database; stops cleanly on SIGTERM/SIGINT");
  AddServeOptions(serve, *options);
  AddWriteOptions(serve, *write);
  serve->callback([&ctx, options, write] {
    ctx.action = [&ctx, options, write] { return RunServe(ctx, *options, *write); };
  });
  AddKeyCommands(app, ctx);
  AddAuditCommand(app, ctx);
}

}  // namespace engram::cli
