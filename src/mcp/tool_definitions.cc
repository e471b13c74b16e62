#include "mcp/tool_definitions.h"

#include <string>
#include <vector>

namespace engram::mcp {
namespace {

using json = nlohmann::json;

// Small schema builders: the schemas are data, and these keep them readable. Schemas stay
// plain (no top-level oneOf/anyOf) because several clients pass them on to model APIs that
// accept only simple object schemas.
json Str(const std::string& description) {
  return {{"type", "string"}, {"description", description}};
}
json Int(const std::string& description, int minimum, int maximum) {
  return {{"type", "integer"},
          {"description", description},
          {"minimum", minimum},
          {"maximum", maximum}};
}
json Score(const std::string& description) {
  return {{"type", "number"}, {"description", description}, {"minimum", 0}, {"maximum", 1}};
}
json Bool(const std::string& description) {
  return {{"type", "boolean"}, {"description", description}};
}
json OneOf(const std::vector<std::string>& values, const std::string& description) {
  return {{"type", "string"}, {"enum", values}, {"description", description}};
}
json ListOf(json items, const std::string& description) {
  return {{"type", "array"}, {"items", std::move(items)}, {"description", description}};
}
json StrList(const std::string& description) { return ListOf({{"type", "string"}}, description); }

const std::vector<std::string> kTypes = {"fact",    "preference", "goal",       "event",
                                         "opinion", "decision",   "commitment", "summary",
                                         "skill",   "knowledge",  "profile",    "message"};
const std::vector<std::string> kTiers = {"working", "episodic", "semantic", "knowledge"};
const std::vector<std::string> kStatuses = {"active", "superseded", "archived", "deleted"};

constexpr const char* kTimeHint =
    "ISO-8601 time, e.g. 2026-05-08 or 2026-05-08T13:56:00Z (no offset means UTC)";

// The object schema of a tool's arguments; `properties` must not be empty.
json ObjectSchema(json properties, std::vector<std::string> required = {}) {
  json schema = {
      {"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = std::move(required);
  return schema;
}

// Who the memories belong to. The tenant is the server's (--tenant), never an argument.
void AddScope(json& props, bool with_session) {
  props["user_id"] =
      Str("The user whose memories these are. Optional when the server was started with --user "
          "(or ENGRAM_USER); required otherwise.");
  props["agent_id"] = Str("Agent id: recorded on new memories; narrows reads to that agent.");
  if (with_session) {
    props["session_id"] = Str("Session id: recorded on new memories; narrows reads to it.");
  }
}

json Filters() {
  json metadata = {
      {"type", "object"},
      {"description",
       "Top-level metadata conditions, all of which must hold: key -> scalar (equals) or "
       "key -> {\"in\": [scalars]}."}};
  return {{"type", "object"},
          {"description", "Only memories passing every given filter are considered."},
          {"properties",
           {{"types", ListOf(OneOf(kTypes, "A memory type."), "Any of these types.")},
            {"tiers", ListOf(OneOf(kTiers, "A tier."), "Any of these tiers.")},
            {"statuses", ListOf(OneOf(kStatuses, "A status."),
                                "Any of these statuses (default: active only).")},
            {"created_after", Str(std::string("Created at or after this. ") + kTimeHint)},
            {"created_before", Str(std::string("Created before this. ") + kTimeHint)},
            {"tags", StrList("The memory carries every one of these tags.")},
            {"entities", StrList("The memory names every one of these entities.")},
            {"metadata", std::move(metadata)}}},
          {"additionalProperties", false}};
}

// The fields of a stored memory that add_memory and update_memory share.
void AddMemoryFields(json& props) {
  props["type"] = OneOf(kTypes,
                        "What kind of memory this is (default fact; message for "
                        "conversation turns).");
  props["tier"] = OneOf(kTiers, "Memory tier (default follows the type: fact -> semantic).");
  props["tags"] = StrList("Free-form labels for filtering.");
  props["entities"] = StrList("People, places or things the memory is about.");
  props["metadata"] = {{"type", "object"},
                       {"description", "Any JSON object stored with the memory."}};
  props["importance"] = Score(
      "How much the memory matters, 0..1 (default 0.5); raises its "
      "rank in searches.");
  props["confidence"] = Score("How sure the memory is, 0..1 (default 1).");
  props["valid_from"] = Str(std::string("When the fact began to hold. ") + kTimeHint);
  props["valid_to"] = Str(std::string("When the fact stopped holding. ") + kTimeHint);
  props["expires_at"] = Str(std::string("When the memory stops being worth recalling (a plan for "
                                        "today: the end of the day); expired memories leave "
                                        "searches. ") +
                            kTimeHint);
}

// What every tool states about its effects (MCP tool annotations).
json Hints(bool read_only, bool destructive, bool idempotent) {
  return {{"readOnlyHint", read_only},
          {"destructiveHint", destructive},
          {"idempotentHint", idempotent},
          {"openWorldHint", false}};
}

json Tool(const std::string& name, const std::string& title, const std::string& description,
          json schema, json hints) {
  hints["title"] = title;
  return {{"name", name},
          {"title", title},
          {"description", description},
          {"inputSchema", std::move(schema)},
          {"annotations", std::move(hints)}};
}

json AddMemoryTool() {
  json props = json::object();
  AddScope(props, /*with_session=*/true);
  props["content"] =
      Str("What the user said (\"I moved to Berlin last week\"), or with infer "
          "false a self-contained statement to store as given. Give content or "
          "messages, not both.");
  // Kept so that clients that learned the old name still validate; the result's `warnings`
  // says it is going.
  json text = Str("Deprecated alias of content, removed in the next version: use content.");
  text["deprecated"] = true;
  props["text"] = std::move(text);
  json message = ObjectSchema(
      {{"role", Str("Who spoke: user, assistant, ...")}, {"content", Str("What was said.")}},
      {"role", "content"});
  props["messages"] = ListOf(std::move(message),
                             "Conversation turns: with infer, the user's turns are kept and "
                             "extracted from, the others read as context; with infer false "
                             "each becomes one memory of type message with metadata.role "
                             "set. Give content or messages, not both.");
  AddMemoryFields(props);
  props["created_at"] = Str(std::string("When it happened (default now). ") + kTimeHint);
  props["infer"] = Bool(
      "Default true (as in the HTTP API and the CLI): keep what the user "
      "said as a conversation turn, extract facts, preferences, goals, "
      "plans and events from it and reconcile them with what is stored (ADD, "
      "UPDATE, SUPERSEDE an outdated fact, or NOOP); type, tier, entities, "
      "confidence and valid times are then decided by extraction and must be "
      "left out. false: store exactly as given, with those fields.");
  return Tool("add_memory", "Add memory",
              "Store something worth remembering about the user across conversations: what "
              "they said: facts, preferences, goals, events, opinions, decisions, commitments. "
              "By default the content goes "
              "through extraction (infer); set infer false to store it exactly as given. "
              "Returns each stored memory's id, what happened to it (event) and its kind "
              "(turn or memory), and the messages not kept with the reason (skipped).",
              ObjectSchema(std::move(props)), Hints(false, false, false));
}

json SearchTool(const api::Limits& limits) {
  json props = json::object();
  AddScope(props, /*with_session=*/true);
  props["query"] = Str("What to look for, in natural language.");
  props["k"] = Int("How many memories to return (default 10).", 1, limits.max_k);
  props["filters"] = Filters();
  props["min_score"] = Score("Drop results scoring below this.");
  props["recent_turns"] = StrList(
      "The latest conversation turns, to resolve follow-up "
      "questions (\"and her sister?\").");
  props["explain"] = Bool("Include each result's score breakdown.");
  props["fusion"] = OneOf({"weighted", "rrf"},
                          "How keyword and vector ranks are combined "
                          "(default weighted).");
  props["diversify"] = Bool("Skip near-duplicate results (default true).");
  props["graph"] = Bool(
      "Also follow the user's entity graph from the people, places and projects the query "
      "names (default true).");
  props["sources"] = ListOf(OneOf({"memories", "knowledge"}, "A source."),
                            "What to search: the user's memories, the knowledge documents "
                            "shared by the tenant and agent, or both (the default).");
  props["knowledge_k"] = Int("How many knowledge chunks to return (default 5).", 1, 50);
  return Tool("search_memories", "Search memories",
              "Find the user's stored memories relevant to a query (hybrid keyword + semantic "
              "search), best first, with scores. Use before answering questions that may "
              "depend on what you know about the user.",
              ObjectSchema(std::move(props), {"query"}), Hints(true, false, true));
}

json ContextTool(const api::Limits& limits) {
  json props = json::object();
  AddScope(props, /*with_session=*/true);
  props["query"] = Str("The current request or conversation topic.");
  props["token_budget"] =
      Int("Most tokens the packed block may take (default 1000).", 16, limits.max_token_budget);
  props["k"] = Int("Most memories considered (default 20).", 1, limits.max_k);
  props["filters"] = Filters();
  props["min_score"] = Score("Leave out memories scoring below this.");
  props["recent_turns"] = StrList("The latest conversation turns.");
  props["profile"] = {{"type", "boolean"},
                      {"description", "Lead the block with the user's profile (default false)."}};
  props["sources"] = ListOf(OneOf({"memories", "knowledge"}, "A source."),
                            "What the block draws on: the user's memories, the knowledge "
                            "documents shared by the tenant and agent (cited [doc §section]), "
                            "or both (the default).");
  props["knowledge_k"] = Int("Most knowledge chunks considered (default 5).", 1, 50);
  props["knowledge_share"] = {{"type", "number"},
                              {"minimum", 0},
                              {"maximum", 1},
                              {"description",
                               "Most of the budget knowledge takes when memories are found too "
                               "(default 0.4; either side gets what the other leaves)."}};
  return Tool("get_context", "Get memory context",
              "Return the memories most relevant to a query packed into one text block that "
              "fits a token budget, ready to put into a prompt.",
              ObjectSchema(std::move(props), {"query"}), Hints(true, false, true));
}

json ListTool(const api::Limits& limits) {
  json props = json::object();
  AddScope(props, /*with_session=*/true);
  props["type"] = ListOf(OneOf(kTypes, "A memory type."), "Any of these types.");
  props["tier"] = ListOf(OneOf(kTiers, "A tier."), "Any of these tiers.");
  std::vector<std::string> statuses = kStatuses;
  statuses.push_back("all");
  props["status"] = ListOf(OneOf(statuses, "A status, or all."),
                           "Any of these statuses (default active; [\"all\"] for every one).");
  props["tag"] = StrList("The memory carries every one of these tags.");
  props["after"] = Str(std::string("Created at or after this. ") + kTimeHint);
  props["before"] = Str(std::string("Created before this. ") + kTimeHint);
  props["limit"] = Int("Page size (default 50).", 1, limits.max_list_limit);
  props["cursor"] = Str("next_cursor of the previous page, to read the next one.");
  return Tool("list_memories", "List memories",
              "List the user's memories, newest first, a page at a time, optionally filtered "
              "by type, tier, status, tag and creation time.",
              ObjectSchema(std::move(props)), Hints(true, false, true));
}

// The arguments of a tool acting on one memory: its id and whose it is.
json ItemProps() {
  json props = {{"id", Str("The memory's id (from add_memory, search_memories or "
                           "list_memories).")}};
  AddScope(props, /*with_session=*/false);
  return props;
}

json GetTool() {
  return Tool("get_memory", "Get memory", "Read one memory by id, with all its fields.",
              ObjectSchema(ItemProps(), {"id"}), Hints(true, false, true));
}

json UpdateTool() {
  json props = ItemProps();
  props["content"] = Str("The new text of the memory (the id stays the same).");
  AddMemoryFields(props);
  props["valid_to"] = {{"type", json::array({"string", "null"})},
                       {"description", std::string("When the fact stopped holding; null "
                                                   "clears it. ") +
                                           kTimeHint}};
  props["expires_at"] = {{"type", json::array({"string", "null"})},
                         {"description", std::string("When the memory stops being worth "
                                                     "recalling; null: never. ") +
                                             kTimeHint}};
  props["status"] =
      OneOf({"active", "archived"}, "archived hides the memory from searches without deleting it.");
  props["reason"] = Str("Why it changed; kept in the memory's history.");
  return Tool("update_memory", "Update memory",
              "Change fields of a memory (e.g. correct its text when a fact changed). Only the "
              "given fields change; the previous version is kept in its history.",
              ObjectSchema(std::move(props), {"id"}), Hints(false, false, true));
}

json DeleteTool() {
  json props = ItemProps();
  props["hard"] = Bool(
      "Erase the memory and its history for good (default false: a soft "
      "delete that keeps the history).");
  props["reason"] = Str("Why it is deleted; kept in the history of a soft delete.");
  props["source_turns"] = Bool(
      "With hard=true: also erase the conversation it came from (its kept turns, session turns "
      "and their summaries; default true). Other memories from those turns stay.");
  return Tool("delete_memory", "Delete memory",
              "Delete a memory that is wrong or that the user asked to forget. Soft by default "
              "(recoverable through its history); hard=true erases it permanently.",
              ObjectSchema(std::move(props), {"id"}), Hints(false, true, true));
}

json HistoryTool() {
  return Tool("memory_history", "Memory history",
              "Every recorded change of a memory (add, update, delete...), oldest first, each "
              "with the previous value.",
              ObjectSchema(ItemProps(), {"id"}), Hints(true, false, true));
}

json ProfileTool() {
  json props = json::object();
  AddScope(props, /*with_session=*/false);
  return Tool("get_profile", "Get user profile",
              "The stable picture of the user: facts and preferences grouped by kind (identity, "
              "work, family, health, likes, dislikes, goals, habits, other), each line citing "
              "the memories it comes from, and the same as text for a prompt.",
              ObjectSchema(std::move(props)), Hints(true, false, true));
}

json RecallTool() {
  json props = json::object();
  AddScope(props, /*with_session=*/false);
  props["messages"] = {
      {"type", "array"},
      {"description", "The latest conversation turns, oldest first: [{role, content}]."},
      {"items",
       {{"type", "object"},
        {"properties", {{"role", Str("user or assistant")}, {"content", Str("What was said.")}}},
        {"required", json::array({"role", "content"})}}}};
  props["k"] = Int("Most memories to raise (default 3).", 1, 20);
  props["min_score"] = Score("Raise nothing scoring below this (default 0.6).");
  return Tool("recall_memories", "Recall memories worth raising",
              "Given the latest turns and no question, the few memories worth bringing up "
              "unasked (an allergy before a hike or a dinner, the partner's name for a booking), "
              "each with why; usually nothing.",
              ObjectSchema(std::move(props), {"messages"}), Hints(true, false, true));
}

json AgentProp(json& props) {
  props["agent_id"] =
      Str("The agent whose documents these are; leave out for the tenant's shared "
          "documents.");
  return props;
}

json SearchKnowledgeTool() {
  json props = json::object();
  AgentProp(props);
  props["query"] = Str("What to look for, in natural language.");
  props["k"] = Int("How many chunks to return (default 5).", 1, 50);
  props["min_score"] = Score("Drop chunks scoring below this.");
  return Tool("search_knowledge", "Search knowledge documents",
              "Find passages of the shared knowledge documents (FAQs, product rules, manuals) "
              "relevant to a query: the tenant's documents and, with agent_id, that agent's. "
              "Each result cites its document, section (title path) and character range.",
              ObjectSchema(std::move(props), {"query"}), Hints(true, false, true));
}

json IngestDocumentTool() {
  json props = json::object();
  AgentProp(props);
  props["doc_id"] =
      Str("The document's id ([A-Za-z0-9._:-]); ingesting the same id again "
          "replaces the document. Default: the filename without its extension.");
  props["title"] = Str("Its title (default: its first heading).");
  props["format"] = OneOf({"text", "markdown", "html", "pdf"},
                          "The document's format (default: by filename, else text).");
  props["filename"] = Str("The file name it came from (tells the format and the default id).");
  props["content"] = Str("The document's text (text, Markdown, HTML).");
  props["content_base64"] = Str("The document's bytes in base64 (a PDF).");
  props["chunk_tokens"] = Int("Chunk size in tokens (default 300).", 32, 4096);
  props["overlap_tokens"] = Int("Tokens consecutive chunks share (default 40).", 0, 2048);
  props["source"] = Str("Where it came from (a URL, a path), shown with it.");
  props["metadata"] = {{"type", "object"}, {"description", "Free JSON about the document."}};
  return Tool("ingest_document", "Ingest a knowledge document",
              "Add a document to the shared knowledge (not a user's memories): it is chunked "
              "along its headings, paragraphs and lists, and its passages are found by "
              "search_knowledge and get_context. A document that cannot be read is refused "
              "and the version stored before stays.",
              ObjectSchema(std::move(props)), Hints(false, false, true));
}

json ListDocumentsTool() {
  json props = json::object();
  AgentProp(props);
  return Tool("list_documents", "List knowledge documents",
              "The knowledge documents of the tenant (or of agent_id), with their chunk counts.",
              ObjectSchema(std::move(props)), Hints(true, false, true));
}

json DeleteDocumentTool() {
  json props = json::object();
  AgentProp(props);
  props["doc_id"] = Str("The document to delete.");
  return Tool("delete_document", "Delete a knowledge document",
              "Erase a knowledge document, every chunk and vector of it, for good.",
              ObjectSchema(std::move(props), {"doc_id"}), Hints(false, true, true));
}

const std::vector<std::string> kEntityKinds = {"user", "person",  "place",  "organization",
                                               "pet",  "project", "product"};

json ListEntitiesTool() {
  json props = json::object();
  AddScope(props, /*with_session=*/false);
  props["kind"] = OneOf(kEntityKinds, "Only entities of this kind.");
  props["name"] = Str("Only entities whose name or an alias contains this text.");
  props["limit"] = Int("Most entities to return (default 100).", 1, 1000);
  props["cursor"] = Str("next_cursor of the previous page.");
  return Tool("list_entities", "List entities",
              "The people, places, organisations, pets, projects and products the user's "
              "memories name (the entity graph), most connected first, each with its aliases "
              "and how many memories name it and how many relations it has.",
              ObjectSchema(std::move(props)), Hints(true, false, true));
}

json EntityGraphTool() {
  json props = json::object();
  AddScope(props, /*with_session=*/false);
  props["id"] = Str("The entity's id (from list_entities).");
  props["name"] = Str("Or its name or alias, as list_entities shows it (\"老王\", \"Anna\").");
  props["hops"] = Int("How many relations away to go (default 1).", 1, 3);
  props["max_nodes"] = Int("Most entities to visit (default 200).", 1, 1000);
  props["include_ended"] = Bool("Also follow relations that no longer hold (a former city).");
  return Tool("entity_graph", "Entity graph",
              "An entity and its neighbourhood: the entities within a few relations and the "
              "relations between them, each with when it held (valid_from, valid_to) and the "
              "memories that state it. Give id or name.",
              ObjectSchema(std::move(props)), Hints(true, false, true));
}

}  // namespace

json ToolDefinitions(const api::Limits& limits) {
  return json::array({AddMemoryTool(), SearchTool(limits), ContextTool(limits), ListTool(limits),
                      GetTool(), UpdateTool(), DeleteTool(), HistoryTool(), ProfileTool(),
                      RecallTool(), SearchKnowledgeTool(), IngestDocumentTool(),
                      ListDocumentsTool(), DeleteDocumentTool(), ListEntitiesTool(),
                      EntityGraphTool()});
}

}  // namespace engram::mcp
