#include "storage/row_codec.h"

#include "codec/item_json.h"
#include "core/status_macros.h"

namespace engram {
namespace {

template <typename E>
Result<E> StoredEnum(std::string_view text, Result<E> (*parse)(std::string_view)) {
  auto r = parse(text);
  if (!r.ok()) return Status::Corruption("stored " + r.status().message());
  return r;
}

}  // namespace

void BindMutableColumns(Statement* st, const MemoryItem& m, int first) {
  const int f = first;
  st->Bind(f + 0, m.scope.agent_id);
  st->Bind(f + 1, m.scope.session_id);
  st->Bind(f + 2, ToString(m.tier));
  st->Bind(f + 3, ToString(m.type));
  st->Bind(f + 4, m.content);
  st->Bind(f + 5, StringListToJsonText(m.entities));
  st->Bind(f + 6, StringListToJsonText(m.tags));
  st->Bind(f + 7, m.metadata);
  st->Bind(f + 8, m.importance);
  st->Bind(f + 9, m.confidence);
  st->Bind(f + 10, StringListToJsonText(m.source.message_ids));
  st->Bind(f + 11, m.source.session_id);
  st->Bind(f + 12, m.source.extractor);
  st->Bind(f + 13, m.source.prompt_version);
  st->Bind(f + 14, m.created_at);
  st->Bind(f + 15, m.updated_at);
  st->Bind(f + 16, m.valid_from);
  st->Bind(f + 17, m.valid_to);
  st->Bind(f + 18, m.last_accessed);
  st->Bind(f + 19, m.access_count);
  st->Bind(f + 20, ToString(m.status));
  st->Bind(f + 21, m.supersedes);
  st->Bind(f + 22, m.superseded_by);
  st->Bind(f + 23, m.embedding_model);
  st->Bind(f + 24, m.slot);
  st->Bind(f + 25, m.source.role);
  st->Bind(f + 26, StringListToJsonText(m.source.turn_ids));
  st->Bind(f + 27, StringListToJsonText(m.derived_ids));
  st->Bind(f + 28, m.expires_at);
}

Result<MemoryItem> ReadItemRow(const Statement& st, const Scope& scope, int64_t* seq) {
  MemoryItem m;
  if (seq) *seq = st.Int(0);
  m.id = st.String(1);
  m.scope.tenant = scope.tenant;
  m.scope.user_id = scope.user_id;
  m.scope.agent_id = st.String(2);
  m.scope.session_id = st.String(3);
  ENGRAM_ASSIGN_OR_RETURN(m.tier, StoredEnum(st.Text(4), &ParseTier));
  ENGRAM_ASSIGN_OR_RETURN(m.type, StoredEnum(st.Text(5), &ParseMemoryType));
  m.content = st.String(6);
  ENGRAM_ASSIGN_OR_RETURN(m.entities, StringListFromJsonText(st.Text(7)));
  ENGRAM_ASSIGN_OR_RETURN(m.tags, StringListFromJsonText(st.Text(8)));
  m.metadata = st.String(9);
  m.importance = st.Double(10);
  m.confidence = st.Double(11);
  ENGRAM_ASSIGN_OR_RETURN(m.source.message_ids, StringListFromJsonText(st.Text(12)));
  m.source.session_id = st.String(13);
  m.source.extractor = st.String(14);
  m.source.prompt_version = st.String(15);
  m.created_at = st.Int(16);
  m.updated_at = st.Int(17);
  m.valid_from = st.Int(18);
  m.valid_to = st.OptionalInt(19);
  m.last_accessed = st.OptionalInt(20);
  m.access_count = st.Int(21);
  ENGRAM_ASSIGN_OR_RETURN(m.status, StoredEnum(st.Text(22), &ParseItemStatus));
  m.supersedes = st.String(23);
  m.superseded_by = st.String(24);
  m.embedding_model = st.String(25);
  m.slot = st.String(26);
  m.source.role = st.String(27);
  ENGRAM_ASSIGN_OR_RETURN(m.source.turn_ids, StringListFromJsonText(st.Text(28)));
  ENGRAM_ASSIGN_OR_RETURN(m.derived_ids, StringListFromJsonText(st.Text(29)));
  m.expires_at = st.OptionalInt(30);
  return m;
}

}  // namespace engram
