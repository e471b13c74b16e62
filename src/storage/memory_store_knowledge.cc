// MemoryStore: the knowledge tier (tables `knowledge_docs`, `knowledge_chunks`, schema version
// 12; PostgreSQL migration 6). Rows carry their tenant themselves; every statement names the
// tenant and agent_id of the caller's KnowledgeScope, and on PostgreSQL the tenant is bound too
// (row-level security), so no call reaches another scope's documents.
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "storage/memory_store.h"
#include "storage/memory_store_internal.h"

namespace engram {
namespace {

constexpr const char* kDocColumns =
    "d.doc_id, d.agent_id, d.title, d.format, d.source, d.metadata, d.bytes, d.chars, "
    "d.content_hash, d.version, d.chunk_tokens, d.overlap_tokens, d.created_at, d.updated_at, "
    "(SELECT count(*) FROM knowledge_chunks c WHERE c.doc_seq = d.seq)";

KnowledgeDocument ReadDoc(Statement* st) {
  KnowledgeDocument d;
  d.doc_id = st->String(0);
  d.agent_id = st->String(1);
  d.title = st->String(2);
  d.format = DocumentFormatFromName(st->Text(3)).value_or(DocumentFormat::kText);
  d.source = st->String(4);
  d.metadata = st->String(5);
  d.bytes = st->Int(6);
  d.chars = st->Int(7);
  d.content_hash = st->String(8);
  d.version = st->Int(9);
  d.chunking.chunk_tokens = static_cast<int>(st->Int(10));
  d.chunking.overlap_tokens = static_cast<int>(st->Int(11));
  d.created_at = st->Int(12);
  d.updated_at = st->Int(13);
  d.chunks = st->Int(14);
  return d;
}

std::string PathJson(const std::vector<std::string>& path) { return nlohmann::json(path).dump(); }

std::vector<std::string> PathFromJson(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& e : j) {
    if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

std::vector<float> VectorOf(Statement* st, int col) {
  const int bytes = st->BlobSize(col);
  std::vector<float> v(static_cast<size_t>(bytes) / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), st->Blob(col), v.size() * sizeof(float));
  return v;
}

}  // namespace

Result<KnowledgeDocument> MemoryStore::ReplaceDocument(const KnowledgeScope& scope,
                                                       const KnowledgeDocument& doc,
                                                       const std::vector<PendingChunk>& chunks,
                                                       TimestampMs now, bool* replaced) {
  WriterCall call(this);
  Database* db = writer_.get();
  ENGRAM_RETURN_IF_ERROR(db->BindTenant(scope.tenant));
  Transaction txn(db);
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement find,
                          db->Prepare("SELECT seq, version, created_at FROM knowledge_docs "
                                      "WHERE tenant = ? AND agent_id = ? AND doc_id = ?"));
  find->Bind(1, scope.tenant).Bind(2, scope.agent_id).Bind(3, doc.doc_id);
  ENGRAM_ASSIGN_OR_RETURN(bool found, find->Step());
  int64_t doc_seq = found ? find->Int(0) : 0;
  KnowledgeDocument stored = doc;
  stored.agent_id = scope.agent_id;
  stored.version = found ? find->Int(1) + 1 : 1;
  stored.created_at = found ? find->Int(2) : now;
  stored.updated_at = now;
  stored.chunks = static_cast<int64_t>(chunks.size());
  find->Reset();
  if (found) {
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement del,
                            db->Prepare("DELETE FROM knowledge_chunks WHERE doc_seq = ?"));
    ENGRAM_RETURN_IF_ERROR(del->Bind(1, doc_seq).Run());
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement up,
        db->Prepare("UPDATE knowledge_docs SET title = ?, format = ?, source = ?, metadata = ?, "
                    "bytes = ?, chars = ?, content_hash = ?, version = ?, chunk_tokens = ?, "
                    "overlap_tokens = ?, updated_at = ? WHERE tenant = ? AND seq = ?"));
    up->Bind(1, stored.title).Bind(2, ToString(stored.format)).Bind(3, stored.source);
    up->Bind(4, stored.metadata).Bind(5, stored.bytes).Bind(6, stored.chars);
    up->Bind(7, stored.content_hash).Bind(8, stored.version);
    up->Bind(9, int64_t{stored.chunking.chunk_tokens});
    up->Bind(10, int64_t{stored.chunking.overlap_tokens}).Bind(11, now);
    ENGRAM_RETURN_IF_ERROR(up->Bind(12, scope.tenant).Bind(13, doc_seq).Run());
  } else {
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement ins,
        db->Prepare("INSERT INTO knowledge_docs(tenant, agent_id, doc_id, title, format, source, "
                    "metadata, bytes, chars, content_hash, version, chunk_tokens, "
                    "overlap_tokens, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq"));
    ins->Bind(1, scope.tenant).Bind(2, scope.agent_id).Bind(3, stored.doc_id);
    ins->Bind(4, stored.title).Bind(5, ToString(stored.format)).Bind(6, stored.source);
    ins->Bind(7, stored.metadata).Bind(8, stored.bytes).Bind(9, stored.chars);
    ins->Bind(10, stored.content_hash).Bind(11, stored.version);
    ins->Bind(12, int64_t{stored.chunking.chunk_tokens});
    ins->Bind(13, int64_t{stored.chunking.overlap_tokens}).Bind(14, now).Bind(15, now);
    ENGRAM_ASSIGN_OR_RETURN(bool row, ins->Step());
    if (!row) return Status::Internal("document insert returned no seq");
    doc_seq = ins->Int(0);
  }
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement chunk,
      db->Prepare("INSERT INTO knowledge_chunks(doc_seq, ordinal, title_path, char_start, "
                  "char_end, tokens, content, embedding_model, vector) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  for (const PendingChunk& p : chunks) {
    const KnowledgeChunk& c = p.chunk;
    chunk->Bind(1, doc_seq).Bind(2, int64_t{c.ordinal}).Bind(3, PathJson(c.title_path));
    chunk->Bind(4, c.char_start).Bind(5, c.char_end).Bind(6, int64_t{c.tokens});
    chunk->Bind(7, c.text).Bind(8, stored.embedding_model);
    chunk->BindBlob(9, p.vector.data(), p.vector.size() * sizeof(float));
    ENGRAM_RETURN_IF_ERROR(chunk->Run());
    chunk->Reset();
  }
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  if (replaced) *replaced = found;
  return stored;
}

Result<std::vector<KnowledgeDocument>> MemoryStore::ListDocuments(const KnowledgeScope& scope) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_RETURN_IF_ERROR(db->BindTenant(scope.tenant));
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare(std::string("SELECT ") + kDocColumns +
                                      " FROM knowledge_docs d WHERE d.tenant = ? AND "
                                      "d.agent_id = ? ORDER BY d.doc_id"));
  st->Bind(1, scope.tenant).Bind(2, scope.agent_id);
  std::vector<KnowledgeDocument> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back(ReadDoc(st));
  }
  return out;
}

Result<DocumentDetail> MemoryStore::GetDocument(const KnowledgeScope& scope,
                                                std::string_view doc_id) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_RETURN_IF_ERROR(db->BindTenant(scope.tenant));
  ReadTransaction read(db);
  ENGRAM_RETURN_IF_ERROR(read.Begin());
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare(std::string("SELECT ") + kDocColumns +
                                      ", d.seq FROM knowledge_docs d WHERE d.tenant = ? AND "
                                      "d.agent_id = ? AND d.doc_id = ?"));
  st->Bind(1, scope.tenant).Bind(2, scope.agent_id).Bind(3, doc_id);
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return Status::NotFound("document '" + std::string(doc_id) + "' not found");
  DocumentDetail out;
  out.document = ReadDoc(st);
  const int64_t doc_seq = st->Int(15);
  st->Reset();
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement chunks,
      db->Prepare("SELECT ordinal, title_path, char_start, char_end, tokens, content, "
                  "embedding_model FROM knowledge_chunks WHERE doc_seq = ? ORDER BY ordinal"));
  chunks->Bind(1, doc_seq);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool more, chunks->Step());
    if (!more) break;
    KnowledgeChunk c;
    c.ordinal = static_cast<int>(chunks->Int(0));
    c.title_path = PathFromJson(chunks->Text(1));
    c.char_start = chunks->Int(2);
    c.char_end = chunks->Int(3);
    c.tokens = static_cast<int>(chunks->Int(4));
    c.text = chunks->String(5);
    if (out.document.embedding_model.empty()) out.document.embedding_model = chunks->String(6);
    out.chunks.push_back(std::move(c));
  }
  return out;
}

Result<int64_t> MemoryStore::DeleteDocument(const KnowledgeScope& scope, std::string_view doc_id) {
  WriterCall call(this);
  Database* db = writer_.get();
  ENGRAM_RETURN_IF_ERROR(db->BindTenant(scope.tenant));
  int64_t removed = 0;
  {
    Transaction txn(db);
    ENGRAM_RETURN_IF_ERROR(txn.Begin());
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement find,
                            db->Prepare("SELECT seq FROM knowledge_docs WHERE tenant = ? AND "
                                        "agent_id = ? AND doc_id = ?"));
    find->Bind(1, scope.tenant).Bind(2, scope.agent_id).Bind(3, doc_id);
    ENGRAM_ASSIGN_OR_RETURN(bool found, find->Step());
    if (!found) return Status::NotFound("document '" + std::string(doc_id) + "' not found");
    const int64_t doc_seq = find->Int(0);
    find->Reset();
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement chunks,
                            db->Prepare("DELETE FROM knowledge_chunks WHERE doc_seq = ?"));
    ENGRAM_RETURN_IF_ERROR(chunks->Bind(1, doc_seq).Run());
    removed = db->Changes();
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement doc,
                            db->Prepare("DELETE FROM knowledge_docs WHERE tenant = ? AND seq = ?"));
    ENGRAM_RETURN_IF_ERROR(doc->Bind(1, scope.tenant).Bind(2, doc_seq).Run());
    ENGRAM_RETURN_IF_ERROR(txn.Commit());
  }
  CheckpointAfterPurge(db);
  return removed;
}

Result<int64_t> MemoryStore::DeleteTenantKnowledge(std::string_view tenant) {
  WriterCall call(this);
  Database* db = writer_.get();
  ENGRAM_RETURN_IF_ERROR(db->BindTenant(tenant));
  int64_t removed = 0;
  {
    Transaction txn(db);
    ENGRAM_RETURN_IF_ERROR(txn.Begin());
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement chunks,
                            db->Prepare("DELETE FROM knowledge_chunks WHERE doc_seq IN "
                                        "(SELECT seq FROM knowledge_docs WHERE tenant = ?)"));
    ENGRAM_RETURN_IF_ERROR(chunks->Bind(1, tenant).Run());
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement docs,
                            db->Prepare("DELETE FROM knowledge_docs WHERE tenant = ?"));
    ENGRAM_RETURN_IF_ERROR(docs->Bind(1, tenant).Run());
    removed = db->Changes();
    ENGRAM_RETURN_IF_ERROR(txn.Commit());
  }
  if (removed > 0) CheckpointAfterPurge(db);
  return removed;
}

Status MemoryStore::ScanKnowledge(const KnowledgeScope& scope, const std::string& model,
                                  const std::function<Status(ScannedChunk&&)>& sink) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_RETURN_IF_ERROR(db->BindTenant(scope.tenant));
  ReadTransaction read(db);
  ENGRAM_RETURN_IF_ERROR(read.Begin());
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db->Prepare("SELECT c.seq, d.doc_id, d.title, c.ordinal, c.title_path, c.char_start, "
                  "c.char_end, c.tokens, c.content, c.embedding_model, c.vector "
                  "FROM knowledge_chunks c JOIN knowledge_docs d ON d.seq = c.doc_seq "
                  "WHERE d.tenant = ? AND d.agent_id = ? ORDER BY c.seq"));
  st->Bind(1, scope.tenant).Bind(2, scope.agent_id);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    ScannedChunk c;
    c.seq = st->Int(0);
    c.doc_id = st->String(1);
    c.agent_id = scope.agent_id;
    c.title = st->String(2);
    c.chunk.ordinal = static_cast<int>(st->Int(3));
    c.chunk.title_path = PathFromJson(st->Text(4));
    c.chunk.char_start = st->Int(5);
    c.chunk.char_end = st->Int(6);
    c.chunk.tokens = static_cast<int>(st->Int(7));
    c.chunk.text = st->String(8);
    if (st->Text(9) == model) c.vector = VectorOf(st, 10);
    ENGRAM_RETURN_IF_ERROR(sink(std::move(c)));
  }
  return Status::Ok();
}

Result<KnowledgeFingerprint> MemoryStore::GetKnowledgeFingerprint(const KnowledgeScope& scope) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_RETURN_IF_ERROR(db->BindTenant(scope.tenant));
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db->Prepare("SELECT count(*), coalesce(sum(version), 0), coalesce(max(updated_at), 0) "
                  "FROM knowledge_docs WHERE tenant = ? AND agent_id = ?"));
  st->Bind(1, scope.tenant).Bind(2, scope.agent_id);
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return KnowledgeFingerprint{};
  return KnowledgeFingerprint{st->Int(0), st->Int(1), st->Int(2)};
}

Status MemoryStore::PutChunkVector(const KnowledgeScope& scope, int64_t chunk_seq,
                                   const std::string& model, const std::vector<float>& vector) {
  WriterCall call(this);
  Database* db = writer_.get();
  ENGRAM_RETURN_IF_ERROR(db->BindTenant(scope.tenant));
  Transaction txn(db);
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db->Prepare("UPDATE knowledge_chunks SET embedding_model = ?, vector = ? WHERE seq = ? AND "
                  "doc_seq IN (SELECT seq FROM knowledge_docs WHERE tenant = ? AND agent_id = ?)"));
  st->Bind(1, model).BindBlob(2, vector.data(), vector.size() * sizeof(float));
  ENGRAM_RETURN_IF_ERROR(
      st->Bind(3, chunk_seq).Bind(4, scope.tenant).Bind(5, scope.agent_id).Run());
  return txn.Commit();
}

}  // namespace engram
