// engram add | get | list | update | delete | purge | history | sessions | scopes
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "api/responses.h"
#include "cli/cli_app.h"
#include "cli/flag_parsing.h"
#include "cli/output.h"
#include "engram/clock.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;

// Options of `add` and `update` that describe an item.
struct ItemFlags {
  std::string type, tier, metadata, valid_from, valid_to, expires_at, reason;
  bool clear_expires_at = false;  // update only
  std::vector<std::string> tags, entities, meta;
  std::optional<double> importance, confidence;
};

void AddItemFlags(CLI::App* cmd, ItemFlags& f) {
  cmd->add_option("--type,-t", f.type,
                  "fact, preference, goal, event, opinion, decision, "
                  "commitment, summary, skill, knowledge, profile, message");
  cmd->add_option("--tier", f.tier,
                  "working, episodic, semantic, knowledge (default: from the type)");
  cmd->add_option("--tag", f.tags, "A tag (repeat or comma-separate)")->delimiter(',');
  cmd->add_option("--entity", f.entities, "An entity the memory is about (repeatable)")
      ->delimiter(',');
  cmd->add_option("--meta", f.meta, "Metadata key=value (repeatable)");
  cmd->add_option("--metadata", f.metadata, "Metadata as a JSON object");
  cmd->add_option("--importance", f.importance, "0..1");
  cmd->add_option("--confidence", f.confidence, "0..1");
  cmd->add_option("--valid-from", f.valid_from, "When the fact began to hold (ISO-8601)");
  cmd->add_option("--valid-to", f.valid_to, "When it stopped holding (ISO-8601)");
  cmd->add_option("--expires-at", f.expires_at,
                  "When it stops being worth recalling (ISO-8601): expired memories leave "
                  "search at once and maintenance archives them");
  cmd->add_option("--reason", f.reason, "Recorded in the history row");
}

// Merges --metadata and --meta into one JSON object text.
Result<std::string> MetadataText(const ItemFlags& f) {
  json obj = json::object();
  if (!f.metadata.empty()) {
    obj = json::parse(f.metadata, nullptr, /*allow_exceptions=*/false);
    if (obj.is_discarded() || !obj.is_object()) {
      return Status::InvalidArgument("--metadata must be a JSON object");
    }
  }
  for (const std::string& kv : f.meta) {
    auto parsed = ParseKeyValue(kv);
    if (!parsed.ok()) return parsed.status();
    obj[parsed->first] = parsed->second;
  }
  return obj.dump();
}

std::string ReadTextArg(const std::string& text_arg) {
  if (text_arg != "-") return text_arg;
  std::string text(std::istreambuf_iterator<char>(std::cin), {});
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// engram add --no-infer: one memory exactly as given (after the privacy policy).
int RunAddAsGiven(Context& ctx, const std::string& text_arg, const ItemFlags& f,
                  const std::string& created_at) {
  auto scope = ctx.RequireScope();
  if (!scope) return kExitUsage;
  NewMemory m;
  m.content = ReadTextArg(text_arg);
  if (!f.type.empty()) {
    auto t = ParseMemoryType(f.type);
    if (!t.ok()) return ctx.Fail(t.status());
    m.type = *t;
  }
  if (!f.tier.empty()) {
    auto t = ParseTier(f.tier);
    if (!t.ok()) return ctx.Fail(t.status());
    m.tier = *t;
  }
  auto md = MetadataText(f);
  if (!md.ok()) return ctx.Fail(md.status());
  m.metadata = *md;
  m.tags = f.tags;
  m.entities = f.entities;
  m.importance = f.importance;
  m.confidence = f.confidence;
  m.reason = f.reason;
  for (auto [text, field] :
       {std::pair{&created_at, &m.created_at}, std::pair{&f.valid_from, &m.valid_from},
        std::pair{&f.valid_to, &m.valid_to}, std::pair{&f.expires_at, &m.expires_at}}) {
    auto t = OptTime(*text);
    if (!t.ok()) return ctx.Fail(t.status());
    *field = *t;
  }
  MemoryWriter* writer = ctx.OpenWriter();
  if (!writer) return ctx.last_exit;  // a bad --pii is a usage error, a bad database not
  auto items = writer->AddAsGiven(*scope, {m});
  if (!items.ok()) return ctx.Fail(items.status());
  if (ctx.json) {
    PrintItem(std::cout, items->front(), true);
  } else {
    std::cout << "added " << items->front().id << "\n";
  }
  return kExitOk;
}

int RunUpdate(Context& ctx, const std::string& id, const std::optional<std::string>& content,
              const ItemFlags& f, const std::string& status, bool clear_valid_to) {
  auto scope = ctx.RequireScope();
  if (!scope) return kExitUsage;
  MemoryPatch p;
  p.content = content;
  if (!f.type.empty()) {
    auto t = ParseMemoryType(f.type);
    if (!t.ok()) return ctx.Fail(t.status());
    p.type = *t;
  }
  if (!f.tier.empty()) {
    auto t = ParseTier(f.tier);
    if (!t.ok()) return ctx.Fail(t.status());
    p.tier = *t;
  }
  if (!status.empty()) {
    auto s = ParseItemStatus(status);
    if (!s.ok()) return ctx.Fail(s.status());
    p.status = *s;
  }
  if (!f.tags.empty()) p.tags = f.tags;
  if (!f.entities.empty()) p.entities = f.entities;
  if (!f.metadata.empty() || !f.meta.empty()) {
    auto md = MetadataText(f);
    if (!md.ok()) return ctx.Fail(md.status());
    p.metadata = *md;
  }
  p.importance = f.importance;
  p.confidence = f.confidence;
  p.clear_valid_to = clear_valid_to;
  p.reason = f.reason;
  auto from = OptTime(f.valid_from);
  auto to = OptTime(f.valid_to);
  if (!from.ok()) return ctx.Fail(from.status());
  if (!to.ok()) return ctx.Fail(to.status());
  p.valid_from = *from;
  p.valid_to = *to;
  auto expires = OptTime(f.expires_at);
  if (!expires.ok()) return ctx.Fail(expires.status().WithContext("--expires-at"));
  p.expires_at = *expires;
  p.clear_expires_at = f.clear_expires_at;
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  auto item = engine->Update(*scope, id, p);
  if (!item.ok()) return ctx.Fail(item.status());
  if (ctx.json) {
    PrintItem(std::cout, *item, true);
  } else {
    std::cout << "updated " << item->id << "\n";
  }
  return kExitOk;
}

struct ListFlags {
  std::vector<std::string> types, tiers, statuses, tags, meta;
  std::string after, before, cursor;
  int limit = 20;
};

Result<ListQuery> BuildQuery(const ListFlags& f) {
  ListQuery q;
  q.limit = f.limit;
  q.cursor = f.cursor;
  q.tags = f.tags;
  auto types = ParseEnums(f.types, &ParseMemoryType);
  if (!types.ok()) return types.status();
  q.types = *types;
  auto tiers = ParseEnums(f.tiers, &ParseTier);
  if (!tiers.ok()) return tiers.status();
  q.tiers = *tiers;
  auto statuses = ParseStatuses(f.statuses, q.statuses);
  if (!statuses.ok()) return statuses.status();
  q.statuses = *statuses;
  auto after = OptTime(f.after);
  if (!after.ok()) return after.status();
  auto before = OptTime(f.before);
  if (!before.ok()) return before.status();
  q.created_after = *after;
  q.created_before = *before;
  auto meta = ParseConditions(f.meta);
  if (!meta.ok()) return meta.status();
  q.metadata = *meta;
  return q;
}

int RunList(Context& ctx, const ListFlags& f) {
  auto scope = ctx.RequireScope();
  if (!scope) return kExitUsage;
  auto q = BuildQuery(f);
  if (!q.ok()) return ctx.Fail(q.status());
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  auto page = engine->List(*scope, *q);
  if (!page.ok()) return ctx.Fail(page.status());
  PrintPage(std::cout, *page, ctx.json);
  return kExitOk;
}

// The flags `add` accepts only when storing as given (--no-infer): with extraction they are
// decided by the write path, as the HTTP API refuses them with infer.
Status RefuseAsGivenFlags(const ItemFlags& f) {
  const std::pair<bool, const char*> given[] = {{!f.type.empty(), "--type"},
                                                {!f.tier.empty(), "--tier"},
                                                {!f.entities.empty(), "--entity"},
                                                {f.confidence.has_value(), "--confidence"},
                                                {!f.valid_from.empty(), "--valid-from"},
                                                {!f.valid_to.empty(), "--valid-to"},
                                                {!f.expires_at.empty(), "--expires-at"},
                                                {!f.reason.empty(), "--reason"}};
  for (const auto& [set, name] : given) {
    if (set) {
      return Status::InvalidArgument(std::string(name) +
                                     " is decided by extraction; add --no-infer to store the "
                                     "text exactly as given");
    }
  }
  return Status::Ok();
}

// engram add (infer, the default) and engram remember: the write path (privacy, the turn
// kept, extraction, decisions) over one user message.
int RunRemember(Context& ctx, const std::string& text_arg, const ItemFlags& f,
                const std::string& created_at) {
  auto scope = ctx.RequireScope();
  if (!scope) return kExitUsage;
  if (Status refused = RefuseAsGivenFlags(f); !refused.ok()) return ctx.Fail(refused);
  RememberOptions options;
  auto md = MetadataText(f);
  if (!md.ok()) return ctx.Fail(md.status());
  options.metadata = *md;
  options.tags = f.tags;
  options.importance = f.importance;
  auto at = OptTime(created_at);
  if (!at.ok()) return ctx.Fail(at.status());
  MemoryWriter* writer = ctx.OpenWriter();
  if (!writer) return ctx.last_exit;  // a bad --pii is a usage error, a bad database not
  auto result = writer->Remember(*scope, {Turn{"user", ReadTextArg(text_arg), at->value_or(0), ""}},
                                 {}, options);
  if (!result.ok()) return ctx.Fail(result.status());
  if (ctx.json) {
    std::cout << api::RememberedToJson({*result}).dump() << "\n";
    return kExitOk;
  }
  if (!result->extraction_error.empty()) {
    std::cerr << "engram: extraction failed, the message was kept as said: "
              << result->extraction_error << "\n";
  }
  for (const WriteOutcome& w : result->writes) {
    std::cout << (w.turn ? "TURN" : ToString(w.decision)) << " " << w.memory.id << "  "
              << (w.turn ? "" : "[" + std::string(ToString(w.memory.type)) + "] ")
              << w.memory.content;
    if (w.decision == WriteDecision::kSupersede)
      std::cout << "  (replaces " << w.replaced.id << ")";
    std::cout << "\n";
  }
  for (const SkippedTurn& s : result->skipped) std::cout << "not kept: " << s.reason << "\n";
  return kExitOk;
}

// engram sessions: the sessions of --user (narrowed to --agent), newest first.
int RunSessions(Context& ctx, const PageRequest& page) {
  auto scope = ctx.RequireScope();
  if (!scope) return kExitUsage;
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  auto listed = engine->ListSessions(*scope, page);
  if (!listed.ok()) return ctx.Fail(listed.status());
  if (ctx.json) {
    std::cout << api::SessionPageToJson(*listed).dump() << "\n";  // as GET /v1/sessions
    return kExitOk;
  }
  if (listed->sessions.empty()) std::cout << "(no sessions)\n";
  for (const SessionSummary& s : listed->sessions) {
    std::cout << s.session_id << "  started " << ShortTime(s.started_at) << "  " << s.turn_count
              << " turns";
    if (s.last_turn_at) std::cout << ", last " << ShortTime(*s.last_turn_at);
    if (!s.agent_id.empty()) std::cout << "  agent " << s.agent_id;
    if (s.closed_at) std::cout << "  closed";
    std::cout << "\n";
  }
  if (!listed->next_cursor.empty()) std::cout << "(more: --cursor " << listed->next_cursor << ")\n";
  return kExitOk;
}

// Runs `fn(engine, scope)` after the usual checks; for the one-id commands.
template <typename Fn>
int WithEngine(Context& ctx, Fn fn) {
  auto scope = ctx.RequireScope();
  if (!scope) return kExitUsage;
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  return fn(*engine, *scope);
}

// Flag values of every item command; shared with the callbacks that read them after parsing.
struct ItemCommandState {
  std::string add_text, add_created, remember_text, remember_created;
  bool add_no_infer = false;
  ItemFlags add_flags, remember_flags;
  std::string get_id;
  ListFlags lf;
  std::string up_id, up_status;
  std::optional<std::string> up_content;
  ItemFlags up_flags;
  bool up_clear_valid_to = false;
  std::string del_id, del_reason;
  std::string purge_id;
  bool purge_all = false, purge_yes = false, purge_keep_source_turns = false, purge_verify = false;
  bool purge_tenant = false;
  std::string hist_id;
  bool all_tenants = false;
  PageRequest sessions_page;
};

}  // namespace

// `engram purge --tenant-all --yes [--verify]`: every user of --tenant.
static int PurgeTenantCommand(Context& ctx, const ItemCommandState& st) {
  if (st.purge_all || !st.purge_id.empty()) {
    return ctx.Fail(Status::InvalidArgument("--tenant-all goes without an id or --all-memories"));
  }
  if (!st.purge_yes) {
    return ctx.Fail(Status::InvalidArgument("--tenant-all needs --yes: it cannot be undone"));
  }
  Engine* e = ctx.OpenEngine();
  if (!e) return ctx.last_exit;
  int64_t users = 0;
  auto v = e->PurgeTenant(ctx.tenant, st.purge_verify, &users);
  if (!v.ok()) return ctx.Fail(v.status());
  const TraceReport& scan = v->scan;
  if (ctx.json) {
    json out{{"tenant", ctx.tenant},
             {"users", users},
             {"purged", v->removed},
             {"purge_ms", v->purge_ms}};
    if (st.purge_verify) {
      out["verified"] = scan.traces.empty();
      out["files"] = scan.files;
      out["bytes"] = scan.bytes;
      out["needles"] = scan.needles;
      out["shared"] = scan.shared;
      out["traces"] = scan.traces;
      out["scan_ms"] = v->scan_ms;
    }
    std::cout << out.dump() << "\n";
  } else {
    std::cout << "purged " << v->removed << " memories of " << users << " users of tenant "
              << ctx.tenant << " in " << v->purge_ms << " ms\n";
    if (st.purge_verify) {
      for (const std::string& t : scan.traces) std::cout << "TRACE " << t << "\n";
      std::cout << (scan.traces.empty() ? "verified: no trace of " : "NOT verified: ")
                << (scan.traces.empty() ? scan.needles : static_cast<int64_t>(scan.traces.size()))
                << (scan.traces.empty() ? " texts and vectors" : " traces") << " in " << scan.files
                << " files (" << scan.bytes << " bytes, " << v->scan_ms << " ms)\n";
    }
  }
  return scan.traces.empty() ? kExitOk : kExitTraces;
}

void AddItemCommands(CLI::App& app, Context& ctx) {
  auto state = std::make_shared<ItemCommandState>();
  ItemCommandState& st = *state;
  auto* add = app.add_subcommand(
      "add",
      "Remember what the user said: the turn is kept and memories are extracted from it "
      "and reconciled with the stored ones (ADD, UPDATE, SUPERSEDE, NOOP; --extractor, "
      "--pii, --keep-turns); --no-infer stores the text exactly as given");
  add->add_option("text", st.add_text,
                  "What the user said, or with --no-infer the memory's "
                  "content ('-' reads standard input)")
      ->required();
  add->add_option("--created-at", st.add_created,
                  "When it was said (ISO-8601; default now): "
                  "relative dates resolve from it");
  add->add_flag("--no-infer", st.add_no_infer,
                "Store the text exactly as given (no turn kept, no extraction); --type, --tier, "
                "--entity, --confidence, --valid-from/--valid-to and --reason apply then");
  AddItemFlags(add, st.add_flags);
  add->callback([&ctx, state] {
    ctx.action = [&ctx, state] {
      ItemCommandState& st = *state;
      return st.add_no_infer ? RunAddAsGiven(ctx, st.add_text, st.add_flags, st.add_created)
                             : RunRemember(ctx, st.add_text, st.add_flags, st.add_created);
    };
  });

  auto* remember = app.add_subcommand(
      "remember", "The same as `add` with extraction (kept for scripts that use it)");
  remember->add_option("text", st.remember_text, "What the user said ('-' reads standard input)")
      ->required();
  remember->add_option("--created-at", st.remember_created, "When it was said (ISO-8601)");
  remember->add_option("--tag", st.remember_flags.tags, "A tag (repeat or comma-separate)")
      ->delimiter(',');
  remember->add_option("--meta", st.remember_flags.meta, "Metadata key=value (repeatable)");
  remember->add_option("--importance", st.remember_flags.importance, "0..1");
  remember->callback([&ctx, state] {
    ctx.action = [&ctx, state] {
      return RunRemember(ctx, state->remember_text, state->remember_flags, state->remember_created);
    };
  });

  auto* get = app.add_subcommand("get", "Show one memory");
  get->add_option("id", st.get_id, "Memory id")->required();
  get->callback([&ctx, state] {
    ctx.action = [&ctx, state] {
      ItemCommandState& st = *state;
      return WithEngine(ctx, [&](Engine& e, const Scope& s) {
        auto item = e.Get(s, st.get_id);
        if (!item.ok()) return ctx.Fail(item.status());
        PrintItem(std::cout, *item, ctx.json);
        return kExitOk;
      });
    };
  });

  auto* list = app.add_subcommand("list", "List memories, newest first");
  list->add_option("--type,-t", st.lf.types, "Only these types")->delimiter(',');
  list->add_option("--tier", st.lf.tiers, "Only these tiers")->delimiter(',');
  list->add_option("--status", st.lf.statuses, "Only these statuses, or 'all' (default active)")
      ->delimiter(',');
  list->add_option("--after", st.lf.after, "Created at or after (ISO-8601)");
  list->add_option("--before", st.lf.before, "Created before (ISO-8601)");
  list->add_option("--tag", st.lf.tags, "Carrying this tag (repeatable: all must match)")
      ->delimiter(',');
  list->add_option("--meta", st.lf.meta, "Metadata key=value equality (repeatable)");
  list->add_option("--limit,-n", st.lf.limit, "Page size, 1..1000")->capture_default_str();
  list->add_option("--cursor", st.lf.cursor, "Continue after a previous page");
  list->callback([&ctx, state] {
    ctx.action = [&ctx, state] {
      ItemCommandState& st = *state;
      return RunList(ctx, st.lf);
    };
  });

  auto* update = app.add_subcommand("update", "Change a memory (history keeps the old value)");
  update->add_option("id", st.up_id, "Memory id")->required();
  update->add_option("--content,-c", st.up_content, "New content");
  update->add_option("--status", st.up_status, "active or archived");
  update->add_flag("--clear-valid-to", st.up_clear_valid_to, "The fact holds again");
  update->add_flag("--clear-expires-at", st.up_flags.clear_expires_at, "It never expires");
  AddItemFlags(update, st.up_flags);
  update->callback([&ctx, state] {
    ctx.action = [&ctx, state] {
      ItemCommandState& st = *state;
      return RunUpdate(ctx, st.up_id, st.up_content, st.up_flags, st.up_status,
                       st.up_clear_valid_to);
    };
  });

  auto* del = app.add_subcommand("delete", "Soft-delete a memory (kept in history)");
  del->add_option("id", st.del_id, "Memory id")->required();
  del->add_option("--reason", st.del_reason, "Recorded in the history row");
  del->callback([&ctx, state] {
    ctx.action = [&ctx, state] {
      ItemCommandState& st = *state;
      return WithEngine(ctx, [&](Engine& e, const Scope& s) {
        Status status = e.Delete(s, st.del_id, st.del_reason);
        if (!status.ok()) return ctx.Fail(status);
        if (!ctx.json)
          std::cout << "deleted " << st.del_id << "\n";
        else
          std::cout << json{{"deleted", st.del_id}}.dump() << "\n";
        return kExitOk;
      });
    };
  });

  auto* purge = app.add_subcommand(
      "purge", "Hard-delete a memory, or with --all-memories everything of --user");
  purge->add_option("id", st.purge_id, "Memory id");
  purge->add_flag("--all-memories", st.purge_all,
                  "Remove every memory, history row and vector of --user");
  purge->add_flag("--tenant-all", st.purge_tenant,
                  "Remove everything of every user of --tenant (its API keys stay: revoke them)");
  purge->add_flag("--yes", st.purge_yes, "Confirm --all-memories or --tenant-all");
  purge->add_flag("--verify", st.purge_verify,
                  "With --all-memories: then scan every file of the database for what was "
                  "purged (texts, normalized texts, vector bytes); exit 6 if any is found");
  purge->add_flag("--keep-source-turns", st.purge_keep_source_turns,
                  "Keep the conversation the memory came from (by default its kept turns, "
                  "session turns and their summaries are purged with it)");
  purge->callback([&ctx, state] {
    ctx.action = [&ctx, state] {
      ItemCommandState& st = *state;
      if (st.purge_tenant) return PurgeTenantCommand(ctx, st);
      return WithEngine(ctx, [&](Engine& e, const Scope& s) {
        if (st.purge_all == !st.purge_id.empty()) {
          return ctx.FailUsage("give either a memory id or --all-memories");
        }
        if (st.purge_all && !st.purge_yes) {
          return ctx.Fail(
              Status::InvalidArgument("--all-memories needs --yes: it cannot be undone"));
        }
        if (st.purge_verify && !st.purge_all) {
          return ctx.Fail(Status::InvalidArgument("--verify goes with --all-memories"));
        }
        if (st.purge_verify) {
          auto v = e.PurgeScopeVerified(s);
          if (!v.ok()) return ctx.Fail(v.status());
          const TraceReport& scan = v->scan;
          if (ctx.json) {
            std::cout << json{{"purged", v->removed},    {"verified", scan.traces.empty()},
                              {"files", scan.files},     {"bytes", scan.bytes},
                              {"needles", scan.needles}, {"shared", scan.shared},
                              {"traces", scan.traces},   {"purge_ms", v->purge_ms},
                              {"scan_ms", v->scan_ms}}
                             .dump()
                      << "\n";
          } else {
            std::cout << "purged " << v->removed << " memories of user " << s.user_id << " in "
                      << v->purge_ms << " ms\n";
            for (const std::string& t : scan.traces) std::cout << "TRACE " << t << "\n";
            if (scan.traces.empty()) {
              std::cout << "verified: no trace of " << scan.needles << " texts and vectors";
            } else {
              std::cout << "NOT verified: " << scan.traces.size() << " traces";
            }
            std::cout << " in " << scan.files << " files (" << scan.bytes << " bytes, "
                      << v->scan_ms << " ms)";
            if (scan.shared > 0) {
              std::cout << "; " << scan.shared
                        << " of them are also in other users' data, which stays";
            }
            std::cout << "\n";
          }
          return scan.traces.empty() ? kExitOk : kExitTraces;
        }
        if (st.purge_all) {
          auto n = e.PurgeScope(s);
          if (!n.ok()) return ctx.Fail(n.status());
          if (ctx.json)
            std::cout << json{{"purged", *n}}.dump() << "\n";
          else
            std::cout << "purged " << *n << " memories of user " << s.user_id << "\n";
          return kExitOk;
        }
        auto purged =
            e.Purge(s, st.purge_id, PurgeOptions{.source_turns = !st.purge_keep_source_turns});
        if (!purged.ok()) return ctx.Fail(purged.status());
        if (ctx.json) {
          // "purged" stays the count it always was (as for --all-memories); the ids beside it.
          std::cout << json{{"purged", purged->ids.size()},
                            {"ids", purged->ids},
                            {"session_turns", purged->session_turns},
                            {"jobs", purged->jobs}}
                           .dump()
                    << "\n";
          return kExitOk;
        }
        std::cout << "purged " << st.purge_id;
        if (purged->ids.size() > 1) {
          std::cout << " and " << purged->ids.size() - 1
                    << " memories of the conversation it came from (kept turns, summaries)";
        }
        if (purged->session_turns > 0)
          std::cout << ", " << purged->session_turns << " session turns";
        if (purged->jobs > 0) std::cout << ", " << purged->jobs << " jobs";
        std::cout << "\n";
        return kExitOk;
      });
    };
  });

  auto* history = app.add_subcommand("history", "Show every recorded change of a memory");
  history->add_option("id", st.hist_id, "Memory id")->required();
  history->callback([&ctx, state] {
    ctx.action = [&ctx, state] {
      ItemCommandState& st = *state;
      return WithEngine(ctx, [&](Engine& e, const Scope& s) {
        auto h = e.History(s, st.hist_id);
        if (!h.ok()) return ctx.Fail(h.status());
        PrintHistory(std::cout, *h, ctx.json);
        return kExitOk;
      });
    };
  });

  auto* sessions = app.add_subcommand(
      "sessions", "List the conversation sessions of --user (narrowed to --agent), newest first");
  sessions->add_option("--limit,-n", st.sessions_page.limit, "Page size, 1..1000")
      ->capture_default_str();
  sessions->add_option("--cursor", st.sessions_page.cursor, "Continue after a previous page");
  sessions->callback([&ctx, state] {
    ctx.action = [&ctx, state] { return RunSessions(ctx, state->sessions_page); };
  });

  auto* scopes = app.add_subcommand(
      "scopes", "List the users holding memories (of --tenant, or --all-tenants)");
  scopes->add_flag("--all-tenants", st.all_tenants, "Every tenant");
  scopes->callback([&ctx, state] {
    ctx.action = [&ctx, state] {
      ItemCommandState& st = *state;
      Engine* e = ctx.OpenEngine();
      if (!e) return ctx.last_exit;
      auto list = e->ListScopes(st.all_tenants ? "" : ctx.tenant);
      if (!list.ok()) return ctx.Fail(list.status());
      json out = json::array();
      for (const ScopeSummary& s : *list) {
        if (ctx.json)
          out.push_back({{"tenant", s.tenant}, {"user_id", s.user_id}, {"items", s.items}});
        else
          std::cout << s.tenant << "\t" << s.user_id << "\t" << s.items << "\n";
      }
      if (ctx.json) std::cout << json{{"scopes", out}}.dump() << "\n";
      return kExitOk;
    };
  });
}

}  // namespace engram::cli
