#include <gtest/gtest.h>

#include <sstream>

#include "engram/transfer.h"
#include "testing/test_support.h"

namespace engram {
namespace {

using testing::TempDir;

constexpr TimestampMs kT0 = 1'700'000'000'000;

std::vector<MemoryRecord> ExportRecords(Engine& engine, const Scope& scope) {
  std::vector<MemoryRecord> out;
  EXPECT_TRUE(engine
                  .Export(scope,
                          [&](const MemoryRecord& r) {
                            out.push_back(r);
                            return Status::Ok();
                          })
                  .ok());
  return out;
}

// A record with every field set to a non-default value.
MemoryRecord FullRecord() {
  MemoryRecord r;
  MemoryItem& m = r.item;
  m.id = "import-0001";
  m.scope = {"acme", "张三", "agent-1", "sess-9"};
  m.tier = Tier::kEpisodic;
  m.type = MemoryType::kGoal;
  m.content = "想在明年跑完马拉松 \"quoted\"\nsecond line";
  m.entities = {"马拉松"};
  m.tags = {"health", "2027"};
  m.metadata = R"({"flag":true,"nested":{"a":[1,2.5,"x"]}})";  // canonical: sorted keys
  m.importance = 0.123456789;
  m.confidence = 0.87;
  m.source = {{"msg-1", "msg-2"}, "sess-9", "llm:gpt-x", "extract-v3"};
  m.created_at = kT0;
  m.updated_at = kT0 + 5;
  m.valid_from = kT0 - 86'400'000;
  m.valid_to = kT0 + 86'400'000;
  m.last_accessed = kT0 + 7;
  m.access_count = 42;
  m.status = ItemStatus::kSuperseded;
  m.supersedes = "import-0000";
  m.superseded_by = "import-0002";
  m.embedding_model = "hash-4";
  MemoryItem before = m;
  before.content = "想跑半马";
  before.status = ItemStatus::kActive;
  before.valid_to.reset();
  r.history = {{.seq = 1,
                .item_id = m.id,
                .event = HistoryEvent::kAdd,
                .new_content = "想跑半马",
                .reason = "extracted",
                .at = kT0},
               {.seq = 2,
                .item_id = m.id,
                .event = HistoryEvent::kSupersede,
                .old_content = "想跑半马",
                .new_content = m.content,
                .previous = before,
                .reason = "goal changed",
                .at = kT0 + 5}};
  r.vectors = {{"hash-4", {0.5f, -0.25f, 1e-8f, 3.0f}}};
  return r;
}

TEST(JsonlTest, ExportThenImportReproducesEveryField) {
  TempDir dir;
  auto first = testing::OpenEngine(dir.File("a.db"));
  const MemoryRecord original = FullRecord();
  ASSERT_TRUE(first->Import({original}, OnConflict::kFail).ok());
  // Plus ordinary items written through the API.
  const Scope scope = original.item.scope;
  NewMemory extra = testing::Text("plain one");
  extra.tags = {"t"};
  auto added = first->Add(scope, extra);
  ASSERT_TRUE(added.ok());
  MemoryPatch p;
  p.content = "plain one, edited";
  ASSERT_TRUE(first->Update(scope, added->id, p).ok());

  std::stringstream file;
  auto stats = ExportJsonl(*first, {scope}, file);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->memories, 2);

  auto second = testing::OpenEngine(dir.File("b.db"));
  auto report = ImportJsonl(*second, file, ImportOptions{});
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok()) << (report->errors.empty() ? "" : report->errors[0].message);
  EXPECT_EQ(report->imported, 2);

  auto a = ExportRecords(*first, scope);
  auto b = ExportRecords(*second, scope);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].item, b[i].item);
    EXPECT_EQ(a[i].vectors, b[i].vectors);
    ASSERT_EQ(a[i].history.size(), b[i].history.size());
    for (size_t k = 0; k < a[i].history.size(); ++k) {
      HistoryEntry x = a[i].history[k], y = b[i].history[k];
      x.seq = y.seq = 0;  // sequence numbers are per database
      EXPECT_EQ(x, y);
    }
  }
  // The hand-built record came back exactly.
  const MemoryRecord& full = a[0].item.id == original.item.id ? a[0] : a[1];
  EXPECT_EQ(full.item, original.item);
  EXPECT_EQ(full.vectors, original.vectors);
  ASSERT_EQ(full.history.size(), 2u);
  EXPECT_EQ(full.history[1].previous, original.history[1].previous);
  EXPECT_EQ(*second->GetVector(scope, original.item.id, "hash-4"), original.vectors[0].values);
}

// Sessions with every turn, the profile summary and the maintenance log travel with the
// memories, field by field; a second import of the same file skips the sessions or refuses them.
TEST(JsonlTest, SessionsProfileAndMaintenanceLogRoundTrip) {
  TempDir dir;
  ManualClock clock(1'796'000'000'000);  // 2026-11-30
  auto first = testing::OpenEngine(dir.File("a.db"), &clock);
  const Scope user{"acme", "李雷", "", ""};
  UserExtras x;
  SessionInfo open;
  open.session_id = "s-1";
  open.agent_id = "coach";
  open.started_at = 1'796'000'000'000;
  open.last_turn_at = 1'796'000'060'000;
  open.summary_id = "sum-1";
  open.recent = {{"m1", "user", "我明天去爬山", 1'796'000'000'000},
                 {"m2", "assistant", "Take water \"and\" a map\nplease", 1'796'000'060'000}};
  open.turn_count = 2;
  SessionInfo closed;
  closed.session_id = "s-2";
  closed.started_at = 1'796'100'000'000;
  closed.closed_at = 1'796'100'500'000;
  closed.turn_count = 0;
  x.sessions = {open, closed};
  x.profile = ProfileSummary{"用户对花粉过敏。",
                             {"mem-1", "mem-2"},
                             "00ff00ff00ff00ff",
                             "fake-1",
                             "profile-v1",
                             1'796'000'100'000,
                             false};
  x.maintenance_log = {
      {"mem-1", MaintenanceAction::kArchive, "retention 0.04", 1'796'000'200'000},
      {"profile", MaintenanceAction::kProfile, "no summary yet", 1'796'000'300'000}};
  auto wrote = first->ImportUserExtras(user, x, OnConflict::kFail);
  ASSERT_TRUE(wrote.ok()) << wrote.status().ToString();
  EXPECT_EQ(
      (std::vector<int64_t>{wrote->sessions, wrote->turns, wrote->profiles, wrote->log_entries}),
      (std::vector<int64_t>{2, 2, 1, 2}));
  NewMemory m = testing::Text("对花粉过敏");
  ASSERT_TRUE(first->Add(user, m).ok());

  std::stringstream file;
  auto stats = ExportJsonl(*first, {user}, file);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ((std::vector<int64_t>{stats->memories, stats->sessions, stats->turns, stats->profiles,
                                  stats->log_entries}),
            (std::vector<int64_t>{1, 2, 2, 1, 2}));
  EXPECT_NE(file.str().find(R"("version":2)"), std::string::npos);
  const std::string text = file.str();

  auto second = testing::OpenEngine(dir.File("b.db"), &clock);
  std::stringstream in(text);
  auto report = ImportJsonl(*second, in, ImportOptions{});
  ASSERT_TRUE(report.ok());
  ASSERT_TRUE(report->ok()) << report->errors[0].message;
  EXPECT_EQ((std::vector<int64_t>{report->imported, report->sessions, report->turns,
                                  report->profiles, report->log_entries}),
            (std::vector<int64_t>{1, 2, 2, 1, 2}));
  auto a = first->ExportUserExtras(user);
  auto b = second->ExportUserExtras(user);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(b->sessions.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(static_cast<const SessionSummary&>(a->sessions[i]),
              static_cast<const SessionSummary&>(b->sessions[i]));
    EXPECT_EQ(a->sessions[i].recent, b->sessions[i].recent);
  }
  EXPECT_EQ(b->sessions[0].recent, open.recent);
  EXPECT_EQ(b->sessions[1].closed_at, closed.closed_at);
  ASSERT_TRUE(b->profile.has_value());
  EXPECT_EQ(b->profile->text, x.profile->text);
  EXPECT_EQ(b->profile->item_ids, x.profile->item_ids);
  EXPECT_EQ(b->profile->fingerprint, x.profile->fingerprint);
  EXPECT_EQ(b->profile->model, x.profile->model);
  EXPECT_EQ(b->profile->prompt_version, x.profile->prompt_version);
  EXPECT_EQ(b->profile->generated_at, x.profile->generated_at);
  ASSERT_EQ(b->maintenance_log.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(b->maintenance_log[i].item_id, x.maintenance_log[i].item_id);
    EXPECT_EQ(b->maintenance_log[i].action, x.maintenance_log[i].action);
    EXPECT_EQ(b->maintenance_log[i].reason, x.maintenance_log[i].reason);
    EXPECT_EQ(b->maintenance_log[i].at, x.maintenance_log[i].at);
  }
  // The imported turns are the session's working memory.
  auto working = second->GetSession(Scope{"acme", "李雷", "", "s-1"}, 10);
  ASSERT_TRUE(working.ok());
  EXPECT_EQ(working->recent, open.recent);
  // Again: sessions present already are refused, or skipped.
  std::stringstream again(text);
  auto refused = ImportJsonl(*second, again, ImportOptions{});
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->ok());
  std::stringstream skip(text);
  auto skipped = ImportJsonl(*second, skip, ImportOptions{.on_conflict = OnConflict::kSkip});
  ASSERT_TRUE(skipped.ok());
  EXPECT_TRUE(skipped->ok()) << skipped->errors[0].message;
  EXPECT_EQ(skipped->sessions, 0);
  EXPECT_EQ(skipped->skipped, 1 + 2);  // the memory and both sessions
  // A malformed session line is reported by its line and writes none of the user's extras.
  auto third = testing::OpenEngine(dir.File("c.db"), &clock);
  std::stringstream bad(
      R"({"kind":"engram-export","version":2})"
      "\n"
      R"({"kind":"session","tenant":"acme","user_id":"u","session_id":"s","turns":[{"role":"user"}]})"
      "\n");
  auto rejected = ImportJsonl(*third, bad, ImportOptions{});
  ASSERT_TRUE(rejected.ok());
  ASSERT_EQ(rejected->errors.size(), 1u);
  EXPECT_EQ(rejected->errors[0].line, 2);
  EXPECT_NE(rejected->errors[0].message.find("message_id"), std::string::npos)
      << rejected->errors[0].message;
  EXPECT_EQ(third->ExportUserExtras(Scope{"acme", "u", "", ""})->sessions.size(), 0u);
}

std::string GoodLine(const std::string& id, const std::string& user = "u") {
  return R"({"kind":"memory","memory":{"id":")" + id + R"(","user_id":")" + user +
         R"(","content":"content of )" + id + R"(","created_at":"2026-01-01T00:00:00.000Z"}})";
}

TEST(JsonlTest, MalformedLinesAreReportedByLineAndTheirBatchIsNotWritten) {
  TempDir dir;
  auto engine = testing::OpenEngine(dir.File("e.db"));
  std::stringstream in;
  in << R"({"kind":"engram-export","version":1})"
     << "\n"                    // line 1
     << GoodLine("a1") << "\n"  // line 2  batch 1
     << GoodLine("a2") << "\n"  // line 3  batch 1
     << "\n"                    // line 4  (blank)
     << GoodLine("b1") << "\n"  // line 5  batch 2
     << "{not json"
     << "\n"                    // line 6  batch 2
     << GoodLine("c1") << "\n"  // line 7  batch 3
     << "{\"memory\":{\"id\":\"c2\",\"user_id\":\"u\",\"content\":\"bad \xff byte\"}}\n"  // 8
     << R"({"memory":{"id":"d1","user_id":"u","content":"x","colour":"red"}})"
     << "\n"  // 9
     << R"({"memory":{"id":"d2","user_id":"u"}})"
     << "\n"                     // line 10 batch 4: no content
     << GoodLine("e1") << "\n";  // line 11 batch 5
  ImportOptions options;
  options.batch_size = 2;
  auto report = ImportJsonl(*engine, in, options);
  ASSERT_TRUE(report.ok());
  std::vector<int64_t> lines;
  for (const auto& e : report->errors) lines.push_back(e.line);
  EXPECT_EQ(lines, (std::vector<int64_t>{6, 8, 9, 10}));
  EXPECT_NE(report->errors[0].message.find("line 6"), std::string::npos);
  EXPECT_NE(report->errors[1].message.find("UTF-8"), std::string::npos);
  EXPECT_NE(report->errors[2].message.find("colour"), std::string::npos);
  EXPECT_NE(report->errors[3].message.find("content"), std::string::npos);
  EXPECT_EQ(report->imported, 3);  // a1, a2, e1
  EXPECT_EQ(report->rejected, 6);  // b1 + bad, c1 + bad, d1 + d2
  Scope u{"default", "u", "", ""};
  EXPECT_TRUE(engine->Get(u, "a1").ok());
  EXPECT_TRUE(engine->Get(u, "e1").ok());
  for (const char* id : {"b1", "c1", "c2", "d1", "d2"}) {
    EXPECT_EQ(engine->Get(u, id).status().code(), StatusCode::kNotFound) << id;
  }
}

TEST(JsonlTest, ExistingIdsFailOrAreSkipped) {
  TempDir dir;
  auto engine = testing::OpenEngine(dir.File("e.db"));
  std::string data = GoodLine("x1") + "\n" + GoodLine("x2") + "\n";
  std::stringstream once(data);
  ASSERT_EQ(ImportJsonl(*engine, once, ImportOptions{})->imported, 2);

  std::stringstream again(data + GoodLine("x3") + "\n");
  auto failed = ImportJsonl(*engine, again, ImportOptions{});
  ASSERT_TRUE(failed.ok());
  EXPECT_FALSE(failed->ok());
  EXPECT_EQ(failed->imported, 0);
  EXPECT_NE(failed->errors[0].message.find("already exists"), std::string::npos);
  EXPECT_EQ(engine->Get(Scope{"default", "u", "", ""}, "x3").status().code(),
            StatusCode::kNotFound);

  std::stringstream skip(data + GoodLine("x3") + "\n");
  ImportOptions options;
  options.on_conflict = OnConflict::kSkip;
  auto skipped = ImportJsonl(*engine, skip, options);
  EXPECT_TRUE(skipped->ok());
  EXPECT_EQ(skipped->skipped, 2);
  EXPECT_EQ(skipped->imported, 1);
}

TEST(JsonlTest, UnsupportedFormatVersionIsReported) {
  TempDir dir;
  auto engine = testing::OpenEngine(dir.File("e.db"));
  std::stringstream in(std::string(R"({"kind":"engram-export","version":99})") + "\n" +
                       GoodLine("y1") + "\n");
  auto report = ImportJsonl(*engine, in, ImportOptions{});
  ASSERT_FALSE(report->ok());
  EXPECT_EQ(report->errors[0].line, 1);
  EXPECT_NE(report->errors[0].message.find("version"), std::string::npos);
  EXPECT_EQ(report->imported, 0);
}

TEST(JsonlTest, VectorBase64RoundTripsExactly) {
  TempDir dir;
  auto engine = testing::OpenEngine(dir.File("e.db"));
  MemoryRecord r = FullRecord();
  r.vectors = {{"m", {1.0f, -0.0f, 3.4028235e38f, 1.17549435e-38f, 0.1f}}};
  ASSERT_TRUE(engine->Import({r}, OnConflict::kFail).ok());
  std::stringstream file;
  ASSERT_TRUE(ExportJsonl(*engine, {r.item.scope}, file).ok());
  auto other = testing::OpenEngine(dir.File("o.db"));
  ASSERT_TRUE(ImportJsonl(*other, file, ImportOptions{})->ok());
  auto v = other->GetVector(r.item.scope, r.item.id, "m");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, r.vectors[0].values);
}

}  // namespace
}  // namespace engram
