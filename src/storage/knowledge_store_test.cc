// The knowledge tier's storage, on SQLite and (scripts/pg_unit_test.sh) on PostgreSQL.
#include <gtest/gtest.h>

#include "storage/memory_store.h"
#include "testing/record_support.h"

namespace engram {
namespace {

using testing::TempDir;

constexpr TimestampMs kNow = 1'796'515'200'000;  // 2026-12-06T00:00:00Z

KnowledgeDocument Doc(const std::string& id, const std::string& title) {
  KnowledgeDocument d;
  d.doc_id = id;
  d.title = title;
  d.format = DocumentFormat::kMarkdown;
  d.bytes = 100;
  d.chars = 90;
  d.content_hash = "h-" + title;
  d.embedding_model = "test-model";
  return d;
}

std::vector<PendingChunk> Chunks(const std::vector<std::string>& texts, float seed) {
  std::vector<PendingChunk> out;
  for (size_t i = 0; i < texts.size(); ++i) {
    PendingChunk p;
    p.chunk.ordinal = static_cast<int>(i);
    p.chunk.text = texts[i];
    p.chunk.title_path = {"Guide", "Part " + std::to_string(i)};
    p.chunk.char_start = static_cast<int64_t>(i) * 10;
    p.chunk.char_end = p.chunk.char_start + 10;
    p.chunk.tokens = 3;
    p.vector = {seed + static_cast<float>(i), 1.0f, 2.0f};
    out.push_back(std::move(p));
  }
  return out;
}

class KnowledgeStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = MemoryStore::Open(
        StoreOptions{.path = dir_.File("k.db"), .reader_connections = 2, .synchronous = "NORMAL"},
        kNow);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  std::vector<std::string> Texts(const KnowledgeScope& scope, const std::string& id) {
    auto doc = store_->GetDocument(scope, id);
    EXPECT_TRUE(doc.ok()) << doc.status().ToString();
    std::vector<std::string> out;
    if (doc.ok()) {
      for (const KnowledgeChunk& c : doc->chunks) out.push_back(c.text);
    }
    return out;
  }

  TempDir dir_;
  std::unique_ptr<MemoryStore> store_;
  const KnowledgeScope acme_{"acme", ""};
};

TEST_F(KnowledgeStoreTest, AReingestReplacesEveryChunkAndKeepsTheCreationTime) {
  bool replaced = true;
  auto first = store_->ReplaceDocument(acme_, Doc("faq", "v1"), Chunks({"a1", "a2", "a3"}, 1), kNow,
                                       &replaced);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_FALSE(replaced);
  EXPECT_EQ(first->version, 1);
  auto second = store_->ReplaceDocument(acme_, Doc("faq", "v2"), Chunks({"b1", "b2"}, 5),
                                        kNow + 1000, &replaced);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(replaced);
  EXPECT_EQ(second->version, 2);
  EXPECT_EQ(second->created_at, kNow);
  EXPECT_EQ(second->updated_at, kNow + 1000);
  EXPECT_EQ(Texts(acme_, "faq"), (std::vector<std::string>{"b1", "b2"}));
  auto detail = store_->GetDocument(acme_, "faq");
  ASSERT_TRUE(detail.ok());
  EXPECT_EQ(detail->document.title, "v2");
  EXPECT_EQ(detail->document.chunks, 2);
  EXPECT_EQ(detail->chunks[1].title_path, (std::vector<std::string>{"Guide", "Part 1"}));
  EXPECT_EQ(detail->chunks[1].char_start, 10);
  EXPECT_EQ(detail->document.embedding_model, "test-model");
  std::vector<float> first_vector;
  ASSERT_TRUE(store_
                  ->ScanKnowledge(acme_, "test-model",
                                  [&](ScannedChunk&& c) {
                                    if (c.chunk.ordinal == 0) first_vector = c.vector;
                                    return Status::Ok();
                                  })
                  .ok());
  EXPECT_EQ(first_vector, (std::vector<float>{5.0f, 1.0f, 2.0f}));
}

TEST_F(KnowledgeStoreTest, AReingestFailingHalfwayLeavesTheOldVersionWhole) {
  ASSERT_TRUE(
      store_->ReplaceDocument(acme_, Doc("faq", "v1"), Chunks({"a1", "a2"}, 1), kNow, nullptr)
          .ok());
  // Two chunks with one ordinal: the second insert breaks the unique key after the old chunks
  // were deleted and the document row updated, inside the transaction.
  auto bad = Chunks({"b1", "b2", "b3"}, 5);
  bad[2].chunk.ordinal = 1;
  auto failed = store_->ReplaceDocument(acme_, Doc("faq", "v2"), bad, kNow + 1000, nullptr);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(Texts(acme_, "faq"), (std::vector<std::string>{"a1", "a2"}));
  auto doc = store_->GetDocument(acme_, "faq");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->document.title, "v1");
  EXPECT_EQ(doc->document.version, 1);
  // And the store still writes.
  EXPECT_TRUE(
      store_->ReplaceDocument(acme_, Doc("faq", "v3"), Chunks({"c1"}, 9), kNow, nullptr).ok());
  EXPECT_EQ(Texts(acme_, "faq"), (std::vector<std::string>{"c1"}));
}

TEST_F(KnowledgeStoreTest, TenantsAndAgentsNeverSeeEachOthersDocuments) {
  const KnowledgeScope globex{"globex", ""};
  const KnowledgeScope acme_bot{"acme", "bot"};
  ASSERT_TRUE(
      store_->ReplaceDocument(acme_, Doc("faq", "acme"), Chunks({"acme text"}, 1), kNow, nullptr)
          .ok());
  ASSERT_TRUE(
      store_
          ->ReplaceDocument(globex, Doc("faq", "globex"), Chunks({"globex text"}, 2), kNow, nullptr)
          .ok());
  ASSERT_TRUE(store_
                  ->ReplaceDocument(acme_bot, Doc("bot-rules", "bot"), Chunks({"bot text"}, 3),
                                    kNow, nullptr)
                  .ok());
  EXPECT_EQ(Texts(acme_, "faq"), (std::vector<std::string>{"acme text"}));
  EXPECT_EQ(Texts(globex, "faq"), (std::vector<std::string>{"globex text"}));
  EXPECT_EQ(store_->GetDocument(globex, "bot-rules").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->GetDocument(acme_, "bot-rules").status().code(), StatusCode::kNotFound);
  auto listed = store_->ListDocuments(acme_);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].title, "acme");
  EXPECT_EQ((*listed)[0].chunks, 1);
  std::vector<std::string> scanned;
  ASSERT_TRUE(store_
                  ->ScanKnowledge(globex, "test-model",
                                  [&](ScannedChunk&& c) {
                                    scanned.push_back(c.chunk.text);
                                    return Status::Ok();
                                  })
                  .ok());
  EXPECT_EQ(scanned, (std::vector<std::string>{"globex text"}));
  // Deleting in one tenant leaves the other's document of the same id.
  auto deleted = store_->DeleteDocument(globex, "faq");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(*deleted, 1);
  EXPECT_EQ(store_->DeleteDocument(globex, "faq").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Texts(acme_, "faq"), (std::vector<std::string>{"acme text"}));
  EXPECT_EQ(store_->DeleteDocument(acme_bot, "faq").status().code(), StatusCode::kNotFound);
}

TEST_F(KnowledgeStoreTest, TheFingerprintMovesWithEveryChange) {
  auto empty = store_->GetKnowledgeFingerprint(acme_);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->documents, 0);
  ASSERT_TRUE(store_->ReplaceDocument(acme_, Doc("a", "a"), Chunks({"x"}, 1), kNow, nullptr).ok());
  auto one = store_->GetKnowledgeFingerprint(acme_);
  ASSERT_TRUE(one.ok());
  EXPECT_NE(*one, *empty);
  ASSERT_TRUE(store_->ReplaceDocument(acme_, Doc("a", "a"), Chunks({"y"}, 1), kNow, nullptr).ok());
  auto reingested = store_->GetKnowledgeFingerprint(acme_);
  EXPECT_NE(*reingested, *one);  // same time, same count: the version moved
  ASSERT_TRUE(store_->DeleteDocument(acme_, "a").ok());
  EXPECT_EQ(*store_->GetKnowledgeFingerprint(acme_), *empty);
}

TEST_F(KnowledgeStoreTest, ATenantsKnowledgeIsErasedWithItAndNoOtherTenants) {
  ASSERT_TRUE(store_->ReplaceDocument(acme_, Doc("a", "a"), Chunks({"x"}, 1), kNow, nullptr).ok());
  ASSERT_TRUE(
      store_->ReplaceDocument({"acme", "bot"}, Doc("b", "b"), Chunks({"y"}, 1), kNow, nullptr)
          .ok());
  ASSERT_TRUE(
      store_->ReplaceDocument({"globex", ""}, Doc("a", "g"), Chunks({"z"}, 1), kNow, nullptr).ok());
  auto erased = store_->DeleteTenantKnowledge("acme");
  ASSERT_TRUE(erased.ok()) << erased.status().ToString();
  EXPECT_EQ(*erased, 2);
  EXPECT_TRUE(store_->ListDocuments(acme_)->empty());
  EXPECT_TRUE(store_->ListDocuments({"acme", "bot"})->empty());
  EXPECT_EQ(store_->ListDocuments({"globex", ""})->size(), 1u);
}

}  // namespace
}  // namespace engram
