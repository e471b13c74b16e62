// engram search | context | profile | recall | reembed
#include <unistd.h>

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "api/responses.h"
#include "cli/cli_app.h"
#include "cli/flag_parsing.h"
#include "cli/output.h"

namespace engram::cli {
namespace {

using json = nlohmann::json;

struct SearchFlags {
  std::string query;
  int k = 10;
  std::vector<std::string> types, tiers, statuses, tags, entities, meta;
  std::string after, before, fusion = "weighted";
  std::optional<double> min_score;
  bool explain = false;
  bool no_diversify = false;
  bool no_graph = false;
  int budget = 1000;
  bool profile = false;  // context: lead with the user's profile
};

void AddSearchFlags(CLI::App* cmd, SearchFlags& f) {
  cmd->add_option("query", f.query, "What to look for")->required();
  cmd->add_option("-k", f.k, "How many memories, 1..100")->capture_default_str();
  cmd->add_option("--type,-t", f.types, "Only these types")->delimiter(',');
  cmd->add_option("--tier", f.tiers, "Only these tiers")->delimiter(',');
  cmd->add_option("--status", f.statuses, "Only these statuses, or 'all' (default active)")
      ->delimiter(',');
  cmd->add_option("--after", f.after, "Created at or after (ISO-8601)");
  cmd->add_option("--before", f.before, "Created before (ISO-8601)");
  cmd->add_option("--tag", f.tags, "Carrying this tag (all must match)")->delimiter(',');
  cmd->add_option("--entity", f.entities, "About this entity (all must match)")->delimiter(',');
  cmd->add_option("--meta", f.meta, "Metadata key=value equality (repeatable)");
  cmd->add_option("--min-score", f.min_score, "Drop results scoring below this (0..1)");
  cmd->add_option("--fusion", f.fusion, "weighted or rrf")->capture_default_str();
  cmd->add_flag("--explain", f.explain, "Show each signal's score");
  cmd->add_flag("--no-diversify", f.no_diversify, "Keep near-duplicates");
  cmd->add_flag("--no-graph", f.no_graph, "Do not follow the entity graph from names in the query");
}

Result<SearchQuery> BuildSearchQuery(const SearchFlags& f) {
  SearchQuery q;
  q.text = f.query;
  q.k = f.k;
  q.min_score = f.min_score;
  q.explain = f.explain;
  q.diversify = !f.no_diversify;
  q.graph = !f.no_graph;
  if (f.fusion == "rrf") {
    q.fusion = FusionMode::kReciprocalRank;
  } else if (f.fusion != "weighted") {
    return Status::InvalidArgument("--fusion must be weighted or rrf");
  }
  auto types = ParseEnums(f.types, &ParseMemoryType);
  if (!types.ok()) return types.status();
  q.filters.types = *types;
  auto tiers = ParseEnums(f.tiers, &ParseTier);
  if (!tiers.ok()) return tiers.status();
  q.filters.tiers = *tiers;
  auto statuses = ParseStatuses(f.statuses, {ItemStatus::kActive});
  if (!statuses.ok()) return statuses.status();
  q.filters.statuses = *statuses;
  auto after = OptTime(f.after);
  if (!after.ok()) return after.status();
  auto before = OptTime(f.before);
  if (!before.ok()) return before.status();
  q.filters.created_after = *after;
  q.filters.created_before = *before;
  q.filters.tags = f.tags;
  q.filters.entities = f.entities;
  auto meta = ParseConditions(f.meta);
  if (!meta.ok()) return meta.status();
  q.filters.metadata = *meta;
  return q;
}

void PrintHits(const std::vector<SearchHit>& hits, bool explain) {
  if (hits.empty()) {
    std::cout << "(no matching memories)\n";
    return;
  }
  int rank = 0;
  for (const SearchHit& h : hits) {
    std::cout << std::right << std::setw(2) << ++rank << ". " << std::fixed << std::setprecision(3)
              << h.score << "  " << h.item.id << "  " << std::left << std::setw(10)
              << ToString(h.item.type) << " " << h.item.content << "\n";
    if (explain) {
      const ScoreExplain& e = h.explain;
      std::cout << "      keyword " << e.keyword << " (rank " << e.keyword_rank << ")  vector "
                << e.vector << " (rank " << e.vector_rank << ")  relevance " << e.relevance
                << "  recency " << e.recency << "  importance " << e.importance << "  retention "
                << e.retention << "\n";
      if (!e.graph_via.empty()) {
        std::cout << "      graph " << e.graph << " (rank " << e.graph_rank << ") via "
                  << e.graph_via << ", " << e.graph_hops
                  << (e.graph_hops == 1 ? " relation" : " relations")
                  << " from a name in the query\n";
      }
      if (!e.demoted_by.empty()) {
        std::cout << "      ranked below " << e.demoted_by << " (" << e.demotion << ")\n";
      }
    }
  }
}

// The scope, query and engine a search-like command needs; on failure the error is printed and
// *exit_code set.
struct Prepared {
  Scope scope;
  SearchQuery query;
  Engine* engine = nullptr;
};

std::optional<Prepared> Prepare(Context& ctx, const SearchFlags& f, int* exit_code) {
  auto scope = ctx.RequireScope();
  if (!scope) {
    *exit_code = kExitUsage;
    return std::nullopt;
  }
  auto q = BuildSearchQuery(f);
  if (!q.ok()) {
    *exit_code = ctx.Fail(q.status());
    return std::nullopt;
  }
  Engine* engine = ctx.OpenEngine();
  if (!engine) {
    *exit_code = ctx.last_exit;
    return std::nullopt;
  }
  return Prepared{*scope, std::move(q).value(), engine};
}

int RunSearch(Context& ctx, const SearchFlags& f) {
  int exit_code = kExitOk;
  auto p = Prepare(ctx, f, &exit_code);
  if (!p) return exit_code;
  auto hits = p->engine->Search(p->scope, p->query);
  if (!hits.ok()) return ctx.Fail(hits.status());
  if (ctx.json) {
    std::cout << api::HitsToJson(*hits, f.explain).dump() << "\n";
  } else {
    PrintHits(*hits, f.explain);
  }
  return kExitOk;
}

int RunContext(Context& ctx, const SearchFlags& f) {
  int exit_code = kExitOk;
  auto p = Prepare(ctx, f, &exit_code);
  if (!p) return exit_code;
  ContextRequest request{p->query, f.budget};
  if (f.profile) {
    auto profile = p->engine->GetProfile(p->scope);
    if (!profile.ok()) return ctx.Fail(profile.status());
    request.profile = ProfileText(*profile, static_cast<int>(f.budget * 0.3));
  }
  auto result = p->engine->BuildContext(p->scope, request);
  if (!result.ok()) return ctx.Fail(result.status());
  if (ctx.json) {
    std::cout << api::ContextToJson(*result).dump() << "\n";
  } else {
    std::cout << result->text;
    std::cerr << "(" << result->tokens << " of " << f.budget << " tokens, "
              << result->memories.size() << " memories)\n";
  }
  return kExitOk;
}

int RunProfile(Context& ctx) {
  auto scope = ctx.RequireScope();
  if (!scope) return kExitUsage;
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  auto profile = engine->GetProfile(*scope);
  if (!profile.ok()) return ctx.Fail(profile.status());
  if (ctx.json) {
    std::cout << api::ProfileToJson(*profile, ProfileText(*profile, 1 << 20)).dump() << "\n";
    return kExitOk;
  }
  if (profile->sections.empty()) {
    std::cout << "(no profile yet: nothing lasting is known about " << scope->user_id << ")\n";
    return kExitOk;
  }
  if (profile->summary) {
    const ProfileSummary& summary = *profile->summary;
    std::cout << "summary (" << summary.model << ", " << FormatTimestamp(summary.generated_at)
              << (summary.current ? ""
                                  : "; the lines changed since: the next maintenance run "
                                    "rewrites it")
              << ")\n  " << summary.text << "\n";
  }
  for (const ProfileSection& section : profile->sections) {
    std::cout << section.kind << "\n";
    for (const ProfileLine& line : section.lines) {
      std::cout << "  " << line.text << "  [" << line.item_ids.front() << "]\n";
    }
  }
  return kExitOk;
}

struct RecallFlags {
  std::vector<std::string> turns;
  int k = 3;
  double min_score = RecallRequest{}.min_score;
};

int RunRecall(Context& ctx, const RecallFlags& f) {
  auto scope = ctx.RequireScope();
  if (!scope) return kExitUsage;
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  RecallRequest request;
  request.turns = f.turns;
  request.k = f.k;
  request.min_score = f.min_score;
  auto hits = Recall(*engine, *scope, request);
  if (!hits.ok()) return ctx.Fail(hits.status());
  if (ctx.json) {
    std::cout << api::RecallToJson(*hits).dump() << "\n";
    return kExitOk;
  }
  if (hits->empty()) std::cout << "(nothing worth raising)\n";
  for (const RecallHit& h : *hits) {
    std::cout << std::fixed << std::setprecision(2) << h.score << "  " << h.item.id << "  "
              << h.item.content << "\n      " << h.reason << "\n";
  }
  return kExitOk;
}

int RunReembed(Context& ctx) {
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  const bool tty = isatty(STDERR_FILENO);
  auto n = engine->Reembed([&](int64_t done, int64_t total) {
    if (!tty || total == 0) return;
    int pct = static_cast<int>(100 * done / total);
    std::cerr << "\rre-embedding [" << std::string(pct * 30 / 100, '#')
              << std::string(30 - pct * 30 / 100, '-') << "] " << pct << "%  " << done << "/"
              << total << std::flush;
  });
  if (tty) std::cerr << "\n";
  if (!n.ok()) return ctx.Fail(n.status());
  if (ctx.json) {
    std::cout << json{{"indexed", *n}, {"model", engine->options().embedder->model()}}.dump()
              << "\n";
  } else {
    std::cout << *n << " memories have vectors of " << engine->options().embedder->model() << "\n";
  }
  return kExitOk;
}

}  // namespace

void AddSearchCommands(CLI::App& app, Context& ctx) {
  auto search_flags = std::make_shared<SearchFlags>();
  auto context_flags = std::make_shared<SearchFlags>();

  auto* search =
      app.add_subcommand("search", "Hybrid keyword + vector search of a user's memories");
  AddSearchFlags(search, *search_flags);
  search->callback([&ctx, search_flags] {
    ctx.action = [&ctx, search_flags] { return RunSearch(ctx, *search_flags); };
  });

  auto* context =
      app.add_subcommand("context", "The memories for a query, packed for an LLM prompt");
  AddSearchFlags(context, *context_flags);
  context->add_option("--budget", context_flags->budget, "Token budget, 16..32768")
      ->capture_default_str();
  context->add_flag("--profile", context_flags->profile,
                    "Lead with the user's profile (at most 30% of the budget)");
  context->callback([&ctx, context_flags] {
    ctx.action = [&ctx, context_flags] { return RunContext(ctx, *context_flags); };
  });

  auto* profile = app.add_subcommand(
      "profile",
      "The user's profile: lasting facts and preferences by kind, each citing its memory");
  profile->callback([&ctx] { ctx.action = [&ctx] { return RunProfile(ctx); }; });

  auto recall_flags = std::make_shared<RecallFlags>();
  auto* recall = app.add_subcommand(
      "recall",
      "What is worth raising unasked, given the latest turns (no question): e.g. an allergy "
      "before a hike; usually nothing");
  recall->add_option("turns", recall_flags->turns, "The latest turns, oldest first")->required();
  recall->add_option("-k", recall_flags->k, "Most memories, 1..20")->capture_default_str();
  recall->add_option("--min-score", recall_flags->min_score, "Raise nothing below this (0..1)")
      ->capture_default_str();
  recall->callback([&ctx, recall_flags] {
    ctx.action = [&ctx, recall_flags] { return RunRecall(ctx, *recall_flags); };
  });

  auto* reembed = app.add_subcommand(
      "reembed", "Store vectors of the current --embedder for every memory that lacks one");
  reembed->callback([&ctx] { ctx.action = [&ctx] { return RunReembed(ctx); }; });
}

}  // namespace engram::cli
