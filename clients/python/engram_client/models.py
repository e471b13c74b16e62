"""Typed results: a dataclass for every reply body of the API (docs/openapi.json).

Each class names the schema it mirrors in ``__schema__`` (a JSON pointer into the document),
and a test checks that its fields are that schema's properties, so the classes cannot drift
from the server. Fields a newer server adds land in ``extra`` instead of failing. Times stay
ISO-8601 strings, exactly as the server sent them.
"""

import dataclasses
import sys
import typing
from typing import Any, ClassVar, Dict, List, Optional, Union


def _schema(name: str) -> str:
    return "#/components/schemas/" + name


def _reply(path: str, method: str, status: str = "200") -> str:
    """The pointer to an operation's inline reply schema."""
    escaped = path.replace("~", "~0").replace("/", "~1")
    return "#/paths/%s/%s/responses/%s/content/application~1json/schema" % (escaped, method, status)


def _convert(hint: Any, value: Any) -> Any:
    """`value` (parsed JSON) as the type `hint` says: nested models built, lists mapped."""
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin is Union:
        candidates = [a for a in typing.get_args(hint) if a is not type(None)]
        return _convert(candidates[0], value) if len(candidates) == 1 else value
    if origin in (list, List):
        (item,) = typing.get_args(hint)
        return [_convert(item, v) for v in value]
    if isinstance(hint, type) and issubclass(hint, Model) and isinstance(value, dict):
        return hint.from_dict(value)
    return value


@dataclasses.dataclass
class Model:
    """Base of the result classes: built from a reply's JSON object with from_dict."""

    __schema__: ClassVar[str] = ""

    @classmethod
    def from_dict(cls, data: Dict[str, Any]):
        hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
        names = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        known = {k: _convert(hints[k], v) for k, v in data.items() if k in names}
        return cls(**known, extra={k: v for k, v in data.items() if k not in names})

    def to_dict(self) -> Dict[str, Any]:
        """As a JSON object: every field (None or empty where the reply had none) and extra."""
        out = {}
        for f in dataclasses.fields(self):
            if f.name != "extra":
                out[f.name] = _plain(getattr(self, f.name))
        out.update(self.extra)
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _extra() -> Any:
    return dataclasses.field(default_factory=dict, repr=False)


# --- memories ---

@dataclasses.dataclass
class Source(Model):
    __schema__ = _schema("Source")
    message_ids: List[str] = dataclasses.field(default_factory=list)
    session_id: Optional[str] = None
    extractor: Optional[str] = None
    prompt_version: Optional[str] = None
    role: Optional[str] = None
    turn_ids: List[str] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class Memory(Model):
    __schema__ = _schema("Memory")
    id: str = ""
    content: str = ""
    type: Optional[str] = None
    tier: Optional[str] = None
    status: Optional[str] = None
    tenant: Optional[str] = None
    user_id: Optional[str] = None
    agent_id: Optional[str] = None
    session_id: Optional[str] = None
    entities: List[str] = dataclasses.field(default_factory=list)
    tags: List[str] = dataclasses.field(default_factory=list)
    metadata: Dict[str, Any] = dataclasses.field(default_factory=dict)
    importance: Optional[float] = None
    confidence: Optional[float] = None
    source: Optional[Source] = None
    created_at: Optional[str] = None
    updated_at: Optional[str] = None
    valid_from: Optional[str] = None
    valid_to: Optional[str] = None
    last_accessed: Optional[str] = None
    access_count: Optional[int] = None
    supersedes: Optional[str] = None
    superseded_by: Optional[str] = None
    embedding_model: Optional[str] = None
    slot: Optional[str] = None
    derived_ids: List[str] = dataclasses.field(default_factory=list)
    expires_at: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class Warning(Model):  # noqa: A001 - the schema's name; shadows the builtin only here
    __schema__ = _schema("Warning")
    code: str = ""
    field: str = ""
    replacement: str = ""
    message: str = ""
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class WriteResult(Model):
    __schema__ = _schema("WriteResult")
    id: str = ""
    event: str = ""
    kind: Optional[str] = None
    memory: Optional[Memory] = None
    replaced: Optional[Memory] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class SkippedTurn(Model):
    __schema__ = _schema("SkippedTurn")
    message: Optional[int] = None
    reason: str = ""
    memory_index: Optional[int] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class AddResponse(Model):
    __schema__ = _schema("AddResponse")
    results: List[WriteResult] = dataclasses.field(default_factory=list)
    skipped: List[SkippedTurn] = dataclasses.field(default_factory=list)
    extractor: Optional[str] = None
    extraction_errors: List[str] = dataclasses.field(default_factory=list)
    warnings: List[Warning] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class JobAccepted(Model):
    __schema__ = _schema("JobAccepted")
    job_id: str = ""
    state: str = ""
    warnings: List[Warning] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class Job(Model):
    __schema__ = _schema("Job")
    id: str = ""
    state: str = ""
    kind: Optional[str] = None
    attempts: Optional[int] = None
    result: Optional[AddResponse] = None
    error: Optional[str] = None
    created_at: Optional[str] = None
    updated_at: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class MemoryPage(Model):
    __schema__ = _schema("MemoryPage")
    results: List[Memory] = dataclasses.field(default_factory=list)
    next_cursor: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class HistoryEntry(Model):
    __schema__ = _schema("HistoryEntry")
    seq: Optional[int] = None
    item_id: str = ""
    event: str = ""
    old_content: Optional[str] = None
    new_content: Optional[str] = None
    previous: Optional[Memory] = None
    reason: Optional[str] = None
    at: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class History(Model):
    __schema__ = _reply("/v1/memories/{id}/history", "get")
    results: List[HistoryEntry] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class DeleteResult(Model):
    __schema__ = _reply("/v1/memories/{id}", "delete")
    id: str = ""
    deleted: bool = False
    hard: bool = False
    purged: List[str] = dataclasses.field(default_factory=list)
    session_turns: Optional[int] = None
    jobs: Optional[int] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class UserErasure(Model):
    __schema__ = _reply("/v1/memories", "delete")
    user_id: str = ""
    deleted: int = 0
    extra: Dict[str, Any] = _extra()


# --- users and sessions ---

@dataclasses.dataclass
class UserSummary(Model):
    __schema__ = _schema("UserSummary")
    user_id: str = ""
    items: int = 0
    sessions: int = 0
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class UserPage(Model):
    __schema__ = _schema("UserPage")
    results: List[UserSummary] = dataclasses.field(default_factory=list)
    next_cursor: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class SessionSummary(Model):
    __schema__ = _schema("SessionSummary")
    session_id: str = ""
    agent_id: Optional[str] = None
    started_at: Optional[str] = None
    last_turn_at: Optional[str] = None
    closed_at: Optional[str] = None
    summary_id: Optional[str] = None
    turn_count: int = 0
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class SessionPage(Model):
    __schema__ = _schema("SessionPage")
    results: List[SessionSummary] = dataclasses.field(default_factory=list)
    next_cursor: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class Turn(Model):
    __schema__ = _schema("Turn")
    id: str = ""
    role: str = ""
    content: str = ""
    created_at: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class WorkingMemory(Model):
    __schema__ = _schema("Session") + "/properties/working"
    turns: List[Turn] = dataclasses.field(default_factory=list)
    tokens: int = 0
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class Session(Model):
    __schema__ = _schema("Session")
    session_id: str = ""
    agent_id: Optional[str] = None
    started_at: Optional[str] = None
    last_turn_at: Optional[str] = None
    closed_at: Optional[str] = None
    turn_count: int = 0
    working: Optional[WorkingMemory] = None
    summary: Optional[Memory] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class SessionMessagesResponse(Model):
    __schema__ = _schema("SessionMessagesResponse")
    session_id: str = ""
    turns: List[Turn] = dataclasses.field(default_factory=list)
    results: List[WriteResult] = dataclasses.field(default_factory=list)
    skipped: List[SkippedTurn] = dataclasses.field(default_factory=list)
    extractor: Optional[str] = None
    extraction_errors: List[str] = dataclasses.field(default_factory=list)
    summary: Optional[Memory] = None
    summary_error: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class ClosedSession(Model):
    __schema__ = _reply("/v1/sessions/{id}/close", "post")
    session_id: str = ""
    closed: bool = False
    summary: Optional[Memory] = None
    extra: Dict[str, Any] = _extra()


# --- retrieval ---

@dataclasses.dataclass
class Explain(Model):
    __schema__ = _schema("Explain")
    keyword: Optional[float] = None
    vector: Optional[float] = None
    context: Optional[float] = None
    session: Optional[float] = None
    time: Optional[float] = None
    relevance: Optional[float] = None
    recency: Optional[float] = None
    importance: Optional[float] = None
    keyword_rank: Optional[int] = None
    vector_rank: Optional[int] = None
    graph: Optional[float] = None
    graph_rank: Optional[int] = None
    graph_via: Optional[str] = None
    graph_hops: Optional[int] = None
    retention: Optional[float] = None
    retention_factor: Optional[float] = None
    demoted_by: Optional[str] = None
    demotion: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class SearchHit(Model):
    __schema__ = _schema("SearchHit")
    id: str = ""
    score: float = 0.0
    memory: Optional[Memory] = None
    explain: Optional[Explain] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class KnowledgeHit(Model):
    __schema__ = _schema("KnowledgeHit")
    doc_id: str = ""
    agent_id: str = ""
    title: str = ""
    title_path: List[str] = dataclasses.field(default_factory=list)
    ordinal: int = 0
    char_start: int = 0
    char_end: int = 0
    text: str = ""
    score: float = 0.0
    citation: str = ""
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class SearchResponse(Model):
    __schema__ = _schema("SearchResponse")
    results: List[SearchHit] = dataclasses.field(default_factory=list)
    knowledge: List[KnowledgeHit] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class ContextSession(Model):
    __schema__ = _schema("ContextResponse") + "/properties/session"
    turns: int = 0
    summary: bool = False
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class ContextResponse(Model):
    __schema__ = _schema("ContextResponse")
    context: str = ""
    memories: List[SearchHit] = dataclasses.field(default_factory=list)
    tokens: int = 0
    session: Optional[ContextSession] = None
    profile: bool = False
    knowledge: List[KnowledgeHit] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class RecallHit(Model):
    __schema__ = _schema("RecallResponse") + "/properties/results/items"
    id: str = ""
    score: float = 0.0
    reason: str = ""
    memory: Optional[Memory] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class RecallResponse(Model):
    __schema__ = _schema("RecallResponse")
    results: List[RecallHit] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class ProfileLine(Model):
    __schema__ = _schema("ProfileLine")
    text: str = ""
    memory_ids: List[str] = dataclasses.field(default_factory=list)
    type: Optional[str] = None
    slot: Optional[str] = None
    importance: Optional[float] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class ProfileSection(Model):
    __schema__ = _schema("Profile") + "/properties/sections/items"
    kind: str = ""
    lines: List[ProfileLine] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class ProfileSummary(Model):
    __schema__ = _schema("Profile") + "/properties/summary"
    text: str = ""
    memory_ids: List[str] = dataclasses.field(default_factory=list)
    current: bool = False
    generated_at: Optional[str] = None
    model: Optional[str] = None
    prompt_version: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class Profile(Model):
    __schema__ = _schema("Profile")
    sections: List[ProfileSection] = dataclasses.field(default_factory=list)
    memories: int = 0
    updated_at: Optional[str] = None
    summary: Optional[ProfileSummary] = None
    text: str = ""
    extra: Dict[str, Any] = _extra()


# --- lifecycle ---

@dataclasses.dataclass
class MaintenanceUserCounts(Model):
    __schema__ = _schema("MaintenanceUserCounts")
    tenant: str = ""
    user_id: str = ""
    examined: int = 0
    archived: int = 0
    expired: int = 0
    purged: int = 0
    merged: int = 0
    summarized: int = 0
    summaries: int = 0
    promoted: int = 0
    profiles: int = 0
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class MaintenanceAction(Model):
    __schema__ = _schema("MaintenanceAction")
    tenant: str = ""
    user_id: str = ""
    id: str = ""
    action: str = ""
    reason: str = ""
    content: str = ""
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class MaintenanceReport(Model):
    __schema__ = _schema("MaintenanceReport")
    dry_run: bool = False
    full: bool = False
    at: Optional[str] = None
    examined: int = 0
    archived: int = 0
    expired: int = 0
    purged: int = 0
    merged: int = 0
    summarized: int = 0
    summaries: int = 0
    promoted: int = 0
    profiles: int = 0
    duration_ms: int = 0
    users: List[MaintenanceUserCounts] = dataclasses.field(default_factory=list)
    actions: List[MaintenanceAction] = dataclasses.field(default_factory=list)
    problems: List[str] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class MaintenanceLogEntry(Model):
    __schema__ = _schema("MaintenanceLogEntry")
    id: str = ""
    action: str = ""
    reason: str = ""
    at: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class MaintenanceLog(Model):
    __schema__ = _reply("/v1/maintenance/log", "get")
    results: List[MaintenanceLogEntry] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


# --- administration ---

@dataclasses.dataclass
class ApiKey(Model):
    __schema__ = _schema("ApiKey")
    id: str = ""
    tenant: str = ""
    name: str = ""
    role: str = ""
    prefix: str = ""
    created_at: Optional[str] = None
    revoked_at: Optional[str] = None
    secret: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class KeyList(Model):
    __schema__ = _reply("/v1/admin/keys", "get")
    results: List[ApiKey] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class RevokedKey(Model):
    __schema__ = _reply("/v1/admin/keys/{id}", "delete")
    id: str = ""
    revoked: bool = False
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class AuditEntry(Model):
    __schema__ = _schema("AuditEntry")
    seq: int = 0
    at: Optional[str] = None
    request_id: str = ""
    tenant: str = ""
    key_id: str = ""
    action: str = ""
    method: str = ""
    route: str = ""
    user_id: str = ""
    target: str = ""
    status: int = 0
    remote: str = ""
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class AuditPage(Model):
    __schema__ = _reply("/v1/admin/audit", "get")
    results: List[AuditEntry] = dataclasses.field(default_factory=list)
    next_cursor: Optional[str] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class TenantErasure(Model):
    __schema__ = _reply("/v1/admin/tenants/{id}", "delete")
    tenant: str = ""
    users: int = 0
    purged: int = 0
    purge_ms: Optional[int] = None
    verified: Optional[bool] = None
    traces: List[str] = dataclasses.field(default_factory=list)
    needles: Optional[int] = None
    shared: Optional[int] = None
    files: Optional[int] = None
    scan_ms: Optional[int] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class KnowledgeDocument(Model):
    __schema__ = _schema("KnowledgeDocument")
    doc_id: str = ""
    agent_id: str = ""
    title: str = ""
    format: str = ""
    source: str = ""
    metadata: Dict[str, Any] = dataclasses.field(default_factory=dict)
    bytes: int = 0
    chars: int = 0
    content_hash: str = ""
    version: int = 0
    chunks: int = 0
    chunk_tokens: int = 0
    overlap_tokens: int = 0
    embedding_model: Optional[str] = None
    created_at: str = ""
    updated_at: str = ""
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class IngestResult(Model):
    __schema__ = _reply("/v1/knowledge", "post", "201")
    document: Optional[KnowledgeDocument] = None
    replaced: bool = False
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class DocumentList(Model):
    __schema__ = _reply("/v1/knowledge", "get")
    documents: List[KnowledgeDocument] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class KnowledgeChunk(Model):
    __schema__ = _reply("/v1/knowledge/{id}", "get") + "/properties/chunks/items"
    ordinal: int = 0
    title_path: List[str] = dataclasses.field(default_factory=list)
    char_start: int = 0
    char_end: int = 0
    tokens: int = 0
    text: str = ""
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class DocumentDetail(Model):
    __schema__ = _reply("/v1/knowledge/{id}", "get")
    document: Optional[KnowledgeDocument] = None
    chunks: List[KnowledgeChunk] = dataclasses.field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class DocumentDeletion(Model):
    __schema__ = _reply("/v1/knowledge/{id}", "delete")
    doc_id: str = ""
    deleted: bool = False
    chunks: int = 0
    verified: Optional[bool] = None
    traces: List[str] = dataclasses.field(default_factory=list)
    needles: Optional[int] = None
    shared: Optional[int] = None
    files: Optional[int] = None
    extra: Dict[str, Any] = _extra()


@dataclasses.dataclass
class Health(Model):
    __schema__ = _reply("/healthz", "get")
    status: str = ""
    extra: Dict[str, Any] = _extra()


def all_models() -> List[type]:
    """Every result class (for the test that checks them against docs/openapi.json)."""
    return [c for c in globals().values()
            if isinstance(c, type) and issubclass(c, Model) and c is not Model]
