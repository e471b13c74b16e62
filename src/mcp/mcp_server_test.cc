// McpServer on a real database: the JSON-RPC envelope, the MCP lifecycle and every tool.
#include "mcp/mcp_server.h"

#include <gtest/gtest.h>

#include <set>

#include "engram/write_path.h"
#include "mcp/tool_definitions.h"
#include "testing/test_support.h"

namespace engram::mcp {
namespace {

using json = nlohmann::json;

class McpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = engram::testing::OpenEngine(dir_.File("mcp.db"));
    ASSERT_NE(engine_, nullptr);
    writer_ = std::make_unique<MemoryWriter>(engine_.get(), WriterOptions{});
    server_ = MakeServer("alice");
  }

  std::unique_ptr<McpServer> MakeServer(const std::string& default_user) {
    McpOptions options;
    options.tenant = "acme";
    options.default_user = default_user;
    options.server_version = "9.9.9";
    return std::make_unique<McpServer>(engine_.get(), options, writer_.get());
  }

  // Sends one line and parses the reply ("" stays a null json: no reply).
  json Send(const std::string& line, McpServer* server = nullptr) {
    std::string reply = (server ? server : server_.get())->HandleLine(line);
    if (reply.empty()) return json();
    EXPECT_EQ(reply.find('\n'), std::string::npos) << "a reply must be one line";
    json parsed = json::parse(reply, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << reply;
    return parsed;
  }

  json Request(const std::string& method, json params, McpServer* server = nullptr) {
    json message = {{"jsonrpc", "2.0"}, {"id", ++next_id_}, {"method", method}};
    if (!params.is_null()) message["params"] = std::move(params);
    json reply = Send(message.dump(), server);
    EXPECT_EQ(reply.value("id", json()), next_id_) << reply.dump();
    return reply;
  }

  void Initialize(McpServer* server = nullptr) {
    json reply = Request("initialize",
                         {{"protocolVersion", "2025-06-18"},
                          {"capabilities", json::object()},
                          {"clientInfo", {{"name", "test"}, {"version", "1"}}}},
                         server);
    ASSERT_TRUE(reply.contains("result")) << reply.dump();
    EXPECT_TRUE(
        Send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", server).is_null());
  }

  // tools/call; returns the CallToolResult.
  json Call(const std::string& tool, json arguments, McpServer* server = nullptr) {
    json reply =
        Request("tools/call", {{"name", tool}, {"arguments", std::move(arguments)}}, server);
    EXPECT_TRUE(reply.contains("result")) << reply.dump();
    return reply.value("result", json::object());
  }

  // A successful tool call's structured result (checked against its text form).
  json CallOk(const std::string& tool, json arguments) {
    json result = Call(tool, std::move(arguments));
    EXPECT_EQ(result.value("isError", true), false) << result.dump();
    json text = json::parse(result["content"][0].value("text", ""), nullptr, false);
    EXPECT_EQ(result["content"][0]["type"], "text");
    EXPECT_EQ(text, result["structuredContent"]);
    return result["structuredContent"];
  }

  // A failed tool call's text.
  std::string CallError(const std::string& tool, json arguments) {
    json result = Call(tool, std::move(arguments));
    EXPECT_EQ(result.value("isError", false), true) << result.dump();
    return result["content"][0].value("text", "");
  }

  // Stores `text` as given (infer=false) and returns its id.
  std::string AddOne(const std::string& text, json extra = json::object()) {
    extra["content"] = text;
    extra["infer"] = false;
    json added = CallOk("add_memory", extra);
    return added["results"][0].value("id", "");
  }

  int ErrorCode(const json& reply) { return reply["error"].value("code", 0); }

  engram::testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<MemoryWriter> writer_;
  std::unique_ptr<McpServer> server_;
  int next_id_ = 0;
};

TEST_F(McpServerTest, InitializeNegotiatesTheVersion) {
  json reply = Request("initialize", {{"protocolVersion", "2024-11-05"},
                                      {"capabilities", json::object()},
                                      {"clientInfo", {{"name", "old"}, {"version", "1"}}}});
  const json& result = reply["result"];
  EXPECT_EQ(result["protocolVersion"], "2024-11-05");
  EXPECT_EQ(result["capabilities"], json::parse(R"({"tools":{"listChanged":false}})"));
  EXPECT_EQ(result["serverInfo"]["name"], "engram");
  EXPECT_EQ(result["serverInfo"]["version"], "9.9.9");
  EXPECT_TRUE(result["instructions"].is_string());
  EXPECT_EQ(ErrorCode(Request("initialize", {{"protocolVersion", "2024-11-05"}})), kInvalidRequest);

  auto other = MakeServer("alice");
  reply = Request("initialize", {{"protocolVersion", "2099-01-01"}}, other.get());
  EXPECT_EQ(reply["result"]["protocolVersion"], "2025-06-18");
  auto third = MakeServer("alice");
  EXPECT_EQ(ErrorCode(Request("initialize", json::object(), third.get())), kInvalidParams);
}

TEST_F(McpServerTest, LifecycleBeforeInitialize) {
  EXPECT_EQ(Request("ping", json())["result"], json::object());
  EXPECT_EQ(ErrorCode(Request("tools/list", json())), kNotInitialized);
  Initialize();
  EXPECT_TRUE(server_->client_ready());
  EXPECT_EQ(server_->protocol_version(), "2025-06-18");
  EXPECT_TRUE(Request("tools/list", json()).contains("result"));
  EXPECT_EQ(Request("ping", json::object())["result"], json::object());
}

TEST_F(McpServerTest, ToolsListDescribesEveryTool) {
  Initialize();
  json tools = Request("tools/list", json())["result"]["tools"];
  ASSERT_TRUE(tools.is_array());
  std::set<std::string> names;
  for (const json& tool : tools) {
    const std::string name = tool.value("name", "");
    names.insert(name);
    EXPECT_TRUE(IsKnownTool(name)) << name;
    EXPECT_FALSE(tool.value("description", "").empty()) << name;
    const json& schema = tool["inputSchema"];
    ASSERT_TRUE(schema.is_object()) << name;
    EXPECT_EQ(schema["type"], "object") << name;
    ASSERT_TRUE(schema["properties"].is_object()) << name;
    // The memory tools act for a user; the knowledge tools on the tenant's (or an agent's)
    // shared documents.
    const bool knowledge = name == "search_knowledge" || name == "ingest_document" ||
                           name == "list_documents" || name == "delete_document";
    EXPECT_EQ(schema["properties"].contains("user_id"), !knowledge) << name;
    for (const json& required : schema.value("required", json::array())) {
      EXPECT_TRUE(schema["properties"].contains(required.get<std::string>())) << name;
    }
    for (const auto& [prop, prop_schema] : schema["properties"].items()) {
      EXPECT_TRUE(prop_schema.contains("type")) << name << "." << prop;
      EXPECT_TRUE(prop_schema.contains("description")) << name << "." << prop;
    }
    EXPECT_TRUE(tool["annotations"]["readOnlyHint"].is_boolean()) << name;
  }
  EXPECT_EQ(names, (std::set<std::string>{
                       "add_memory", "search_memories", "get_context", "list_memories",
                       "get_memory", "update_memory", "delete_memory", "memory_history",
                       "get_profile", "recall_memories", "search_knowledge", "ingest_document",
                       "list_documents", "delete_document", "list_entities", "entity_graph"}));
  EXPECT_EQ(tools.size(), names.size());
}

TEST_F(McpServerTest, KnowledgeDocumentsAreIngestedFoundCitedAndDeleted) {
  Initialize();
  json made = CallOk("ingest_document",
                     {{"doc_id", "hours"},
                      {"format", "markdown"},
                      {"content", "# Store hours\n\nThe store opens at nine on weekdays.\n"}});
  EXPECT_EQ(made["document"]["chunks"], 1);
  EXPECT_EQ(made["replaced"], false);
  json found = CallOk("search_knowledge", {{"query", "when does the store open"}});
  ASSERT_EQ(found["results"].size(), 1u) << found.dump();
  EXPECT_EQ(found["results"][0]["citation"], "[hours §Store hours]");
  // get_context (the server's default user) cites it; search_memories returns it beside the
  // memories.
  AddOne("I usually shop on Saturdays");
  json ctx = CallOk("get_context", {{"query", "when does the store open"}});
  EXPECT_NE(ctx["context"].get<std::string>().find("[hours §Store hours]"), std::string::npos)
      << ctx.dump();
  json hits = CallOk("search_memories", {{"query", "store open weekdays"}});
  EXPECT_EQ(hits["knowledge"][0]["doc_id"], "hours");
  EXPECT_EQ(CallOk("list_documents", json::object())["documents"].size(), 1u);
  // An agent's documents are its own.
  EXPECT_TRUE(CallOk("list_documents", {{"agent_id", "bot"}})["documents"].empty());
  EXPECT_NE(CallError("ingest_document", {{"doc_id", "x"}, {"path", "/etc/passwd"}}).find("path"),
            std::string::npos);
  EXPECT_NE(CallError("ingest_document",
                      {{"doc_id", "x"}, {"format", "pdf"}, {"content_base64", "aGVsbG8="}})
                .find("unsupported_format"),
            std::string::npos);
  EXPECT_EQ(CallOk("delete_document", {{"doc_id", "hours"}})["chunks"], 1);
  EXPECT_TRUE(CallOk("search_knowledge", {{"query", "store open"}})["results"].empty());
}

TEST_F(McpServerTest, AddMemoryTakesContentAndWarnsAboutTheTextAlias) {
  Initialize();
  json tools = Request("tools/list", json())["result"]["tools"];
  for (const json& tool : tools) {
    if (tool["name"] != "add_memory") continue;
    const json& props = tool["inputSchema"]["properties"];
    EXPECT_TRUE(props.contains("content"));
    EXPECT_EQ(props["text"].value("deprecated", false), true);
  }
  json old = CallOk("add_memory", {{"text", "Alice likes tea"}, {"infer", false}});
  EXPECT_EQ(old["results"][0]["memory"]["content"], "Alice likes tea");
  ASSERT_EQ(old["warnings"].size(), 1u);
  EXPECT_EQ(old["warnings"][0]["replacement"], "content");
  json canonical = CallOk("add_memory", {{"content", "Alice likes coffee"}, {"infer", false}});
  EXPECT_FALSE(canonical.contains("warnings"));
  EXPECT_NE(CallError("add_memory", {{"content", "a"}, {"text", "b"}}).find("differs"),
            std::string::npos);
}

TEST_F(McpServerTest, AddSearchContextAndList) {
  Initialize();
  json added = CallOk("add_memory", {{"content", "Alice lives in Beijing"},
                                     {"infer", false},
                                     {"type", "fact"},
                                     {"tags", {"home"}},
                                     {"importance", 0.9}});
  ASSERT_EQ(added["results"].size(), 1u);
  EXPECT_EQ(added["results"][0]["event"], "ADD");
  EXPECT_EQ(added["results"][0]["memory"]["user_id"], "alice");
  AddOne("Alice prefers green tea", {{"type", "preference"}});
  json turns = CallOk("add_memory", {{"infer", false},
                                     {"messages",
                                      {{{"role", "user"}, {"content", "I adopted a cat"}},
                                       {{"role", "assistant"}, {"content", "Congratulations"}}}}});
  EXPECT_EQ(turns["results"].size(), 2u);

  json hits =
      CallOk("search_memories", {{"query", "where does alice live"}, {"k", 3}, {"explain", true}});
  ASSERT_FALSE(hits["results"].empty());
  EXPECT_EQ(hits["results"][0]["memory"]["content"], "Alice lives in Beijing");
  EXPECT_TRUE(hits["results"][0].contains("explain"));
  json filtered =
      CallOk("search_memories", {{"query", "alice"}, {"filters", {{"types", {"preference"}}}}});
  ASSERT_EQ(filtered["results"].size(), 1u);
  EXPECT_EQ(filtered["results"][0]["memory"]["content"], "Alice prefers green tea");

  json context = CallOk("get_context", {{"query", "where does alice live"}, {"token_budget", 64}});
  EXPECT_NE(context.value("context", "").find("Beijing"), std::string::npos);
  EXPECT_LE(context.value("tokens", 1000), 64);

  json page = CallOk("list_memories", {{"limit", 2}});
  EXPECT_EQ(page["results"].size(), 2u);
  ASSERT_TRUE(page["next_cursor"].is_string());
  json rest = CallOk("list_memories", {{"limit", 10}, {"cursor", page["next_cursor"]}});
  EXPECT_EQ(rest["results"].size(), 2u);
  EXPECT_TRUE(rest["next_cursor"].is_null());
  json tagged = CallOk("list_memories", {{"tag", {"home"}}, {"type", {"fact"}}});
  EXPECT_EQ(tagged["results"].size(), 1u);

  // The profile: the preference under likes, citing its memory; and leading a context.
  json profile = CallOk("get_profile", json::object());
  bool liked = false;
  for (const json& section : profile["sections"]) {
    if (section["kind"] != "likes") continue;
    liked = section["lines"][0]["text"] == "Alice prefers green tea";
    EXPECT_EQ(section["lines"][0]["memory_ids"].size(), 1u);
  }
  EXPECT_TRUE(liked) << profile.dump();
  EXPECT_NE(profile["text"].get<std::string>().find("- likes: Alice prefers green tea"),
            std::string::npos);
  json led = CallOk("get_context",
                    {{"query", "where does alice live"}, {"token_budget", 200}, {"profile", true}});
  EXPECT_EQ(led["profile"], true);
  EXPECT_EQ(led["context"].get<std::string>().rfind("User profile:\n", 0), 0u) << led.dump();

  // Proactive recall: a critical allergy before a hike; nothing for a question about routers.
  AddOne("Alice is allergic to pollen", {{"type", "fact"}, {"tags", {"critical"}}});
  json hike = CallOk("recall_memories",
                     {{"messages", {{{"role", "user"}, {"content", "going hiking tomorrow"}}}}});
  ASSERT_EQ(hike["results"].size(), 1u) << hike.dump();
  EXPECT_EQ(hike["results"][0]["memory"]["content"], "Alice is allergic to pollen");
  json quiet = CallOk("recall_memories",
                      {{"messages", {{{"role", "user"}, {"content", "reset my router"}}}}});
  EXPECT_TRUE(quiet["results"].empty()) << quiet.dump();
}

// An assistant calls add_memory with what the user said: by default the turn is kept and what
// it states is extracted and reconciled, and chit-chat stores nothing, with the reason.
TEST_F(McpServerTest, AddMemoryExtractsByDefault) {
  Initialize();
  json added = CallOk("add_memory", {{"content", "I'm allergic to peanuts, carry an epipen"}});
  ASSERT_EQ(added["results"].size(), 2u) << added.dump();
  EXPECT_EQ(added["results"][0]["kind"], "turn");
  EXPECT_EQ(added["results"][0]["memory"]["type"], "message");
  EXPECT_EQ(added["results"][1]["kind"], "memory");
  EXPECT_EQ(added["results"][1]["event"], "ADD");
  EXPECT_NE(added["results"][1]["memory"].value("content", "").find("peanut"), std::string::npos);
  EXPECT_EQ(added["results"][1]["memory"]["source"]["turn_ids"][0], added["results"][0]["id"]);
  // said again: the fact is reinforced, not duplicated
  json again = CallOk("add_memory", {{"content", "just so you know I'm allergic to peanuts"}});
  ASSERT_EQ(again["results"].size(), 2u) << again.dump();
  EXPECT_EQ(again["results"][1]["event"], "NOOP");
  EXPECT_EQ(again["results"][1]["id"], added["results"][1]["id"]);
  json chat = CallOk("add_memory", {{"content", "thanks!"}});
  EXPECT_TRUE(chat["results"].empty());
  ASSERT_EQ(chat["skipped"].size(), 1u);
  EXPECT_NE(chat["skipped"][0].value("reason", "").find("chit-chat"), std::string::npos);
  // What only storing as given means is refused with extraction, saying how to store as given.
  EXPECT_NE(CallError("add_memory", {{"content", "x"}, {"type", "fact"}}).find("infer=false"),
            std::string::npos);
}

TEST_F(McpServerTest, GetUpdateHistoryDelete) {
  Initialize();
  const std::string id = AddOne("Alice works at Initech");
  EXPECT_EQ(CallOk("get_memory", {{"id", id}})["content"], "Alice works at Initech");

  json updated =
      CallOk("update_memory",
             {{"id", id}, {"content", "Alice works at Globex"}, {"reason", "changed jobs"}});
  EXPECT_EQ(updated["content"], "Alice works at Globex");
  EXPECT_EQ(updated["id"], id);
  json history = CallOk("memory_history", {{"id", id}, {"user_id", "alice"}});
  ASSERT_EQ(history["results"].size(), 2u);

  json deleted = CallOk("delete_memory", {{"id", id}, {"reason", "asked to forget"}});
  EXPECT_EQ(deleted, json::parse(R"({"id":")" + id + R"(","deleted":true,"hard":false})"));
  EXPECT_EQ(CallOk("get_memory", {{"id", id}})["status"], "deleted");
  EXPECT_EQ(CallOk("delete_memory", {{"id", id}, {"hard", true}})["hard"], true);
  EXPECT_EQ(CallError("get_memory", {{"id", id}}).rfind("not_found:", 0), 0u);
}

TEST_F(McpServerTest, ScopesComeFromTenantAndUser) {
  Initialize();
  const std::string id = AddOne("Bob's secret", {{"user_id", "bob"}});
  EXPECT_EQ(CallError("get_memory", {{"id", id}}).rfind("not_found:", 0), 0u);
  EXPECT_EQ(CallOk("get_memory", {{"id", id}, {"user_id", "bob"}})["tenant"], "acme");
  EXPECT_EQ(CallError("delete_memory", {{"id", id}}).rfind("not_found:", 0), 0u);

  auto no_default = MakeServer("");
  Initialize(no_default.get());
  json result = Call("list_memories", json::object(), no_default.get());
  EXPECT_EQ(result["isError"], true);
  EXPECT_NE(result["content"][0]["text"].get<std::string>().find("user_id"), std::string::npos);
}

TEST_F(McpServerTest, BadArgumentValuesAreToolErrors) {
  Initialize();
  EXPECT_NE(CallError("add_memory", json::object()).find("content"), std::string::npos);
  EXPECT_NE(CallError("add_memory", {{"content", "x"}, {"colour", "red"}}).find("colour"),
            std::string::npos);
  EXPECT_NE(CallError("add_memory", {{"content", "x"}, {"importance", 3}}).find("importance"),
            std::string::npos);
  EXPECT_NE(CallError("search_memories", {{"query", "x"}, {"k", 0}}).find("'k'"),
            std::string::npos);
  EXPECT_NE(CallError("list_memories", {{"limit", {{"a", 1}}}}).find("limit"), std::string::npos);
  EXPECT_NE(CallError("get_memory", json::object()).find("'id'"), std::string::npos);
  const std::string id = AddOne("something");
  EXPECT_NE(CallError("update_memory", {{"id", id}}).find("changes nothing"), std::string::npos);
  json failed = Call("get_memory", {{"id", "no-such-id"}});
  EXPECT_EQ(failed["structuredContent"]["error"]["code"], "not_found");
}

TEST_F(McpServerTest, ProtocolErrors) {
  json parse = Send("{not json");
  EXPECT_EQ(ErrorCode(parse), kParseError);
  EXPECT_TRUE(parse["id"].is_null());
  EXPECT_EQ(ErrorCode(Send(R"({"jsonrpc":"2.0","id":1})")), kInvalidRequest);
  EXPECT_EQ(ErrorCode(Send(R"({"jsonrpc":"1.0","id":1,"method":"ping"})")), kInvalidRequest);
  EXPECT_EQ(ErrorCode(Send(R"({"jsonrpc":"2.0","id":null,"method":"ping"})")), kInvalidRequest);
  EXPECT_EQ(ErrorCode(Send(R"("just a string")")), kInvalidRequest);
  EXPECT_EQ(ErrorCode(Send(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})")),
            kInvalidParams);
  Initialize();
  json unknown = Request("resources/list", json());
  EXPECT_EQ(ErrorCode(unknown), kMethodNotFound);
  EXPECT_EQ(unknown["id"], next_id_);
  EXPECT_EQ(ErrorCode(Request("tools/call", {{"name", "no_such_tool"}})), kInvalidParams);
  EXPECT_EQ(ErrorCode(Request("tools/call", {{"arguments", json::object()}})), kInvalidParams);
  EXPECT_EQ(ErrorCode(Request("tools/call", {{"name", "get_memory"}, {"arguments", {1, 2}}})),
            kInvalidParams);
  // 2025-06-18 has no batches.
  EXPECT_EQ(ErrorCode(Send(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])")), kInvalidRequest);
}

TEST_F(McpServerTest, NotificationsAndResponsesGetNoReply) {
  EXPECT_EQ(server_->HandleLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"), "");
  EXPECT_EQ(server_->HandleLine(R"({"jsonrpc":"2.0","method":"notifications/cancelled",)"
                                R"("params":{"requestId":3}})"),
            "");
  EXPECT_EQ(server_->HandleLine(R"({"jsonrpc":"2.0","method":"no/such/notification"})"), "");
  EXPECT_EQ(server_->HandleLine(R"({"jsonrpc":"2.0","id":7,"result":{}})"), "");
  EXPECT_EQ(server_->HandleLine("   \r"), "");
}

TEST_F(McpServerTest, BatchesWith20250326) {
  Request("initialize", {{"protocolVersion", "2025-03-26"}});
  json replies = Send(R"([{"jsonrpc":"2.0","id":"a","method":"ping"},)"
                      R"({"jsonrpc":"2.0","method":"notifications/initialized"},)"
                      R"({"jsonrpc":"2.0","id":"b","method":"nope"}])");
  ASSERT_TRUE(replies.is_array()) << replies.dump();
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0]["id"], "a");
  EXPECT_EQ(ErrorCode(replies[1]), kMethodNotFound);
  EXPECT_EQ(ErrorCode(Send("[]")), kInvalidRequest);
  EXPECT_EQ(server_->HandleLine(R"([{"jsonrpc":"2.0","method":"notifications/initialized"}])"), "");
}

TEST_F(McpServerTest, DeepNestingIsRefused) {
  Initialize();
  std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":)";
  deep += std::string(5000, '[') + std::string(5000, ']') + "}}";
  EXPECT_EQ(ErrorCode(Send(deep)), kInvalidRequest);
  // Metadata a few levels deep is fine.
  json added = CallOk(
      "add_memory",
      {{"content", "nested"}, {"infer", false}, {"metadata", {{"a", {{"b", {{"c", {1, 2}}}}}}}}});
  EXPECT_EQ(added["results"].size(), 1u);
}

}  // namespace
}  // namespace engram::mcp
