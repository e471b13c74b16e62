// Engine: the knowledge tier (include/engram/knowledge.h). Documents are read and chunked
// (src/knowledge), embedded, and stored by MemoryStore::ReplaceDocument in one transaction;
// searches use the scope's KnowledgeIndex (engine/knowledge_indexes.h).
#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "codec/item_validation.h"
#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "knowledge/chunker.h"
#include "knowledge/document_reader.h"
#include "storage/memory_store.h"
#include "storage/postgres.h"
#include "text/utf8.h"

namespace engram {
namespace {

// Chunks embedded per call: big enough that a remote embedder makes few requests.
constexpr size_t kEmbedBatch = 256;
constexpr size_t kMaxDocIdBytes = 128;
constexpr size_t kMaxTitleBytes = 1024;

Status ValidateKnowledgeScope(const KnowledgeScope& scope) {
  // The scope rules of memories (tenant required, no control characters, sizes), without a user.
  return ValidateScope(Scope{scope.tenant, "knowledge", scope.agent_id, ""});
}

Status ValidateDocId(std::string_view id) {
  if (id.empty() || id.size() > kMaxDocIdBytes) {
    return Status::InvalidArgument("doc_id must be 1.." + std::to_string(kMaxDocIdBytes) +
                                   " bytes");
  }
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-' || c == ':';
    if (!ok) {
      return Status::InvalidArgument("doc_id '" + std::string(id) +
                                     "' may hold only letters, digits and . _ - :");
    }
  }
  return Status::Ok();
}

Status ValidateChunking(const ChunkingOptions& c) {
  if (c.chunk_tokens < 32 || c.chunk_tokens > 4096) {
    return Status::InvalidArgument("chunk_tokens must be 32..4096, got " +
                                   std::to_string(c.chunk_tokens));
  }
  if (c.overlap_tokens < 0 || c.overlap_tokens > c.chunk_tokens / 2) {
    return Status::InvalidArgument("overlap_tokens must be 0..chunk_tokens/2, got " +
                                   std::to_string(c.overlap_tokens));
  }
  return Status::Ok();
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

std::string DefaultTitle(const NewDocument& doc, const ReadDocument& read) {
  if (!doc.title.empty()) return doc.title;
  if (!read.title.empty()) {
    return read.title.substr(
        0, CodepointStart(read.title, std::min(read.title.size(), kMaxTitleBytes)));
  }
  if (!doc.source.empty()) return std::filesystem::path(doc.source).filename().string();
  return doc.doc_id;
}

}  // namespace

std::unique_ptr<KnowledgeIndexes> Engine::Impl::MakeKnowledgeIndexes() {
  return std::make_unique<KnowledgeIndexes>(
      [this](const KnowledgeScope& scope, KnowledgeFingerprint* fingerprint) {
        return LoadKnowledgeIndex(scope, fingerprint);
      },
      [this](const KnowledgeScope& scope) { return store_->GetKnowledgeFingerprint(scope); });
}

Result<std::shared_ptr<const KnowledgeIndex>> Engine::Impl::LoadKnowledgeIndex(
    const KnowledgeScope& scope, KnowledgeFingerprint* fingerprint) {
  ENGRAM_ASSIGN_OR_RETURN(*fingerprint, store_->GetKnowledgeFingerprint(scope));
  auto index = std::make_shared<KnowledgeIndex>(embedder_->dimension());
  std::vector<IndexedChunk> unembedded;  // stored for another model: embedded now
  ENGRAM_RETURN_IF_ERROR(store_->ScanKnowledge(scope, embedder_->model(), [&](ScannedChunk&& c) {
    IndexedChunk chunk;
    chunk.seq = c.seq;
    chunk.hit = KnowledgeHit{c.doc_id,
                             c.agent_id,
                             c.title,
                             c.chunk.title_path,
                             c.chunk.ordinal,
                             c.chunk.char_start,
                             c.chunk.char_end,
                             std::move(c.chunk.text),
                             0};
    chunk.vector = std::move(c.vector);
    if (chunk.vector.empty()) {
      unembedded.push_back(std::move(chunk));
      return Status::Ok();
    }
    return index->Add(std::move(chunk));
  }));
  for (size_t at = 0; at < unembedded.size(); at += kEmbedBatch) {
    const size_t end = std::min(unembedded.size(), at + kEmbedBatch);
    std::vector<std::string> texts;
    for (size_t i = at; i < end; ++i) texts.push_back(KnowledgeIndex::IndexText(unembedded[i].hit));
    ENGRAM_ASSIGN_OR_RETURN(auto vectors, embedder_->Embed(texts));
    if (vectors.size() != texts.size())
      return Status::Internal("embedder returned too few vectors");
    for (size_t i = at; i < end; ++i) {
      unembedded[i].vector = std::move(vectors[i - at]);
      ENGRAM_RETURN_IF_ERROR(store_->PutChunkVector(scope, unembedded[i].seq, embedder_->model(),
                                                    unembedded[i].vector));
      ENGRAM_RETURN_IF_ERROR(index->Add(std::move(unembedded[i])));
    }
  }
  return std::shared_ptr<const KnowledgeIndex>(std::move(index));
}

Result<IngestResult> Engine::Impl::IngestDocument(const KnowledgeScope& scope,
                                                  const NewDocument& document,
                                                  DocumentProblem* rejection) {
  DocumentProblem problem = DocumentProblem::kNone;
  if (rejection) *rejection = DocumentProblem::kNone;
  ENGRAM_RETURN_IF_ERROR(ValidateKnowledgeScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateDocId(document.doc_id));
  ENGRAM_RETURN_IF_ERROR(ValidateText("title", document.title, kMaxTitleBytes));
  ENGRAM_RETURN_IF_ERROR(ValidateText("source", document.source, 4096));
  ENGRAM_RETURN_IF_ERROR(ValidateChunking(document.chunking));
  ENGRAM_ASSIGN_OR_RETURN(std::string metadata,
                          CanonicalMetadata(document.metadata, options_.max_metadata_bytes));
  const KnowledgeOptions& limits = options_.knowledge;
  if (document.content.size() > limits.max_document_bytes) {
    if (rejection) *rejection = DocumentProblem::kTooLarge;
    return Status::InvalidArgument("the document has " + std::to_string(document.content.size()) +
                                   " bytes, over the limit of " +
                                   std::to_string(limits.max_document_bytes));
  }
  ReadLimits read_limits;
  read_limits.pdf_timeout_ms = limits.parser_timeout_ms;
  read_limits.pdf_cpu_seconds = std::max(1, (limits.parser_timeout_ms + 999) / 1000);
  read_limits.pdftotext = limits.pdftotext;
  read_limits.max_text_bytes = std::max(limits.max_document_bytes, size_t{1} << 20);
  auto read = ReadDocumentContent(document.format, document.content, read_limits, &problem);
  if (!read.ok()) {
    if (rejection) *rejection = problem;
    return read.status();
  }
  const std::vector<KnowledgeChunk> chunks = ChunkDocument(*read, document.chunking);

  std::vector<PendingChunk> pending(chunks.size());
  for (size_t at = 0; at < chunks.size(); at += kEmbedBatch) {
    const size_t end = std::min(chunks.size(), at + kEmbedBatch);
    std::vector<std::string> texts;
    texts.reserve(end - at);
    for (size_t i = at; i < end; ++i) {
      KnowledgeHit as_hit;
      as_hit.title_path = chunks[i].title_path;
      as_hit.text = chunks[i].text;
      texts.push_back(KnowledgeIndex::IndexText(as_hit));
    }
    ENGRAM_ASSIGN_OR_RETURN(auto vectors, embedder_->Embed(texts));
    if (vectors.size() != texts.size())
      return Status::Internal("embedder returned too few vectors");
    for (size_t i = at; i < end; ++i) {
      pending[i].chunk = chunks[i];
      pending[i].vector = std::move(vectors[i - at]);
    }
  }
  KnowledgeDocument doc;
  doc.doc_id = document.doc_id;
  doc.agent_id = scope.agent_id;
  doc.title = DefaultTitle(document, *read);
  doc.format = document.format;
  doc.source = document.source;
  doc.metadata = std::move(metadata);
  doc.bytes = static_cast<int64_t>(document.content.size());
  doc.chars = static_cast<int64_t>(CountCodepoints(read->text));
  doc.content_hash = Sha256Hex(document.content);
  doc.chunking = document.chunking;
  doc.embedding_model = embedder_->model();
  IngestResult out;
  auto stored = store_->ReplaceDocument(scope, doc, pending, Now(), &out.replaced);
  knowledge_indexes_->Invalidate(scope);
  if (!stored.ok()) return stored.status();
  out.document = std::move(stored).value();
  out.document.embedding_model = embedder_->model();
  return out;
}

Result<std::vector<KnowledgeDocument>> Engine::Impl::ListDocuments(const KnowledgeScope& scope) {
  ENGRAM_RETURN_IF_ERROR(ValidateKnowledgeScope(scope));
  return store_->ListDocuments(scope);
}

Result<DocumentDetail> Engine::Impl::GetDocument(const KnowledgeScope& scope,
                                                 std::string_view doc_id) {
  ENGRAM_RETURN_IF_ERROR(ValidateKnowledgeScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateDocId(doc_id));
  return store_->GetDocument(scope, doc_id);
}

Result<DocumentDeletion> Engine::Impl::DeleteDocument(const KnowledgeScope& scope,
                                                      std::string_view doc_id, bool verify) {
  ENGRAM_RETURN_IF_ERROR(ValidateKnowledgeScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateDocId(doc_id));
  ScopeTraces traces;
  if (verify) {
    // A byte scan reads the database's files; a PostgreSQL server's are not Engram's to read.
    if (IsPostgresUrl(options_.path)) {
      return Status::InvalidArgument(
          "a verified delete scans the embedded database's files; on PostgreSQL delete without "
          "verify and let the server's VACUUM reclaim the rows (docs/deploy.md)");
    }
    ENGRAM_ASSIGN_OR_RETURN(traces, store_->DocumentTraces(scope, doc_id));
  }
  DocumentDeletion out;
  auto removed = store_->DeleteDocument(scope, doc_id);
  knowledge_indexes_->Invalidate(scope);
  if (!removed.ok()) return removed.status();
  out.chunks = *removed;
  if (verify) {
    ENGRAM_ASSIGN_OR_RETURN(TraceReport scan, FindTraces(traces.texts, traces.vectors));
    out.verified = true;
    out.needles = scan.needles;
    out.shared = scan.shared;
    out.files = scan.files;
    out.traces = std::move(scan.traces);
  }
  return out;
}

Result<std::vector<KnowledgeHit>> Engine::Impl::SearchKnowledge(const KnowledgeScope& scope,
                                                                const KnowledgeQuery& query) {
  ENGRAM_RETURN_IF_ERROR(ValidateKnowledgeScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateText("query", query.text, options_.max_content_bytes));
  if (query.text.empty()) return Status::InvalidArgument("query must not be empty");
  if (query.k < 1 || query.k > 50) return Status::InvalidArgument("k must be 1..50");
  if (query.keyword_weight < 0 || query.keyword_weight > 1) {
    return Status::InvalidArgument("keyword_weight must be 0..1");
  }
  std::vector<std::shared_ptr<const KnowledgeIndex>> indexes;
  ENGRAM_ASSIGN_OR_RETURN(auto shared, knowledge_indexes_->Get(KnowledgeScope{scope.tenant, ""}));
  if (shared->size() > 0) indexes.push_back(shared);
  if (!scope.agent_id.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(auto own, knowledge_indexes_->Get(scope));
    if (own->size() > 0) indexes.push_back(own);
  }
  std::vector<KnowledgeHit> hits;
  if (indexes.empty()) return hits;  // no documents: nothing embedded, nothing searched
  ENGRAM_ASSIGN_OR_RETURN(std::vector<float> vector, EmbedOne(query.text));
  const auto terms = KnowledgeIndex::QueryTerms(query.text);
  for (const auto& index : indexes) {
    auto found =
        index->Search(terms, vector, query.k, query.keyword_weight, query.min_score.value_or(0.0));
    hits.insert(hits.end(), std::make_move_iterator(found.begin()),
                std::make_move_iterator(found.end()));
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const KnowledgeHit& a, const KnowledgeHit& b) { return a.score > b.score; });
  if (hits.size() > static_cast<size_t>(query.k)) hits.resize(static_cast<size_t>(query.k));
  return hits;
}

Result<IngestResult> Engine::IngestDocument(const KnowledgeScope& scope,
                                            const NewDocument& document,
                                            DocumentProblem* rejection) {
  return impl_->IngestDocument(scope, document, rejection);
}
Result<std::vector<KnowledgeDocument>> Engine::ListDocuments(const KnowledgeScope& scope) {
  return impl_->ListDocuments(scope);
}
Result<DocumentDetail> Engine::GetDocument(const KnowledgeScope& scope, std::string_view doc_id) {
  return impl_->GetDocument(scope, doc_id);
}
Result<DocumentDeletion> Engine::DeleteDocument(const KnowledgeScope& scope,
                                                std::string_view doc_id, bool verify) {
  return impl_->DeleteDocument(scope, doc_id, verify);
}
Result<std::vector<KnowledgeHit>> Engine::SearchKnowledge(const KnowledgeScope& scope,
                                                          const KnowledgeQuery& query) {
  return impl_->SearchKnowledge(scope, query);
}

}  // namespace engram
