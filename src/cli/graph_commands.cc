// engram entities | graph NAME: the entity graph of --user (issue 39), as text or --json (the
// HTTP API's bodies: api/graph_messages.h).
#include <iostream>

#include "api/graph_messages.h"
#include "cli/cli_app.h"
#include "cli/output.h"

namespace engram::cli {
namespace {

struct GraphCommandState {
  std::string kind, name, graph_name;
  int limit = 100;
  int64_t offset = 0;
  int hops = 1;
  int max_nodes = 200;
  bool include_ended = false;
};

std::string Validity(const EdgeRecord& e) {
  std::string out = "since " + ShortTime(e.valid_from);
  if (e.valid_to) out += ", until " + ShortTime(*e.valid_to);
  if (!e.valid_to && e.expired_at) out += ", retracted " + ShortTime(*e.expired_at);
  return out;
}

int RunEntities(Context& ctx, const GraphCommandState& st) {
  auto scope = ctx.RequireScope();
  if (!scope) return kExitUsage;
  EntityQuery q;
  if (!st.kind.empty()) {
    q.kind = ParseEntityKind(st.kind);
    if (!q.kind) return ctx.FailUsage("--kind: unknown kind '" + st.kind + "'");
  }
  q.name = st.name;
  q.limit = st.limit;
  q.offset = st.offset;
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  auto page = engine->ListEntities(*scope, q);
  if (!page.ok()) return ctx.Fail(page.status());
  if (ctx.json) {
    std::cout << api::EntityPageToJson(*page).dump() << "\n";
    return kExitOk;
  }
  for (const EntityRecord& e : page->entities) {
    std::cout << e.name << "\t" << ToString(e.kind) << "\t" << e.mentions << " mentions\t"
              << e.active_edges << "/" << e.edges << " relations";
    if (!e.aliases.empty()) {
      std::cout << "\taka";
      for (const std::string& a : e.aliases) std::cout << " " << a;
    }
    std::cout << "\t" << e.id << "\n";
  }
  if (page->next_offset) std::cout << "(more: --cursor " << *page->next_offset << ")\n";
  return kExitOk;
}

int RunGraph(Context& ctx, const GraphCommandState& st) {
  auto scope = ctx.RequireScope();
  if (!scope) return kExitUsage;
  Engine* engine = ctx.OpenEngine();
  if (!engine) return ctx.last_exit;
  // NAME is an entity id, a name or an alias; a name two entities share is not guessed.
  std::string id;
  if (st.graph_name.starts_with("ent_")) {
    id = st.graph_name;
  } else {
    EntityQuery q;
    q.name = st.graph_name;
    q.limit = 50;
    auto page = engine->ListEntities(*scope, q);
    if (!page.ok()) return ctx.Fail(page.status());
    int found = 0;
    for (const EntityRecord& e : page->entities) {
      const bool alias =
          std::find(e.aliases.begin(), e.aliases.end(), st.graph_name) != e.aliases.end();
      if (e.name == st.graph_name || alias) {
        id = e.id;
        ++found;
      }
    }
    if (found == 0) return ctx.Fail(Status::NotFound("no entity named '" + st.graph_name + "'"));
    if (found > 1) {
      return ctx.Fail(Status::InvalidArgument("'" + st.graph_name + "' names " +
                                              std::to_string(found) +
                                              " entities; give the id (engram entities)"));
    }
  }
  GraphWalk walk;
  walk.hops = st.hops;
  walk.max_nodes = st.max_nodes;
  walk.include_ended = st.include_ended;
  auto n = engine->EntityNeighbours(*scope, id, walk);
  if (!n.ok()) return ctx.Fail(n.status());
  if (ctx.json) {
    std::cout << api::NeighbourhoodToJson(*n).dump() << "\n";
    return kExitOk;
  }
  std::cout << n->root.name << " (" << ToString(n->root.kind) << ")\n";
  for (const EdgeRecord& e : n->edges) {
    std::cout << "  " << e.subject_name << " --" << e.predicate << "--> " << e.object_name << "  ["
              << Validity(e) << "; " << e.sources.size() << " sources]\n";
  }
  for (const NeighbourEntity& e : n->entities) {
    std::cout << "  " << std::string(static_cast<size_t>(e.distance), '.') << e.entity.name << " ("
              << ToString(e.entity.kind) << ", " << e.distance << " hop"
              << (e.distance == 1 ? "" : "s") << ")\n";
  }
  if (n->truncated) std::cout << "(stopped at --max-nodes " << st.max_nodes << ")\n";
  return kExitOk;
}

}  // namespace

void AddGraphCommands(CLI::App& app, Context& ctx) {
  auto state = std::make_shared<GraphCommandState>();
  auto* entities = app.add_subcommand(
      "entities", "List the entities of --user's memories (people, places, ...), with counts");
  entities->add_option("--kind", state->kind,
                       "user, person, place, organization, pet, project or product");
  entities->add_option("--name", state->name, "Name or alias containing this text");
  entities->add_option("--limit,-n", state->limit, "Page size, 1..1000")->capture_default_str();
  entities->add_option("--cursor", state->offset, "Continue after a previous page");
  entities->callback(
      [&ctx, state] { ctx.action = [&ctx, state] { return RunEntities(ctx, *state); }; });
  auto* graph =
      app.add_subcommand("graph", "Show an entity's relations and neighbours, with when each held");
  graph->add_option("name", state->graph_name, "Entity name, alias or id")->required();
  graph->add_option("--hops", state->hops, "Relations away, 1..3")->capture_default_str();
  graph->add_option("--max-nodes", state->max_nodes, "Entities visited at most, 1..1000")
      ->capture_default_str();
  graph->add_flag("--include-ended", state->include_ended,
                  "Also follow relations that no longer hold");
  graph->callback([&ctx, state] { ctx.action = [&ctx, state] { return RunGraph(ctx, *state); }; });
}

}  // namespace engram::cli
