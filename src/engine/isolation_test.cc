// Randomized tenant isolation: many scopes, many operations; no call scoped to one
// (tenant, user) ever returns or changes another's rows.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "testing/test_support.h"

namespace engram {
namespace {

std::string ScopeName(const Scope& s) { return s.tenant + "/" + s.user_id; }

TEST(IsolationTest, NoOperationCrossesScopes) {
  testing::TempDir dir;
  auto engine = testing::OpenEngine(dir.File("iso.db"));
  ASSERT_NE(engine, nullptr);
  std::mt19937 rng(20261130);

  // Same user ids under different tenants, and similar-looking ids, on purpose.
  std::vector<Scope> scopes;
  for (const char* tenant : {"t1", "t2", "t10"}) {
    for (const char* user : {"u1", "u2", "u11", "U1"}) scopes.push_back({tenant, user, "", ""});
  }
  std::map<std::string, std::set<std::string>> owned;  // scope name -> ids
  std::map<std::string, std::string> owner_of;         // id -> scope name

  for (int i = 0; i < 400; ++i) {
    const Scope& s = scopes[rng() % scopes.size()];
    NewMemory m = testing::Text("memory " + std::to_string(i) + " of " + ScopeName(s));
    m.tags = {"shared-tag"};
    m.metadata = R"({"k":"same"})";
    auto item = engine->Add(s, m);
    ASSERT_TRUE(item.ok());
    owned[ScopeName(s)].insert(item->id);
    owner_of[item->id] = ScopeName(s);
  }
  std::vector<std::string> all_ids;
  for (const auto& [id, owner] : owner_of) all_ids.push_back(id);

  for (int round = 0; round < 300; ++round) {
    const Scope& s = scopes[rng() % scopes.size()];
    const std::string me = ScopeName(s);
    const std::string& id = all_ids[rng() % all_ids.size()];
    const bool mine = owner_of[id] == me;
    switch (rng() % 6) {
      case 0: {
        auto got = engine->Get(s, id);
        EXPECT_EQ(got.ok(), mine);
        if (!mine) EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
        break;
      }
      case 1: {
        MemoryPatch p;
        p.content = "changed by " + me;
        auto r = engine->Update(s, id, p);
        if (!mine) EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
        break;
      }
      case 2: {
        Status st = engine->Delete(s, id);
        if (!mine) EXPECT_EQ(st.code(), StatusCode::kNotFound);
        break;
      }
      case 3: {
        auto h = engine->History(s, id);
        EXPECT_EQ(h.ok(), mine);
        break;
      }
      case 4: {
        Status st = engine->PutVector(s, id, "m", {1.0f});
        EXPECT_EQ(st.ok(), mine);
        break;
      }
      case 5: {
        ListQuery q;
        q.statuses = {};
        q.limit = 1000;
        q.tags = {"shared-tag"};
        q.metadata = {{"k", std::string("same")}};
        auto page = engine->List(s, q);
        ASSERT_TRUE(page.ok());
        std::set<std::string> listed;
        for (const auto& m : page->items) {
          EXPECT_EQ(owner_of[m.id], me) << "leaked " << m.id << " into " << me;
          EXPECT_EQ(m.scope.tenant, s.tenant);
          EXPECT_EQ(m.scope.user_id, s.user_id);
          listed.insert(m.id);
        }
        EXPECT_EQ(listed, owned[me]);
        break;
      }
    }
  }

  // Nothing outside a scope was changed: every item still says whose it is.
  for (const Scope& s : scopes) {
    std::set<std::string> exported;
    ASSERT_TRUE(engine
                    ->Export(s,
                             [&](const MemoryRecord& r) {
                               exported.insert(r.item.id);
                               EXPECT_EQ(owner_of[r.item.id], ScopeName(s));
                               for (const HistoryEntry& h : r.history) {
                                 if (h.new_content && h.new_content->rfind("changed by ", 0) == 0) {
                                   EXPECT_EQ(*h.new_content, "changed by " + ScopeName(s));
                                 }
                               }
                               return Status::Ok();
                             })
                    .ok());
    EXPECT_EQ(exported, owned[ScopeName(s)]);
  }

  // Purging one scope leaves every other scope's items in place.
  const Scope& victim = scopes[0];
  ASSERT_TRUE(engine->PurgeScope(victim).ok());
  for (const auto& [id, owner] : owner_of) {
    bool gone = owner == ScopeName(victim);
    const Scope* s = nullptr;
    for (const Scope& c : scopes) {
      if (ScopeName(c) == owner) s = &c;
    }
    EXPECT_EQ(engine->Get(*s, id).ok(), !gone) << id;
  }
}

}  // namespace
}  // namespace engram
