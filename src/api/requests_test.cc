#include "api/requests.h"

#include <gtest/gtest.h>

namespace engram::api {
namespace {

using json = nlohmann::json;

Limits DefaultLimits() { return Limits{}; }

json Parse(std::string_view text) {
  auto j = ParseBody(text, DefaultLimits());
  EXPECT_TRUE(j.ok()) << j.status().ToString();
  return j.ok() ? *j : json();
}

// The error's message, for assertions that it names the problem.
template <typename T>
std::string ErrorOf(const Result<T>& r) {
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

TEST(ParseBodyTest, RefusesEmptyMalformedNonObjectAndDeepBodies) {
  EXPECT_NE(ErrorOf(ParseBody("", DefaultLimits())).find("needs a JSON body"), std::string::npos);
  EXPECT_NE(ErrorOf(ParseBody("{", DefaultLimits())).find("not valid JSON"), std::string::npos);
  EXPECT_NE(ErrorOf(ParseBody("[1]", DefaultLimits())).find("JSON object"), std::string::npos);
  EXPECT_NE(ErrorOf(ParseBody("{\"a\":\"\xff\"}", DefaultLimits())).find("not valid JSON"),
            std::string::npos);
  std::string deep(100000, '[');
  EXPECT_NE(ErrorOf(ParseBody(deep, DefaultLimits())).find("nested deeper"), std::string::npos);
  // Brackets inside strings do not count as nesting.
  EXPECT_TRUE(ParseBody("{\"text\":\"" + std::string(1000, '[') + "\"}", DefaultLimits()).ok());
}

TEST(DecodeAddTest, TextBecomesOneMemoryWithItsFields) {
  auto req = DecodeAdd(Parse(R"({"user_id":"u","agent_id":"a","session_id":"s","content":"hi",
      "type":"preference","metadata":{"x":1},"importance":0.9,"created_at":"2026-01-02",
      "tags":["t"],"entities":["e"],"infer":false})"),
                       "ten", DefaultLimits());
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_EQ(req->scope, (Scope{"ten", "u", "a", "s"}));
  EXPECT_FALSE(req->infer);
  ASSERT_EQ(req->memories.size(), 1u);
  const NewMemory& m = req->memories[0];
  EXPECT_EQ(m.content, "hi");
  EXPECT_EQ(*m.type, MemoryType::kPreference);
  EXPECT_EQ(m.metadata, R"({"x":1})");
  EXPECT_DOUBLE_EQ(*m.importance, 0.9);
  EXPECT_EQ(*m.created_at, *ParseTimestamp("2026-01-02"));
  EXPECT_EQ(m.tags, std::vector<std::string>{"t"});
}

TEST(DecodeAddTest, TextIsADeprecatedAliasOfContentNamedInTheWarnings) {
  for (const char* body :
       {R"({"user_id":"u","text":"hi","infer":false})", R"({"user_id":"u","text":"hi"})"}) {
    auto req = DecodeAdd(Parse(body), "t", DefaultLimits());
    ASSERT_TRUE(req.ok()) << req.status().ToString();
    const std::string& content =
        req->infer ? req->infer_items.at(0).turns.at(0).content : req->memories.at(0).content;
    EXPECT_EQ(content, "hi");
    ASSERT_EQ(req->warnings.size(), 1u);
    EXPECT_EQ(req->warnings[0].field, "text");
    EXPECT_EQ(req->warnings[0].replacement, "content");
    EXPECT_NE(req->warnings[0].message.find("deprecated"), std::string::npos);
  }
  auto canonical = DecodeAdd(Parse(R"({"user_id":"u","content":"hi"})"), "t", DefaultLimits());
  ASSERT_TRUE(canonical.ok());
  EXPECT_TRUE(canonical->warnings.empty());
  // Both names agreeing is accepted (still with the warning); disagreeing is refused.
  auto same = DecodeAdd(Parse(R"({"user_id":"u","content":"hi","text":"hi","infer":false})"), "t",
                        DefaultLimits());
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->memories.at(0).content, "hi");
  EXPECT_EQ(same->warnings.size(), 1u);
  EXPECT_NE(
      ErrorOf(DecodeAdd(Parse(R"({"user_id":"u","content":"a","text":"b"})"), "t", DefaultLimits()))
          .find("differs from 'content'"),
      std::string::npos);
}

TEST(DecodeBatchTest, TheTextAliasIsWarnedAboutOncePerRequest) {
  auto req = DecodeBatch(Parse(R"({"user_id":"u","infer":false,"memories":[{"text":"a"},
      {"content":"b"},{"text":"c"}]})"),
                         "t", DefaultLimits());
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  ASSERT_EQ(req->memories.size(), 3u);
  EXPECT_EQ(req->memories[0].content, "a");
  EXPECT_EQ(req->memories[2].content, "c");
  EXPECT_EQ(req->warnings.size(), 1u);
  EXPECT_NE(ErrorOf(DecodeBatch(Parse(R"({"user_id":"u","memories":[{"content":"a","text":"b"}]})"),
                                "t", DefaultLimits()))
                .find("memories[0] field 'text'"),
            std::string::npos);
}

TEST(DecodeAddTest, TheTenantNeverComesFromTheBody) {
  EXPECT_NE(ErrorOf(DecodeAdd(Parse(R"({"user_id":"u","content":"x","tenant":"evil"})"), "t",
                              DefaultLimits()))
                .find("'tenant' is not a known field"),
            std::string::npos);
}

TEST(DecodeAddTest, MessagesBecomeMessageMemoriesWithTheirRole) {
  auto req =
      DecodeAdd(Parse(R"({"user_id":"u","infer":false,"messages":[{"role":"user","content":"a"},
      {"role":"assistant","content":"b"}],"metadata":{"k":"v"}})"),
                "t", DefaultLimits());
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  ASSERT_EQ(req->memories.size(), 2u);
  EXPECT_EQ(*req->memories[1].type, MemoryType::kMessage);
  EXPECT_EQ(json::parse(req->memories[1].metadata), json::parse(R"({"k":"v","role":"assistant"})"));
}

TEST(DecodeAddTest, ErrorsNameTheField) {
  const Limits l = DefaultLimits();
  EXPECT_NE(ErrorOf(DecodeAdd(Parse(R"({"content":"x"})"), "t", l)).find("'user_id' is required"),
            std::string::npos);
  EXPECT_NE(ErrorOf(DecodeAdd(Parse(R"({"user_id":"u"})"), "t", l)).find("exactly one of"),
            std::string::npos);
  EXPECT_NE(ErrorOf(DecodeAdd(Parse(R"({"user_id":"u","content":"x","messages":[]})"), "t", l))
                .find("exactly one of"),
            std::string::npos);
  EXPECT_NE(ErrorOf(DecodeAdd(Parse(R"({"user_id":"u","content":"x","type":"bogus"})"), "t", l))
                .find("'type'"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(DecodeAdd(Parse(R"({"user_id":"u","content":"x","importance":"high"})"), "t", l))
          .find("'importance' must be a number"),
      std::string::npos);
  EXPECT_NE(ErrorOf(DecodeAdd(Parse(R"({"user_id":"u","messages":[{"role":"user"}]})"), "t", l))
                .find("'content' is required"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(DecodeAdd(Parse(R"({"user_id":"u","content":"x","created_at":"yesterday"})"), "t", l))
          .find("created_at"),
      std::string::npos);
}

TEST(DecodeBatchTest, EntriesAreCheckedAndCounted) {
  Limits l;
  l.max_batch_items = 2;
  auto ok = DecodeBatch(
      Parse(R"({"user_id":"u","infer":false,"memories":[{"content":"a"},{"content":"b"}]})"), "t",
      l);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->memories.size(), 2u);
  EXPECT_NE(ErrorOf(DecodeBatch(Parse(R"({"user_id":"u","memories":[{"content":"a"},{"content":"b"},
      {"content":"c"}]})"),
                                "t", l))
                .find("at most 2"),
            std::string::npos);
  EXPECT_NE(ErrorOf(DecodeBatch(Parse(R"({"user_id":"u","memories":[{"content":"a"},
      {"content":"b","user_id":"v"}]})"),
                                "t", l))
                .find("memories[1] field 'user_id'"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(DecodeBatch(Parse(R"({"user_id":"u","memories":[]})"), "t", l)).find("non-empty"),
      std::string::npos);
}

TEST(DecodeAddTest, InferTakesTurnsAndRefusesWhatExtractionDecides) {
  auto req = DecodeAdd(Parse(R"({"user_id":"u","messages":[{"role":"user","content":"我住在上海"},
      {"role":"assistant","content":"好的"}],"tags":["chat"],"importance":0.7,
      "created_at":"2026-05-08T10:00:00Z"})"),
                       "t", DefaultLimits());
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_TRUE(req->infer);
  EXPECT_FALSE(req->async);
  EXPECT_TRUE(req->memories.empty());
  ASSERT_EQ(req->infer_items.size(), 1u);
  const InferItem& item = req->infer_items[0];
  ASSERT_EQ(item.turns.size(), 2u);
  EXPECT_EQ(item.turns[0].role, "user");
  EXPECT_EQ(item.turns[1].content, "好的");
  EXPECT_EQ(item.turns[0].at, *ParseTimestamp("2026-05-08T10:00:00Z"));
  EXPECT_EQ(item.options.tags, std::vector<std::string>{"chat"});
  EXPECT_EQ(*item.options.importance, 0.7);
  auto text = DecodeAdd(Parse(R"({"user_id":"u","content":"I like tea","async":true})"), "t",
                        DefaultLimits());
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(text->async);
  EXPECT_EQ(text->infer_items[0].turns[0].role, "user");
  const Limits l = DefaultLimits();
  for (const char* field : {"type", "tier", "confidence", "entities", "valid_from"}) {
    json body = Parse(R"({"user_id":"u","content":"x"})");
    body[field] = field == std::string("entities") ? json::array() : json("fact");
    EXPECT_NE(ErrorOf(DecodeAdd(body, "t", l)).find(field), std::string::npos) << field;
  }
  EXPECT_NE(ErrorOf(DecodeAdd(Parse(R"({"user_id":"u","content":"x","infer":false,"async":true})"),
                              "t", l))
                .find("async"),
            std::string::npos);
}

TEST(DecodeSessionTest, MessagesWithIdsAndTimes) {
  auto req = DecodeSessionMessages(
      Parse(R"({"user_id":"u","infer":false,"messages":[{"role":"user","content":"hi",
          "id":"m1","created_at":"2026-01-02T03:04:05Z"}]})"),
      "s1", "t", DefaultLimits());
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_EQ(req->scope.session_id, "s1");
  EXPECT_EQ(req->scope.tenant, "t");
  EXPECT_FALSE(req->infer);
  EXPECT_EQ(req->turns[0].id, "m1");
  EXPECT_EQ(req->turns[0].at, *ParseTimestamp("2026-01-02T03:04:05Z"));
  EXPECT_NE(ErrorOf(DecodeSessionMessages(Parse(R"({"user_id":"u"})"), "s", "t", DefaultLimits()))
                .find("messages"),
            std::string::npos);
  EXPECT_NE(ErrorOf(DecodeSessionMessages(Parse(R"({"user_id":"u","messages":[{"role":"user",
      "content":"x","extra":1}]})"),
                                          "s", "t", DefaultLimits()))
                .find("extra"),
            std::string::npos);
  EXPECT_NE(ErrorOf(DecodeSessionClose(Parse(R"({"user_id":"u","x":1})"), "s", "t")).find("x"),
            std::string::npos);
}

TEST(DecodeJobTest, RememberPayloadRoundTrips) {
  auto req = DecodeAdd(Parse(R"({"user_id":"u","agent_id":"a","content":"I like tea",
      "tags":["x"],"metadata":{"k":1},"importance":0.4,"created_at":"2026-01-01T00:00:00Z"})"),
                       "t", DefaultLimits());
  ASSERT_TRUE(req.ok());
  auto back = DecodeRememberJob(EncodeRememberJob(*req), "t");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->scope, req->scope);
  ASSERT_EQ(back->infer_items.size(), 1u);
  const InferItem& a = req->infer_items[0];
  const InferItem& b = back->infer_items[0];
  EXPECT_EQ(b.turns[0].content, a.turns[0].content);
  EXPECT_EQ(b.turns[0].at, a.turns[0].at);
  EXPECT_EQ(b.options.tags, a.options.tags);
  EXPECT_EQ(json::parse(b.options.metadata), json::parse(a.options.metadata));
  EXPECT_EQ(b.options.importance, a.options.importance);
  EXPECT_FALSE(DecodeRememberJob("not json", "t").ok());
}

TEST(DecodeSearchTest, ReadsQueryFiltersAndOptions) {
  auto req = DecodeSearch(Parse(R"({"user_id":"u","query":"q","k":5,"min_score":0.2,
      "explain":true,"fusion":"rrf","diversify":false,"recent_turns":["a","b"],
      "filters":{"types":["fact"],"tiers":["semantic"],"statuses":"all",
                 "created_after":"2026-01-01","tags":["x"],"entities":["Bob"],
                 "metadata":{"lang":"zh","n":{"in":[1,2,"3"]}}}})"),
                          "t", DefaultLimits());
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  const SearchQuery& q = req->query;
  EXPECT_EQ(q.text, "q");
  EXPECT_EQ(q.k, 5);
  EXPECT_EQ(*q.min_score, 0.2);
  EXPECT_TRUE(q.explain);
  EXPECT_EQ(q.fusion, FusionMode::kReciprocalRank);
  EXPECT_FALSE(q.diversify);
  EXPECT_EQ(q.recent_turns.size(), 2u);
  EXPECT_EQ(q.filters.types, std::vector<MemoryType>{MemoryType::kFact});
  EXPECT_TRUE(q.filters.statuses.empty());  // "all"
  EXPECT_TRUE(q.filters.created_after.has_value());
  ASSERT_EQ(q.filters.metadata.size(), 1u);
  EXPECT_EQ(std::get<std::string>(q.filters.metadata[0].value), "zh");
  ASSERT_EQ(q.filters.metadata_in.size(), 1u);
  EXPECT_EQ(q.filters.metadata_in[0].values.size(), 3u);
  EXPECT_EQ(std::get<int64_t>(q.filters.metadata_in[0].values[0]), 1);
}

TEST(DecodeSearchTest, BadValuesAreNamed) {
  const Limits l = DefaultLimits();
  auto err = [&](const char* body) { return ErrorOf(DecodeSearch(Parse(body), "t", l)); };
  EXPECT_NE(err(R"({"user_id":"u"})").find("'query' is required"), std::string::npos);
  EXPECT_NE(err(R"({"user_id":"u","query":"q","k":0})").find("'k' must be between 1 and 100"),
            std::string::npos);
  EXPECT_NE(err(R"({"user_id":"u","query":"q","k":1e9})").find("'k'"), std::string::npos);
  EXPECT_NE(err(R"({"user_id":"u","query":"q","k":99999999999999999999})").find("'k'"),
            std::string::npos);
  EXPECT_NE(err(R"({"user_id":"u","query":"q","fusion":"max"})").find("'fusion'"),
            std::string::npos);
  EXPECT_NE(err(R"({"user_id":"u","query":"q","filters":{"colour":"red"}})")
                .find("filters field 'colour' is not a known field"),
            std::string::npos);
  EXPECT_NE(err(R"({"user_id":"u","query":"q","filters":{"metadata":{"a":[1]}}})")
                .find("filters.metadata 'a'"),
            std::string::npos);
  EXPECT_NE(err(R"({"user_id":"u","query":"q","filters":{"metadata":{"a":{"in":[[1]]}}}})")
                .find("non-scalar"),
            std::string::npos);
  EXPECT_NE(
      err(R"({"user_id":"u","query":"q","filters":{"statuses":["gone"]}})").find("'statuses'"),
      std::string::npos);
}

TEST(DecodeContextTest, BudgetIsBounded) {
  auto ok = DecodeContext(Parse(R"({"user_id":"u","query":"q","token_budget":300})"), "t",
                          DefaultLimits());
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->request.token_budget, 300);
  EXPECT_NE(ErrorOf(DecodeContext(Parse(R"({"user_id":"u","query":"q","token_budget":5})"), "t",
                                  DefaultLimits()))
                .find("'token_budget' must be between 16 and 32768"),
            std::string::npos);
}

TEST(DecodePatchTest, OnlyNamedFieldsChangeAndNullClearsValidTo) {
  auto p = DecodePatch(Parse(R"({"content":"new","valid_to":null,"reason":"fix"})"));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(*p->content, "new");
  EXPECT_TRUE(p->clear_valid_to);
  EXPECT_FALSE(p->type.has_value());
  EXPECT_EQ(p->reason, "fix");
  EXPECT_NE(ErrorOf(DecodePatch(Parse(R"({"reason":"x"})"))).find("changes nothing"),
            std::string::npos);
  EXPECT_NE(ErrorOf(DecodePatch(Parse(R"({"status":"exploded"})"))).find("'status'"),
            std::string::npos);
}

TEST(DecodeListTest, QueryParametersBecomeAListQuery) {
  Params p = {{"user_id", "u"},  {"type", "fact,preference"},
              {"status", "all"}, {"tag", "a"},
              {"tag", "b"},      {"limit", "20"},
              {"cursor", "c1"},  {"after", "2026-01-01"}};
  auto req = DecodeList(p, "t", DefaultLimits());
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_EQ(req->query.types.size(), 2u);
  EXPECT_TRUE(req->query.statuses.empty());
  EXPECT_EQ(req->query.tags, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(req->query.limit, 20);
  EXPECT_EQ(req->query.cursor, "c1");
  EXPECT_TRUE(req->query.created_after.has_value());

  const Limits l = DefaultLimits();
  EXPECT_NE(ErrorOf(DecodeList({}, "t", l)).find("'user_id' is required"), std::string::npos);
  EXPECT_NE(ErrorOf(DecodeList({{"user_id", "u"}, {"limit", "0"}}, "t", l)).find("'limit'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(DecodeList({{"user_id", "u"}, {"limit", "12abc"}}, "t", l)).find("'limit'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(DecodeList({{"user_id", "u"}, {"colour", "red"}}, "t", l)).find("'colour'"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(DecodeList({{"user_id", "u"}, {"user_id", "v"}}, "t", l)).find("more than once"),
      std::string::npos);
}

// Found by fuzz/request_decoders_fuzzer: an empty enum name decoded as the enum's first value,
// so {"status": ""} made a patch that reactivates the item and {"type": ""} stored a fact.
TEST(DecodeEnumTest, AnEmptyNameIsRefusedNotTheFirstValue) {
  for (const char* body : {R"({"status": ""})", R"({"type": ""})", R"({"tier": ""})"}) {
    EXPECT_NE(ErrorOf(DecodePatch(Parse(body))).find("unknown"), std::string::npos) << body;
  }
  EXPECT_NE(ErrorOf(DecodeAdd(Parse(R"({"user_id": "u", "content": "x", "type": ""})"), "t",
                              DefaultLimits()))
                .find("'type'"),
            std::string::npos);
  auto patch = DecodePatch(Parse(R"({"status": null, "content": "c"})"));
  ASSERT_TRUE(patch.ok()) << patch.status().ToString();
  EXPECT_FALSE(patch->status.has_value());
}

// Found by fuzz/request_decoders_fuzzer: a list without 'limit' asked for the engine's default
// page (50) even when the server's cap was lower.
TEST(DecodeListTest, TheDefaultPageStaysWithinTheCap) {
  Limits tight;
  tight.max_list_limit = 10;
  auto req = DecodeList({{"user_id", "u"}}, "t", tight);
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_EQ(req->query.limit, 10);
  req = DecodeList({{"user_id", "u"}}, "t", DefaultLimits());
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_EQ(req->query.limit, ListQuery{}.limit);
}

// Found by fuzz/request_decoders_fuzzer: a search without 'k' (default 10) was refused under
// --max-k below 10, a context without 'token_budget' (default 1000) under a lower
// --max-token-budget.
TEST(DecodeSearchTest, DefaultsStayWithinTheCaps) {
  Limits tight;
  tight.max_k = 5;
  tight.max_token_budget = 500;
  auto search = DecodeSearch(Parse(R"({"user_id": "u", "query": "q"})"), "t", tight);
  ASSERT_TRUE(search.ok()) << search.status().ToString();
  EXPECT_EQ(search->query.k, 5);
  auto context = DecodeContext(Parse(R"({"user_id": "u", "query": "q"})"), "t", tight);
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  EXPECT_EQ(context->request.search.k, 5);
  EXPECT_EQ(context->request.token_budget, 500);
}

}  // namespace
}  // namespace engram::api
