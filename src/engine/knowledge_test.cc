// The knowledge tier through the Engine: ingest, search, context, re-ingest, delete.
#include <gtest/gtest.h>

#include "testing/test_support.h"

namespace engram {
namespace {

constexpr TimestampMs kNow = 1'796'515'200'000;  // 2026-12-06T00:00:00Z

const char kPolicy[] =
    "# Returns policy\n\n"
    "Customers may return unused items within 30 days of delivery.\n\n"
    "## Refund timing\n\n"
    "Refunds reach the original card within 14 days after the warehouse receives the parcel.\n\n"
    "## Damaged parcels\n\n"
    "- Photograph the damaged box before opening it.\n"
    "- Email the photos to claims@example.com within 48 hours.\n";

NewDocument Markdown(const std::string& id, std::string content) {
  NewDocument d;
  d.doc_id = id;
  d.format = DocumentFormat::kMarkdown;
  d.content = std::move(content);
  return d;
}

class KnowledgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = testing::OpenEngine(dir_.File("k.db"), &clock_);
    ASSERT_NE(engine_, nullptr);
  }
  testing::TempDir dir_;
  ManualClock clock_{kNow};
  std::unique_ptr<Engine> engine_;
  const KnowledgeScope acme_{"acme", ""};
  const Scope alice_{"acme", "alice", "", ""};
};

TEST_F(KnowledgeTest, AnIngestedDocumentIsListedSearchedAndCitedInContext) {
  auto ingested = engine_->IngestDocument(acme_, Markdown("returns", kPolicy));
  ASSERT_TRUE(ingested.ok()) << ingested.status().ToString();
  EXPECT_EQ(ingested->document.title, "Returns policy");
  EXPECT_EQ(ingested->document.chunks, 3);
  EXPECT_EQ(ingested->document.version, 1);
  EXPECT_EQ(ingested->document.created_at, kNow);
  EXPECT_EQ(ingested->document.content_hash.size(), 64u);
  auto listed = engine_->ListDocuments(acme_);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].doc_id, "returns");
  EXPECT_EQ((*listed)[0].chunks, 3);

  auto hits = engine_->SearchKnowledge(acme_, KnowledgeQuery{.text = "when is my refund paid"});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ((*hits)[0].title_path, (std::vector<std::string>{"Returns policy", "Refund timing"}));
  EXPECT_NE((*hits)[0].text.find("14 days"), std::string::npos);

  ASSERT_TRUE(engine_->Add(alice_, testing::Text("Alice paid with her Visa card")).ok());
  ContextRequest req;
  req.search.text = "how long until my refund reaches my card";
  req.token_budget = 400;
  auto ctx = engine_->BuildContext(alice_, req);
  ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
  EXPECT_EQ(ctx->memories.size(), 1u);
  ASSERT_FALSE(ctx->knowledge.empty());
  EXPECT_NE(ctx->text.find("Relevant memories (most relevant first):"), std::string::npos);
  EXPECT_NE(ctx->text.find("Relevant knowledge (most relevant first):"), std::string::npos);
  EXPECT_NE(ctx->text.find("[returns §Returns policy > Refund timing]"), std::string::npos)
      << ctx->text;
  EXPECT_LE(ctx->tokens, 400);

  // Either side can be left out.
  req.knowledge = false;
  auto memories_only = engine_->BuildContext(alice_, req);
  ASSERT_TRUE(memories_only.ok());
  EXPECT_TRUE(memories_only->knowledge.empty());
  EXPECT_EQ(memories_only->text.find("Relevant knowledge"), std::string::npos);
  req.knowledge = true;
  req.memories = false;
  auto knowledge_only = engine_->BuildContext(alice_, req);
  ASSERT_TRUE(knowledge_only.ok());
  EXPECT_TRUE(knowledge_only->memories.empty());
  EXPECT_FALSE(knowledge_only->knowledge.empty());
  EXPECT_EQ(knowledge_only->text.find("Visa"), std::string::npos);
}

TEST_F(KnowledgeTest, WithoutDocumentsTheContextIsExactlyTheMemoriesOne) {
  ASSERT_TRUE(engine_->Add(alice_, testing::Text("Alice is allergic to peanuts")).ok());
  ContextRequest req;
  req.search.text = "what is alice allergic to";
  req.token_budget = 200;
  auto with = engine_->BuildContext(alice_, req);
  req.knowledge = false;
  auto without = engine_->BuildContext(alice_, req);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(with->text, without->text);
  EXPECT_TRUE(with->knowledge.empty());
  // Another tenant's documents change nothing either.
  ASSERT_TRUE(engine_
                  ->IngestDocument({"globex", ""}, Markdown("allergy",
                                                            "# Allergies\n\n"
                                                            "Peanuts are allergens."))
                  .ok());
  req.knowledge = true;
  auto still = engine_->BuildContext(alice_, req);
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(still->text, without->text);
}

TEST_F(KnowledgeTest, AFailedReingestLeavesThePreviousVersionWhole) {
  ASSERT_TRUE(engine_->IngestDocument(acme_, Markdown("returns", kPolicy)).ok());
  auto before = engine_->GetDocument(acme_, "returns");
  ASSERT_TRUE(before.ok());
  NewDocument damaged;
  damaged.doc_id = "returns";
  damaged.format = DocumentFormat::kPdf;
  damaged.content = "%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage";
  DocumentProblem problem = DocumentProblem::kNone;
  auto refused = engine_->IngestDocument(acme_, damaged, &problem);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(problem, DocumentProblem::kNone);
  NewDocument unknown = Markdown("returns", "x");
  unknown.content = std::string("\x89PNG\r\n\x1a\n\xff\xfe", 10);
  EXPECT_FALSE(engine_->IngestDocument(acme_, unknown, &problem).ok());
  EXPECT_EQ(problem, DocumentProblem::kUnreadable);
  auto after = engine_->GetDocument(acme_, "returns");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->document.version, 1);
  ASSERT_EQ(after->chunks.size(), before->chunks.size());
  for (size_t i = 0; i < after->chunks.size(); ++i) {
    EXPECT_EQ(after->chunks[i].text, before->chunks[i].text);
  }
  // A good re-ingest replaces it, and searches see the new text at once.
  clock_.Advance(60'000);
  auto v2 = engine_->IngestDocument(
      acme_, Markdown("returns", "# Returns policy\n\nRefunds now take 3 days."));
  ASSERT_TRUE(v2.ok());
  EXPECT_TRUE(v2->replaced);
  EXPECT_EQ(v2->document.version, 2);
  auto hits = engine_->SearchKnowledge(acme_, KnowledgeQuery{.text = "refund days"});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_NE((*hits)[0].text.find("3 days"), std::string::npos);
}

TEST_F(KnowledgeTest, AVerifiedDeleteLeavesNoByteOfTheDocument) {
  ASSERT_TRUE(engine_->IngestDocument(acme_, Markdown("returns", kPolicy)).ok());
  ASSERT_TRUE(
      engine_->IngestDocument(acme_, Markdown("other", "# Other\n\nKept text stays.")).ok());
  ASSERT_TRUE(engine_->SearchKnowledge(acme_, KnowledgeQuery{.text = "refund"}).ok());
  auto deleted = engine_->DeleteDocument(acme_, "returns", /*verify=*/true);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(deleted->chunks, 3);
  EXPECT_TRUE(deleted->verified);
  EXPECT_GT(deleted->needles, 3);
  EXPECT_TRUE(deleted->traces.empty()) << deleted->traces.front();
  EXPECT_EQ(engine_->GetDocument(acme_, "returns").status().code(), StatusCode::kNotFound);
  auto hits = engine_->SearchKnowledge(acme_, KnowledgeQuery{.text = "refund card parcel"});
  ASSERT_TRUE(hits.ok());
  for (const KnowledgeHit& h : *hits) EXPECT_EQ(h.doc_id, "other");
  EXPECT_EQ(engine_->ListDocuments(acme_)->size(), 1u);
}

TEST_F(KnowledgeTest, AnAgentSeesItsOwnAndTheTenantsDocumentsOnly) {
  ASSERT_TRUE(
      engine_->IngestDocument(acme_, Markdown("shared", "# Hours\n\nOpen 9 to 5 on weekdays."))
          .ok());
  ASSERT_TRUE(engine_
                  ->IngestDocument({"acme", "sales"},
                                   Markdown("pitch", "# Pitch\n\nOpen with the weekday discount."))
                  .ok());
  ASSERT_TRUE(engine_
                  ->IngestDocument({"acme", "support"},
                                   Markdown("script", "# Script\n\nOpen a weekday ticket."))
                  .ok());
  auto docs_of = [&](const KnowledgeScope& scope) {
    std::set<std::string> out;
    auto hits = engine_->SearchKnowledge(scope, KnowledgeQuery{.text = "open weekday", .k = 10});
    EXPECT_TRUE(hits.ok());
    for (const KnowledgeHit& h : *hits) out.insert(h.doc_id);
    return out;
  };
  EXPECT_EQ(docs_of({"acme", "sales"}), (std::set<std::string>{"shared", "pitch"}));
  EXPECT_EQ(docs_of({"acme", "support"}), (std::set<std::string>{"shared", "script"}));
  EXPECT_EQ(docs_of(acme_), (std::set<std::string>{"shared"}));
  EXPECT_TRUE(docs_of({"globex", "sales"}).empty());
  // Listing is exact: the tenant's list holds its shared documents, not the agents'.
  EXPECT_EQ(engine_->ListDocuments(acme_)->size(), 1u);
  EXPECT_EQ(engine_->ListDocuments({"acme", "sales"})->size(), 1u);
}

TEST_F(KnowledgeTest, BadRequestsAreRefusedBeforeReading) {
  NewDocument bad = Markdown("has space", "# x\n\ny");
  EXPECT_EQ(engine_->IngestDocument(acme_, bad).status().code(), StatusCode::kInvalidArgument);
  NewDocument tight = Markdown("ok", "# x\n\ny");
  tight.chunking.chunk_tokens = 8;
  EXPECT_EQ(engine_->IngestDocument(acme_, tight).status().code(), StatusCode::kInvalidArgument);
  EngineOptions small;
  small.knowledge.max_document_bytes = 64;
  auto limited = testing::OpenEngine(dir_.File("small.db"), &clock_, small);
  ASSERT_NE(limited, nullptr);
  DocumentProblem problem = DocumentProblem::kNone;
  auto big = limited->IngestDocument(acme_, Markdown("big", std::string(65, 'a')), &problem);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(problem, DocumentProblem::kTooLarge);
  EXPECT_TRUE(limited->ListDocuments(acme_)->empty());
}

}  // namespace
}  // namespace engram
