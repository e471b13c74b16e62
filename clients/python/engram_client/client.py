"""The Engram client: one method per operation of docs/openapi.json, named after its
operationId in snake_case (addMemory -> add_memory), returning the typed results of models."""

import urllib.parse
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from . import models as m
from ._http import Transport

# operationId -> (method, path template): the routes of docs/openapi.json. A test checks that
# this table is exactly the document's and that each entry has its method below.
ROUTES = {
    "addMemory": ("POST", "/v1/memories"),
    "listMemories": ("GET", "/v1/memories"),
    "deleteUserMemories": ("DELETE", "/v1/memories"),
    "addMemoriesBatch": ("POST", "/v1/memories/batch"),
    "getMemory": ("GET", "/v1/memories/{id}"),
    "updateMemory": ("PATCH", "/v1/memories/{id}"),
    "deleteMemory": ("DELETE", "/v1/memories/{id}"),
    "memoryHistory": ("GET", "/v1/memories/{id}/history"),
    "listEntities": ("GET", "/v1/entities"),
    "getEntity": ("GET", "/v1/entities/{id}"),
    "entityNeighbours": ("GET", "/v1/entities/{id}/neighbours"),
    "listUsers": ("GET", "/v1/users"),
    "listSessions": ("GET", "/v1/sessions"),
    "appendSessionMessages": ("POST", "/v1/sessions/{id}/messages"),
    "getSession": ("GET", "/v1/sessions/{id}"),
    "closeSession": ("POST", "/v1/sessions/{id}/close"),
    "getJob": ("GET", "/v1/jobs/{id}"),
    "search": ("POST", "/v1/search"),
    "context": ("POST", "/v1/context"),
    "ingestDocument": ("POST", "/v1/knowledge"),
    "listDocuments": ("GET", "/v1/knowledge"),
    "getDocument": ("GET", "/v1/knowledge/{id}"),
    "deleteDocument": ("DELETE", "/v1/knowledge/{id}"),
    "getProfile": ("GET", "/v1/profile"),
    "recallMemories": ("POST", "/v1/recall"),
    "chatCompletions": ("POST", "/v1/chat/completions"),
    "exportMemories": ("GET", "/v1/export"),
    "maintain": ("POST", "/v1/maintenance"),
    "maintenanceLog": ("GET", "/v1/maintenance/log"),
    "createKey": ("POST", "/v1/admin/keys"),
    "listKeys": ("GET", "/v1/admin/keys"),
    "listAudit": ("GET", "/v1/admin/audit"),
    "purgeTenant": ("DELETE", "/v1/admin/tenants/{id}"),
    "revokeKey": ("DELETE", "/v1/admin/keys/{id}"),
    "healthz": ("GET", "/healthz"),
    "readyz": ("GET", "/readyz"),
    "metrics": ("GET", "/metrics"),
    "openapi": ("GET", "/openapi.json"),
}

# POST routes that change nothing a second call would change again, so they are retried like
# GETs: search, context and recall only read, and closing a closed session answers the same.
SAFE_TO_REPEAT = frozenset({"search", "context", "recallMemories", "closeSession"})

# Routes whose reply is text: Prometheus metrics and the JSON Lines export.
TEXT_REPLIES = frozenset({"metrics", "exportMemories"})


def _given(**fields: Any) -> Dict[str, Any]:
    """The fields that were given: None means "not given", so the server's default applies."""
    return {k: v for k, v in fields.items() if v is not None}


class EngramClient:
    """A client of one Engram server.

    base_url and api_key default to $ENGRAM_URL (else http://127.0.0.1:8420) and
    $ENGRAM_API_KEY; timeout is in seconds per attempt (30); max_retries (2) bounds the
    retries of what may be retried (see the README); max_retry_delay (60 s) is the longest
    Retry-After waited for. Safe to share between threads (a connection per thread).
    """

    def __init__(self, base_url: Optional[str] = None, api_key: Optional[str] = None, *,
                 timeout: float = 30.0, max_retries: int = 2, retry_base: float = 0.25,
                 max_retry_delay: float = 60.0, headers: Optional[Mapping[str, str]] = None):
        self._transport = Transport(base_url, api_key, timeout=timeout, max_retries=max_retries,
                                    retry_base=retry_base, max_retry_delay=max_retry_delay,
                                    headers=headers)

    @property
    def base_url(self) -> str:
        return self._transport.base_url

    def close(self) -> None:
        """Closes the calling thread's connection (others close when their thread ends)."""
        self._transport.close()

    def __enter__(self) -> "EngramClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def request(self, operation: str, *, id: Optional[str] = None,
                query: Optional[Mapping[str, Any]] = None, body: Any = None,
                timeout: Optional[float] = None, max_retries: Optional[int] = None) -> Any:
        """Sends one operation of the API by its operationId; returns the parsed reply.

        The typed methods below are this plus their result class."""
        method, template = ROUTES[operation]
        path = template
        if "{id}" in template:
            if not isinstance(id, str) or not id:
                raise TypeError("%s needs a non-empty id" % operation)
            path = template.replace("{id}", urllib.parse.quote(id, safe=""))
        idempotent = method in ("GET", "DELETE") or operation in SAFE_TO_REPEAT
        return self._transport.send(method, path, query, body, idempotent=idempotent,
                                    json_reply=operation not in TEXT_REPLIES, timeout=timeout,
                                    max_retries=max_retries,
                                    user=_acting_user(operation, query, body))

    # --- memories ---

    def add_memory(self, user_id: str, content: Optional[str] = None, *,
                   messages: Optional[List[Mapping[str, str]]] = None,
                   infer: Optional[bool] = None, **fields: Any
                   ) -> Union[m.AddResponse, m.JobAccepted]:
        """POST /v1/memories: the write path (infer=False stores as given). Other fields
        (agent_id, session_id, type, tags, metadata, importance, created_at, async_=True, ...)
        are the request body's."""
        body = _given(user_id=user_id, content=content, messages=messages, infer=infer,
                      **_body_fields(fields))
        return _add_result(self.request("addMemory", body=body))

    def list_memories(self, user_id: str, **filters: Any) -> m.MemoryPage:
        """GET /v1/memories: newest first; type, tier, status, tag, after, before, slot,
        as_of, agent_id, session_id, limit, cursor."""
        query = _given(user_id=user_id, **filters)
        return m.MemoryPage.from_dict(self.request("listMemories", query=query))

    def iter_memories(self, user_id: str, **filters: Any) -> Iterable[m.Memory]:
        """Every memory list_memories would page through, following next_cursor."""
        cursor = None
        while True:
            page = self.list_memories(user_id, cursor=cursor, **filters)
            yield from page.results
            cursor = page.next_cursor
            if not cursor:
                return

    def delete_user_memories(self, user_id: str) -> m.UserErasure:
        """DELETE /v1/memories: erase every memory of the user."""
        reply = self.request("deleteUserMemories", query={"user_id": user_id})
        return m.UserErasure.from_dict(reply)

    def add_memories_batch(self, user_id: str, memories: List[Mapping[str, Any]],
                           **fields: Any) -> Union[m.AddResponse, m.JobAccepted]:
        """POST /v1/memories/batch: many memories of one user, all or nothing."""
        body = _given(user_id=user_id, memories=list(memories), **_body_fields(fields))
        return _add_result(self.request("addMemoriesBatch", body=body))

    def get_memory(self, id: str, user_id: str, *, agent_id: Optional[str] = None) -> m.Memory:
        """GET /v1/memories/{id}"""
        query = _given(user_id=user_id, agent_id=agent_id)
        return m.Memory.from_dict(self.request("getMemory", id=id, query=query))

    def update_memory(self, id: str, user_id: str, *, agent_id: Optional[str] = None,
                      **changes: Any) -> m.Memory:
        """PATCH /v1/memories/{id}: content, type, tags, ..., reason. A change given as None
        is sent as null (valid_to=None and expires_at=None clear them)."""
        query = _given(user_id=user_id, agent_id=agent_id)
        return m.Memory.from_dict(self.request("updateMemory", id=id, query=query, body=changes))

    def delete_memory(self, id: str, user_id: str, *, hard: Optional[bool] = None,
                      source_turns: Optional[bool] = None, reason: Optional[str] = None,
                      agent_id: Optional[str] = None) -> m.DeleteResult:
        """DELETE /v1/memories/{id}: soft, or erased with hard=True."""
        query = _given(user_id=user_id, agent_id=agent_id, hard=hard, source_turns=source_turns,
                       reason=reason)
        return m.DeleteResult.from_dict(self.request("deleteMemory", id=id, query=query))

    def memory_history(self, id: str, user_id: str, *,
                       agent_id: Optional[str] = None) -> m.History:
        """GET /v1/memories/{id}/history: every change, oldest first."""
        query = _given(user_id=user_id, agent_id=agent_id)
        return m.History.from_dict(self.request("memoryHistory", id=id, query=query))

    # --- the entity graph (bodies as in docs/openapi.json: Entity, Edge, ...; plain dicts) ---

    def list_entities(self, user_id: str, *, kind: Optional[str] = None,
                      name: Optional[str] = None, limit: Optional[int] = None,
                      cursor: Optional[str] = None, agent_id: Optional[str] = None) -> dict:
        """GET /v1/entities: the people, places, ... a user's memories name, with counts."""
        query = _given(user_id=user_id, agent_id=agent_id, kind=kind, name=name, limit=limit,
                       cursor=cursor)
        return self.request("listEntities", query=query)

    def get_entity(self, id: str, user_id: str, *, agent_id: Optional[str] = None) -> dict:
        """GET /v1/entities/{id}: one entity with its relations, their validity and sources."""
        return self.request("getEntity", id=id, query=_given(user_id=user_id, agent_id=agent_id))

    def entity_neighbours(self, id: str, user_id: str, *, hops: Optional[int] = None,
                          max_nodes: Optional[int] = None,
                          include_ended: Optional[bool] = None,
                          agent_id: Optional[str] = None) -> dict:
        """GET /v1/entities/{id}/neighbours: the entities within a few relations of one."""
        query = _given(user_id=user_id, agent_id=agent_id, hops=hops, max_nodes=max_nodes,
                       include_ended=include_ended)
        return self.request("entityNeighbours", id=id, query=query)

    # --- users and sessions ---

    def list_users(self, *, limit: Optional[int] = None,
                   cursor: Optional[str] = None) -> m.UserPage:
        """GET /v1/users: the users of the key's tenant."""
        query = _given(limit=limit, cursor=cursor)
        return m.UserPage.from_dict(self.request("listUsers", query=query))

    def list_sessions(self, user_id: str, **params: Any) -> m.SessionPage:
        """GET /v1/sessions: agent_id, limit, cursor."""
        query = _given(user_id=user_id, **params)
        return m.SessionPage.from_dict(self.request("listSessions", query=query))

    def append_session_messages(self, id: str, user_id: str,
                                messages: List[Mapping[str, str]],
                                **fields: Any) -> m.SessionMessagesResponse:
        """POST /v1/sessions/{id}/messages: turns into working memory (agent_id, infer,
        tags, metadata, importance)."""
        body = _given(user_id=user_id, messages=list(messages), **fields)
        reply = self.request("appendSessionMessages", id=id, body=body)
        return m.SessionMessagesResponse.from_dict(reply)

    def get_session(self, id: str, user_id: str, *, agent_id: Optional[str] = None) -> m.Session:
        """GET /v1/sessions/{id}: working memory and summary."""
        query = _given(user_id=user_id, agent_id=agent_id)
        return m.Session.from_dict(self.request("getSession", id=id, query=query))

    def close_session(self, id: str, user_id: str, *,
                      agent_id: Optional[str] = None) -> m.ClosedSession:
        """POST /v1/sessions/{id}/close: the final summary; later turns get 409."""
        body = _given(user_id=user_id, agent_id=agent_id)
        return m.ClosedSession.from_dict(self.request("closeSession", id=id, body=body))

    def get_job(self, id: str, user_id: str, *, agent_id: Optional[str] = None) -> m.Job:
        """GET /v1/jobs/{id}: an asynchronous add's state."""
        query = _given(user_id=user_id, agent_id=agent_id)
        return m.Job.from_dict(self.request("getJob", id=id, query=query))

    # --- retrieval ---

    def search(self, user_id: str, query: str, **options: Any) -> m.SearchResponse:
        """POST /v1/search: k, filters, min_score, explain, fusion, recent_turns, diversify, graph,
        agent_id, session_id."""
        body = _given(user_id=user_id, query=query, **options)
        return m.SearchResponse.from_dict(self.request("search", body=body))

    def context(self, user_id: str, query: str, **options: Any) -> m.ContextResponse:
        """POST /v1/context: token_budget, session_id, profile, profile_share, k, filters,
        min_score, recent_turns, agent_id."""
        body = _given(user_id=user_id, query=query, **options)
        return m.ContextResponse.from_dict(self.request("context", body=body))

    # --- knowledge documents (shared by the tenant, or by one agent) ---

    def ingest_document(self, *, doc_id: Optional[str] = None, content: Optional[str] = None,
                        content_base64: Optional[str] = None, path: Optional[str] = None,
                        **fields: Any) -> m.IngestResult:
        """POST /v1/knowledge: one of content (text, Markdown, HTML), content_base64 (a PDF) or
        path (a file under the server's --knowledge-dir); format, filename, title, agent_id,
        chunk_tokens, overlap_tokens, metadata. The same doc_id again replaces the document."""
        body = _given(doc_id=doc_id, content=content, content_base64=content_base64, path=path,
                      **fields)
        return m.IngestResult.from_dict(self.request("ingestDocument", body=body))

    def list_documents(self, *, agent_id: Optional[str] = None) -> m.DocumentList:
        """GET /v1/knowledge: the documents with their chunk counts."""
        return m.DocumentList.from_dict(
            self.request("listDocuments", query=_given(agent_id=agent_id)))

    def get_document(self, id: str, *, agent_id: Optional[str] = None) -> m.DocumentDetail:
        """GET /v1/knowledge/{id}: the document and its chunks with their citations."""
        return m.DocumentDetail.from_dict(
            self.request("getDocument", id=id, query=_given(agent_id=agent_id)))

    def delete_document(self, id: str, *, agent_id: Optional[str] = None,
                        verify: Optional[bool] = None) -> m.DocumentDeletion:
        """DELETE /v1/knowledge/{id}: every chunk and vector erased; verify=True scans the
        database files afterwards (SQLite)."""
        query = _given(agent_id=agent_id, verify=verify)
        return m.DocumentDeletion.from_dict(self.request("deleteDocument", id=id, query=query))

    def get_profile(self, user_id: str, *, agent_id: Optional[str] = None) -> m.Profile:
        """GET /v1/profile: lasting facts and preferences by kind, and as text."""
        query = _given(user_id=user_id, agent_id=agent_id)
        return m.Profile.from_dict(self.request("getProfile", query=query))

    def recall_memories(self, user_id: str, messages: List[Mapping[str, str]],
                        **options: Any) -> m.RecallResponse:
        """POST /v1/recall: the memories worth raising unasked (k, min_score, agent_id)."""
        body = _given(user_id=user_id, messages=list(messages), **options)
        return m.RecallResponse.from_dict(self.request("recallMemories", body=body))

    def chat_completions(self, user_id: str, model: str, messages: List[Mapping[str, Any]],
                         **options: Any) -> Dict[str, Any]:
        """POST /v1/chat/completions: the chat proxy (a server started with --upstream-url).
        The user's memory goes into the system message, the upstream's completion comes back
        as it is (a dict, OpenAI's shape), and the exchange is written back. Options: any
        OpenAI field, and engram={session_id, token_budget, profile, recall}. Not streamed:
        for server-sent events use an OpenAI SDK pointed at the server."""
        body = _given(user=user_id, model=model, messages=list(messages), **options)
        body.pop("stream", None)
        return self.request("chatCompletions", body=body)

    def export_memories(self, user_id: str) -> str:
        """GET /v1/export: everything stored about the user, as JSON Lines text."""
        return self.request("exportMemories", query={"user_id": user_id})

    # --- lifecycle ---

    def maintain(self, **options: Any) -> m.MaintenanceReport:
        """POST /v1/maintenance: user_id, dry_run, full, limit."""
        body = _given(**options)
        return m.MaintenanceReport.from_dict(self.request("maintain", body=body))

    def maintenance_log(self, user_id: str, *, limit: Optional[int] = None) -> m.MaintenanceLog:
        """GET /v1/maintenance/log: what maintenance did to the user's memories."""
        query = _given(user_id=user_id, limit=limit)
        return m.MaintenanceLog.from_dict(self.request("maintenanceLog", query=query))

    # --- administration (admin key) ---

    def create_key(self, tenant: str, *, name: Optional[str] = None,
                   role: Optional[str] = None) -> m.ApiKey:
        """POST /v1/admin/keys: the reply holds the secret, once."""
        body = _given(tenant=tenant, name=name, role=role)
        return m.ApiKey.from_dict(self.request("createKey", body=body))

    def list_keys(self, *, tenant: Optional[str] = None) -> m.KeyList:
        """GET /v1/admin/keys"""
        return m.KeyList.from_dict(self.request("listKeys", query=_given(tenant=tenant)))

    def revoke_key(self, id: str) -> m.RevokedKey:
        """DELETE /v1/admin/keys/{id}: revoked at once."""
        return m.RevokedKey.from_dict(self.request("revokeKey", id=id))

    def list_audit(self, **params: Any) -> m.AuditPage:
        """GET /v1/admin/audit: tenant, user_id, since, limit, cursor."""
        return m.AuditPage.from_dict(self.request("listAudit", query=_given(**params)))

    def purge_tenant(self, id: str, *, verify: Optional[bool] = None) -> m.TenantErasure:
        """DELETE /v1/admin/tenants/{id}: erase a whole tenant."""
        reply = self.request("purgeTenant", id=id, query=_given(verify=verify))
        return m.TenantErasure.from_dict(reply)

    # --- operations (no key needed) ---

    def healthz(self) -> m.Health:
        """GET /healthz: the process is alive."""
        return m.Health.from_dict(self.request("healthz"))

    def readyz(self) -> m.Health:
        """GET /readyz: the database answers reads and takes writes (else UnavailableError)."""
        return m.Health.from_dict(self.request("readyz"))

    def metrics(self) -> str:
        """GET /metrics: Prometheus text."""
        return self.request("metrics")

    def openapi(self) -> Dict[str, Any]:
        """GET /openapi.json: the API document; info.version is the API's version."""
        return self.request("openapi")


def _acting_user(operation: str, query: Optional[Mapping[str, Any]],
                 body: Any) -> Optional[str]:
    """The user a request acts for: its user_id (query string, else body), or the chat
    proxy's OpenAI-shaped `user`. Sent as X-Engram-User, so that a proxy in front of several
    replicas sends each user's requests to the same one (docs/deploy.md, "Routing")."""
    for source in (query, body):
        if isinstance(source, Mapping) and isinstance(source.get("user_id"), str):
            return source["user_id"]
    if operation == "chatCompletions" and isinstance(body, Mapping):
        user = body.get("user")
        return user if isinstance(user, str) else None
    return None


def _body_fields(fields: Mapping[str, Any]) -> Dict[str, Any]:
    """Keyword arguments as body fields: `async` is a Python keyword, so it is given as
    async_ (PEP 8's trailing underscore)."""
    return {("async" if k == "async_" else k): v for k, v in fields.items() if v is not None}


def _add_result(reply: Dict[str, Any]) -> Union[m.AddResponse, m.JobAccepted]:
    """An add's reply: a job (202, asynchronous) or what was written."""
    if "job_id" in reply:
        return m.JobAccepted.from_dict(reply)
    return m.AddResponse.from_dict(reply)
