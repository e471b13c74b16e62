#include "engram/engine.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "storage/sqlite.h"
#include "testing/test_support.h"

namespace engram {
namespace {

using testing::TempDir;
using testing::Text;

constexpr TimestampMs kT0 = 1'700'000'000'000;

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override { engine_ = testing::OpenEngine(dir_.File("e.db"), &clock_); }

  MemoryItem AddOk(const NewMemory& m, const Scope& scope) {
    auto item = engine_->Add(scope, m);
    EXPECT_TRUE(item.ok()) << item.status().ToString();
    return item.ok() ? *item : MemoryItem{};
  }
  MemoryItem AddOk(const NewMemory& m) { return AddOk(m, alice_); }

  std::vector<std::string> ListContents(const ListQuery& q, const Scope& scope) {
    auto page = engine_->List(scope, q);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    std::vector<std::string> out;
    if (page.ok()) {
      for (const auto& m : page->items) out.push_back(m.content);
    }
    return out;
  }
  std::vector<std::string> ListContents(const ListQuery& q) { return ListContents(q, alice_); }

  int64_t CountRows(const std::string& sql) {
    auto db = Database::Open(dir_.File("e.db"), DatabaseOptions{.read_only = true});
    EXPECT_TRUE(db.ok());
    // The counts are of every tenant's rows (PostgreSQL's row-level security shows a
    // connection only the tenant it binds).
    EXPECT_TRUE((*db)->BindAllTenants().ok());
    auto st = (*db)->PrepareUncached(sql);
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    EXPECT_TRUE(*(*st)->Step());
    return (*st)->Int(0);
  }

  TempDir dir_;
  ManualClock clock_{kT0};
  std::unique_ptr<Engine> engine_;
  Scope alice_{"default", "alice", "", ""};
  Scope bob_{"default", "bob", "", ""};
};

TEST_F(EngineTest, AddFillsDefaultsAndRecordsHistory) {
  MemoryItem m = AddOk(Text("I live in Beijing"));
  EXPECT_EQ(m.id.size(), 36u);
  EXPECT_EQ(m.scope, alice_);
  EXPECT_EQ(m.type, MemoryType::kFact);
  EXPECT_EQ(m.tier, Tier::kSemantic);
  EXPECT_EQ(m.status, ItemStatus::kActive);
  EXPECT_EQ(m.created_at, kT0);
  EXPECT_EQ(m.updated_at, kT0);
  EXPECT_EQ(m.valid_from, kT0);
  EXPECT_FALSE(m.valid_to.has_value());
  EXPECT_DOUBLE_EQ(m.importance, 0.5);
  EXPECT_DOUBLE_EQ(m.confidence, 1.0);
  EXPECT_EQ(m.source.extractor, "manual");
  EXPECT_EQ(m.metadata, "{}");

  auto stored = engine_->Get(alice_, m.id);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(*stored, m);

  auto history = engine_->History(alice_, m.id);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].event, HistoryEvent::kAdd);
  EXPECT_EQ((*history)[0].new_content, "I live in Beijing");
  EXPECT_FALSE((*history)[0].previous.has_value());
  EXPECT_EQ((*history)[0].at, kT0);
}

TEST_F(EngineTest, AddKeepsEveryGivenField) {
  NewMemory n = Text("喜欢喝绿茶");
  n.type = MemoryType::kPreference;
  n.tier = Tier::kEpisodic;
  n.entities = {"绿茶"};
  n.tags = {"drinks", "morning"};
  n.metadata = R"({ "source": "chat", "n": 3 })";
  n.importance = 0.9;
  n.confidence = 0.75;
  n.source.message_ids = {"m1", "m2"};
  n.source.extractor = "rules-v1";
  n.created_at = kT0 - 5000;
  n.valid_from = kT0 - 86'400'000;
  n.valid_to = kT0 + 86'400'000;
  MemoryItem m = AddOk(n, Scope{"default", "alice", "agent-7", "s1"});
  auto got = engine_->Get(alice_, m.id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->type, MemoryType::kPreference);
  EXPECT_EQ(got->tier, Tier::kEpisodic);
  EXPECT_EQ(got->entities, std::vector<std::string>{"绿茶"});
  EXPECT_EQ(got->tags, (std::vector<std::string>{"drinks", "morning"}));
  EXPECT_EQ(got->metadata, R"({"n":3,"source":"chat"})");  // canonical compact form
  EXPECT_DOUBLE_EQ(got->importance, 0.9);
  EXPECT_DOUBLE_EQ(got->confidence, 0.75);
  EXPECT_EQ(got->source.message_ids, (std::vector<std::string>{"m1", "m2"}));
  EXPECT_EQ(got->source.extractor, "rules-v1");
  EXPECT_EQ(got->source.session_id, "s1");
  EXPECT_EQ(got->scope.agent_id, "agent-7");
  EXPECT_EQ(got->scope.session_id, "s1");
  EXPECT_EQ(got->created_at, kT0 - 5000);
  EXPECT_EQ(got->valid_from, kT0 - 86'400'000);
  EXPECT_EQ(got->valid_to, kT0 + 86'400'000);
}

TEST_F(EngineTest, BadInputIsRejectedWithANamedFieldAndNothingStored) {
  struct Case {
    NewMemory memory;
    std::string expect_in_message;
  };
  std::vector<Case> cases;
  cases.push_back({Text(""), "content"});
  cases.push_back({Text(std::string(16 * 1024 + 1, 'x')), "limit"});
  cases.push_back({Text("bad \xFF byte"), "UTF-8"});
  NewMemory bad_tag = Text("ok");
  bad_tag.tags = {"fine", "bad\xC0\xAF"};
  cases.push_back({bad_tag, "tags"});
  NewMemory bad_md = Text("ok");
  bad_md.metadata = "[1,2]";
  cases.push_back({bad_md, "metadata"});
  NewMemory bad_json = Text("ok");
  bad_json.metadata = "{nope";
  cases.push_back({bad_json, "metadata"});
  NewMemory bad_imp = Text("ok");
  bad_imp.importance = 1.5;
  cases.push_back({bad_imp, "importance"});
  NewMemory bad_valid = Text("ok");
  bad_valid.valid_from = kT0;
  bad_valid.valid_to = kT0 - 1;
  cases.push_back({bad_valid, "valid_to"});
  for (const Case& c : cases) {
    auto r = engine_->Add(alice_, c.memory);
    ASSERT_FALSE(r.ok()) << c.expect_in_message;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.expect_in_message), std::string::npos)
        << r.status().message();
  }
  EXPECT_EQ(CountRows("SELECT count(*) FROM items"), 0);
  EXPECT_EQ(CountRows("SELECT count(*) FROM item_history"), 0);

  for (const Scope& bad :
       {Scope{"default", "", "", ""}, Scope{"", "u", "", ""}, Scope{"default", "u\n2", "", ""}}) {
    auto r = engine_->Add(bad, Text("x"));
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST_F(EngineTest, ContentLimitIsConfigurable) {
  EngineOptions options;
  options.max_content_bytes = 10;
  auto small = testing::OpenEngine(dir_.File("small.db"), &clock_, options);
  EXPECT_TRUE(small->Add(alice_, Text("0123456789")).ok());
  auto r = small->Add(alice_, Text("0123456789a"));
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("11 bytes, over the limit of 10"), std::string::npos);
}

TEST_F(EngineTest, BatchIsAllOrNothing) {
  std::vector<NewMemory> batch = {Text("one"), Text("two"), Text(""), Text("four")};
  auto r = engine_->AddBatch(alice_, batch);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("item 2"), std::string::npos);
  EXPECT_EQ(CountRows("SELECT count(*) FROM items"), 0);

  batch[2] = Text("three");
  auto ok = engine_->AddBatch(alice_, batch);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->size(), 4u);
  EXPECT_EQ(CountRows("SELECT count(*) FROM items"), 4);
  EXPECT_EQ(CountRows("SELECT count(*) FROM item_history WHERE event = 'ADD'"), 4);
  EXPECT_EQ(engine_->AddBatch(alice_, {}).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(EngineTest, GetReportsNotFoundAndBadIds) {
  EXPECT_EQ(engine_->Get(alice_, "0190aaaa-0000-7000-8000-000000000000").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(engine_->Get(alice_, "not an id").status().code(), StatusCode::kInvalidArgument);
}

// Search reads are counted in their own narrow table (schema version 5): reads of the item
// show them added in, a write of the whole row folds them into it, and deleting the item, or
// deleting it before its counts are written, leaves no count behind.
TEST_F(EngineTest, AccessCountsLiveInTheirOwnTableAndFoldIntoWrites) {
  MemoryItem tea = AddOk(Text("oolong tea"));
  MemoryItem coffee = AddOk(Text("espresso coffee"));
  SearchQuery q;
  q.text = "oolong";
  q.k = 1;
  for (int i = 0; i < 2; ++i) ASSERT_EQ(engine_->Search(alice_, q)->at(0).item.id, tea.id);
  clock_.Advance(1000);
  ASSERT_TRUE(engine_->FlushAccessStats().ok());
  EXPECT_EQ(engine_->Get(alice_, tea.id)->access_count, 2);
  EXPECT_EQ(engine_->Get(alice_, tea.id)->last_accessed, kT0);
  EXPECT_EQ(ListContents(ListQuery{}).size(), 2u);
  EXPECT_EQ(CountRows("SELECT access_count FROM items WHERE id = '" + tea.id + "'"), 0);
  EXPECT_EQ(CountRows("SELECT sum(reads) FROM item_access"), 2);

  MemoryPatch patch;
  patch.content = "oolong tea, no sugar";
  auto updated = engine_->Update(alice_, tea.id, patch);
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(updated->access_count, 2);
  EXPECT_EQ(CountRows("SELECT access_count FROM items WHERE id = '" + tea.id + "'"), 2);
  EXPECT_EQ(CountRows("SELECT count(*) FROM item_access"), 0);
  auto third = engine_->Search(alice_, q);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->at(0).item.access_count, 3);
  ASSERT_TRUE(engine_->FlushAccessStats().ok());
  EXPECT_EQ(engine_->Get(alice_, tea.id)->access_count, 3);

  q.text = "espresso";
  ASSERT_EQ(engine_->Search(alice_, q)->at(0).item.id, coffee.id);
  ASSERT_TRUE(engine_->Purge(alice_, coffee.id).ok());  // its count is still in memory
  ASSERT_TRUE(engine_->Purge(alice_, tea.id).ok());     // its count is in the table
  ASSERT_TRUE(engine_->FlushAccessStats().ok());
  EXPECT_EQ(CountRows("SELECT count(*) FROM item_access"), 0);
}

TEST_F(EngineTest, ListIsNewestFirstAndFiltersByTypeTierStatus) {
  NewMemory pref = Text("likes tea");
  pref.type = MemoryType::kPreference;
  AddOk(pref);
  clock_.Advance(1000);
  NewMemory event = Text("went hiking");
  event.type = MemoryType::kEvent;
  MemoryItem hiking = AddOk(event);
  clock_.Advance(1000);
  MemoryItem fact = AddOk(Text("lives in Beijing"));
  ASSERT_TRUE(engine_->Delete(alice_, fact.id).ok());
  clock_.Advance(1000);
  MemoryItem archived = AddOk(Text("old job"));
  MemoryPatch archive;
  archive.status = ItemStatus::kArchived;
  ASSERT_TRUE(engine_->Update(alice_, archived.id, archive).ok());

  ListQuery q;
  EXPECT_EQ(ListContents(q), (std::vector<std::string>{"went hiking", "likes tea"}));
  q.statuses = {};
  EXPECT_EQ(ListContents(q),
            (std::vector<std::string>{"old job", "lives in Beijing", "went hiking", "likes tea"}));
  q.statuses = {ItemStatus::kDeleted, ItemStatus::kArchived};
  EXPECT_EQ(ListContents(q), (std::vector<std::string>{"old job", "lives in Beijing"}));
  q = ListQuery{};
  q.types = {MemoryType::kPreference};
  EXPECT_EQ(ListContents(q), std::vector<std::string>{"likes tea"});
  q = ListQuery{};
  q.tiers = {Tier::kEpisodic};
  EXPECT_EQ(ListContents(q), std::vector<std::string>{"went hiking"});
  q = ListQuery{};
  q.created_after = hiking.created_at;
  q.created_before = hiking.created_at + 1;
  EXPECT_EQ(ListContents(q), std::vector<std::string>{"went hiking"});
}

TEST_F(EngineTest, ListFiltersByTagsAndMetadata) {
  NewMemory a = Text("a");
  a.tags = {"x", "y"};
  a.metadata = R"({"source":"chat","n":3,"score":2.5,"pinned":true,"note":null})";
  AddOk(a);
  NewMemory b = Text("b");
  b.tags = {"x"};
  b.metadata = R"({"source":"email","n":"3","pinned":false})";
  AddOk(b);

  ListQuery q;
  q.tags = {"x"};
  EXPECT_EQ(ListContents(q), (std::vector<std::string>{"b", "a"}));
  q.tags = {"x", "y"};
  EXPECT_EQ(ListContents(q), std::vector<std::string>{"a"});
  q.tags = {"z"};
  EXPECT_TRUE(ListContents(q).empty());

  auto by = [&](MetadataValue v, const std::string& key) {
    ListQuery mq;
    mq.metadata = {{key, std::move(v)}};
    return ListContents(mq);
  };
  EXPECT_EQ(by(std::string("chat"), "source"), std::vector<std::string>{"a"});
  EXPECT_EQ(by(int64_t{3}, "n"), std::vector<std::string>{"a"});        // not the string "3"
  EXPECT_EQ(by(std::string("3"), "n"), std::vector<std::string>{"b"});  // not the number 3
  EXPECT_EQ(by(2.5, "score"), std::vector<std::string>{"a"});
  EXPECT_EQ(by(true, "pinned"), std::vector<std::string>{"a"});
  EXPECT_EQ(by(false, "pinned"), std::vector<std::string>{"b"});
  EXPECT_EQ(by(nullptr, "note"), std::vector<std::string>{"a"});
  EXPECT_TRUE(by(std::string("chat"), "missing").empty());

  ListQuery two;
  two.metadata = {{"source", std::string("chat")}, {"n", int64_t{4}}};
  EXPECT_TRUE(ListContents(two).empty());
}

TEST_F(EngineTest, BadListQueriesNameTheProblem) {
  auto expect_invalid = [&](const ListQuery& q, const std::string& fragment) {
    auto r = engine_->List(alice_, q);
    ASSERT_FALSE(r.ok()) << fragment;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().message();
  };
  ListQuery q;
  q.limit = 0;
  expect_invalid(q, "limit");
  q.limit = 1001;
  expect_invalid(q, "limit");
  q = ListQuery{};
  q.created_after = kT0;
  q.created_before = kT0 - 1;
  expect_invalid(q, "inverted");
  q = ListQuery{};
  q.metadata = {{"a\"]') OR 1=1 --", std::string("x")}};
  expect_invalid(q, "metadata filter key");
  q = ListQuery{};
  q.cursor = "garbage";
  expect_invalid(q, "cursor");
}

TEST_F(EngineTest, CursorPaginationIsStableWhileItemsAreAdded) {
  for (int i = 0; i < 25; ++i) {
    AddOk(Text("item " + std::to_string(i)));
    if (i % 3 == 0) clock_.Advance(1);  // some items share a timestamp
  }
  std::vector<std::string> seen;
  ListQuery q;
  q.limit = 7;
  int pages = 0;
  while (true) {
    auto page = engine_->List(alice_, q);
    ASSERT_TRUE(page.ok());
    for (const auto& m : page->items) seen.push_back(m.content);
    ++pages;
    // New items arrive between pages; they are newer, so they never appear in later pages.
    clock_.Advance(10);
    AddOk(Text("late " + std::to_string(pages)));
    if (page->next_cursor.empty()) break;
    q.cursor = page->next_cursor;
  }
  EXPECT_EQ(pages, 4);
  ASSERT_EQ(seen.size(), 25u);
  std::set<std::string> unique(seen.begin(), seen.end());
  EXPECT_EQ(unique.size(), 25u);
  EXPECT_EQ(seen.front(), "item 24");
  EXPECT_EQ(seen.back(), "item 0");
}

TEST_F(EngineTest, AgentAndSessionNarrowReads) {
  AddOk(Text("from agent a"), Scope{"default", "alice", "a", "s1"});
  AddOk(Text("from agent b"), Scope{"default", "alice", "b", "s2"});
  EXPECT_EQ(ListContents(ListQuery{}).size(), 2u);
  EXPECT_EQ(ListContents(ListQuery{}, Scope{"default", "alice", "a", ""}),
            std::vector<std::string>{"from agent a"});
  EXPECT_EQ(ListContents(ListQuery{}, Scope{"default", "alice", "", "s2"}),
            std::vector<std::string>{"from agent b"});
  EXPECT_TRUE(ListContents(ListQuery{}, Scope{"default", "alice", "a", "s2"}).empty());
}

TEST_F(EngineTest, UpdateRecordsThePreviousItem) {
  MemoryItem m = AddOk(Text("I live in Beijing"));
  clock_.Advance(60'000);
  MemoryPatch p;
  p.content = "I live in Shanghai";
  p.tags = std::vector<std::string>{"home"};
  p.importance = 0.8;
  p.reason = "moved";
  auto updated = engine_->Update(alice_, m.id, p);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->id, m.id);
  EXPECT_EQ(updated->content, "I live in Shanghai");
  EXPECT_EQ(updated->updated_at, kT0 + 60'000);
  EXPECT_EQ(updated->created_at, kT0);
  EXPECT_EQ(*engine_->Get(alice_, m.id), *updated);

  auto history = engine_->History(alice_, m.id);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);
  const HistoryEntry& h = (*history)[1];
  EXPECT_EQ(h.event, HistoryEvent::kUpdate);
  EXPECT_EQ(h.old_content, "I live in Beijing");
  EXPECT_EQ(h.new_content, "I live in Shanghai");
  EXPECT_EQ(h.reason, "moved");
  ASSERT_TRUE(h.previous.has_value());
  EXPECT_EQ(*h.previous, m);  // every field of the old value
  EXPECT_GT(h.seq, (*history)[0].seq);

  // A patch that changes nothing writes nothing.
  MemoryPatch same;
  same.content = "I live in Shanghai";
  ASSERT_TRUE(engine_->Update(alice_, m.id, same).ok());
  EXPECT_EQ(engine_->History(alice_, m.id)->size(), 2u);
}

TEST_F(EngineTest, UpdateRejectsBadPatches) {
  MemoryItem m = AddOk(Text("x"));
  MemoryPatch del;
  del.status = ItemStatus::kDeleted;
  EXPECT_EQ(engine_->Update(alice_, m.id, del).status().code(), StatusCode::kInvalidArgument);
  MemoryPatch empty;
  empty.content = "";
  EXPECT_EQ(engine_->Update(alice_, m.id, empty).status().code(), StatusCode::kInvalidArgument);
  MemoryPatch md;
  md.metadata = "not json";
  EXPECT_EQ(engine_->Update(alice_, m.id, md).status().code(), StatusCode::kInvalidArgument);
  MemoryPatch before;
  before.valid_to = m.valid_from - 1;
  EXPECT_EQ(engine_->Update(alice_, m.id, before).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*engine_->Get(alice_, m.id), m);
  EXPECT_EQ(engine_->History(alice_, m.id)->size(), 1u);
}

TEST_F(EngineTest, DeleteIsSoftAndKeptInHistory) {
  MemoryItem m = AddOk(Text("secret plan"));
  ASSERT_TRUE(engine_->Delete(alice_, m.id, "user asked").ok());
  auto got = engine_->Get(alice_, m.id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->status, ItemStatus::kDeleted);
  EXPECT_EQ(got->content, "secret plan");
  auto history = engine_->History(alice_, m.id);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[1].event, HistoryEvent::kDelete);
  EXPECT_EQ((*history)[1].reason, "user asked");
  EXPECT_EQ((*history)[1].previous->status, ItemStatus::kActive);
  // Idempotent, and a deleted item cannot be updated.
  EXPECT_TRUE(engine_->Delete(alice_, m.id).ok());
  EXPECT_EQ(engine_->History(alice_, m.id)->size(), 2u);
  MemoryPatch p;
  p.content = "revived";
  EXPECT_EQ(engine_->Update(alice_, m.id, p).status().code(), StatusCode::kConflict);
  EXPECT_EQ(engine_->Delete(alice_, "0190aaaa-0000-7000-8000-000000000000").code(),
            StatusCode::kNotFound);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_F(EngineTest, PurgeLeavesNoTraceInTablesOrFile) {
  const std::string marker = "purge-marker-7f3a9c";
  MemoryItem m = AddOk(Text(marker + " original"));
  MemoryPatch p;
  p.content = marker + " updated";
  ASSERT_TRUE(engine_->Update(alice_, m.id, p).ok());
  ASSERT_TRUE(engine_->PutVector(alice_, m.id, "hash-256", {0.5f, -0.5f}).ok());
  MemoryItem keep = AddOk(Text("keep me"));

  ASSERT_TRUE(engine_->Purge(alice_, m.id).ok());
  EXPECT_EQ(engine_->Get(alice_, m.id).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(engine_->History(alice_, m.id).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(CountRows("SELECT count(*) FROM items"), 1);
  EXPECT_EQ(CountRows("SELECT count(*) FROM item_history"), 1);
  // Only the kept item's vector (stored on add) remains.
  EXPECT_EQ(CountRows("SELECT count(*) FROM embeddings"), 1);
  EXPECT_EQ(CountRows("SELECT count(*) FROM embeddings e JOIN items i ON i.seq = e.item_seq "
                      "WHERE i.content = 'keep me'"),
            1);
  EXPECT_TRUE(engine_->Get(alice_, keep.id).ok());
  EXPECT_EQ(engine_->Purge(alice_, m.id).code(), StatusCode::kNotFound);

  engine_.reset();  // close: the WAL is checkpointed into the main file
  for (const char* suffix : {"", "-wal"}) {
    std::string bytes = ReadAll(dir_.File("e.db") + suffix);
    EXPECT_EQ(bytes.find(marker), std::string::npos) << "found in e.db" << suffix;
  }
}

TEST_F(EngineTest, PurgeScopeRemovesOneUserOnly) {
  for (int i = 0; i < 5; ++i) AddOk(Text("alice " + std::to_string(i)));
  MemoryItem b = AddOk(Text("bob's"), bob_);
  ASSERT_TRUE(engine_->Add(Scope{"other", "alice", "", ""}, Text("other tenant")).ok());
  auto removed = engine_->PurgeScope(alice_);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 5);
  EXPECT_TRUE(ListContents(ListQuery{}).empty());
  EXPECT_TRUE(engine_->Get(bob_, b.id).ok());
  EXPECT_EQ(ListContents(ListQuery{}, Scope{"other", "alice", "", ""}).size(), 1u);
  EXPECT_EQ(CountRows("SELECT count(*) FROM scopes WHERE user_id = 'alice' AND tenant='default'"),
            0);
  EXPECT_EQ(CountRows("SELECT count(*) FROM item_history"), 2);
  // The user can start again.
  AddOk(Text("fresh start"));
  EXPECT_EQ(ListContents(ListQuery{}), std::vector<std::string>{"fresh start"});
  EXPECT_EQ(*engine_->PurgeScope(Scope{"default", "nobody", "", ""}), 0);
}

TEST_F(EngineTest, VectorsAreKeptPerModel) {
  MemoryItem m = AddOk(Text("x"));
  ASSERT_TRUE(engine_->PutVector(alice_, m.id, "hash-4", {1, 0, 0, 0}).ok());
  ASSERT_TRUE(engine_->PutVector(alice_, m.id, "openai-3", {0.1f, 0.2f, 0.3f}).ok());
  EXPECT_EQ(*engine_->GetVector(alice_, m.id, "hash-4"), (std::vector<float>{1, 0, 0, 0}));
  EXPECT_EQ(*engine_->GetVector(alice_, m.id, "openai-3"), (std::vector<float>{0.1f, 0.2f, 0.3f}));
  EXPECT_EQ(engine_->Get(alice_, m.id)->embedding_model, "openai-3");
  EXPECT_EQ(engine_->GetVector(alice_, m.id, "other").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(engine_->PutVector(alice_, m.id, "hash-4", {0, 1, 0, 0}).ok());
  EXPECT_EQ(*engine_->GetVector(alice_, m.id, "hash-4"), (std::vector<float>{0, 1, 0, 0}));
  EXPECT_EQ(engine_->PutVector(alice_, m.id, "", {1}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(engine_->PutVector(alice_, m.id, "m", {}).code(), StatusCode::kInvalidArgument);
}

TEST_F(EngineTest, DataSurvivesReopen) {
  MemoryItem m = AddOk(Text("durable"));
  engine_.reset();
  engine_ = testing::OpenEngine(dir_.File("e.db"), &clock_);
  auto got = engine_->Get(alice_, m.id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, m);
}

TEST_F(EngineTest, ListScopesCountsItemsPerUser) {
  AddOk(Text("1"));
  AddOk(Text("2"));
  AddOk(Text("3"), bob_);
  ASSERT_TRUE(engine_->Add(Scope{"t2", "carol", "", ""}, Text("4")).ok());
  auto all = engine_->ListScopes("");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].user_id, "alice");
  EXPECT_EQ((*all)[0].items, 2);
  auto t2 = engine_->ListScopes("t2");
  ASSERT_EQ(t2->size(), 1u);
  EXPECT_EQ((*t2)[0].user_id, "carol");
}

}  // namespace
}  // namespace engram
