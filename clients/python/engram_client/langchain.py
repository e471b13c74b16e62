"""LangChain-shaped adapters, by duck typing: a chat message history kept in Engram sessions and
a retriever over /v1/search.

They have the methods and attributes that users of LangChain's BaseChatMessageHistory and
BaseRetriever call (messages / add_messages / clear; invoke / get_relevant_documents) and
accept LangChain's message objects (anything with .type and .content), but they do not import
langchain: it is not a dependency, and it could not be installed to test against here.
"""

import dataclasses
import time
from typing import Any, Dict, Iterable, List, Optional

from .client import EngramClient
from .errors import NotFoundError
from .models import SearchHit, Turn

# LangChain's message types and Engram's (the chat APIs') role names.
_ROLE_OF_TYPE = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
_TYPE_OF_ROLE = {"user": "human", "assistant": "ai", "system": "system", "tool": "tool"}


@dataclasses.dataclass
class ChatMessage:
    """A message shaped like LangChain's: type is human, ai, system or tool."""

    type: str
    content: str


@dataclasses.dataclass
class Document:
    """A document shaped like LangChain's: page_content, metadata and id."""

    page_content: str
    metadata: Dict[str, Any] = dataclasses.field(default_factory=dict)
    id: Optional[str] = None


def _text(content: Any) -> str:
    """A message's text; multi-part content keeps its text parts."""
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        if isinstance(part, dict) and part.get("type") == "text":
            parts.append(str(part.get("text", "")))
        elif isinstance(part, str):
            parts.append(part)
    return "".join(parts)


def _turn(message: Any) -> Dict[str, str]:
    kind = getattr(message, "type", "human")
    return {"role": _ROLE_OF_TYPE.get(kind, kind), "content": _text(message.content)}


def _message(turn: Turn) -> ChatMessage:
    return ChatMessage(type=_TYPE_OF_ROLE.get(turn.role, "human"), content=turn.content)


class EngramChatMessageHistory:
    """A chat history kept in an Engram session (LangChain's BaseChatMessageHistory shape).

    `messages` is the session's working memory: its newest turns within the server's
    --working-token-budget, not every turn ever said. Engram keeps what users said as
    memories, so clear() does not erase: it closes the session (writing its summary) and moves
    this history to a new session id, which starts empty. To erase, delete the memories.
    """

    def __init__(self, client: EngramClient, user_id: str, session_id: str, *,
                 agent_id: Optional[str] = None, infer: Optional[bool] = None):
        self.client = client
        self.user_id = user_id
        self.agent_id = agent_id
        self.infer = infer
        self._base = session_id
        self.session_id = session_id
        self._cleared = 0

    @property
    def messages(self) -> List[ChatMessage]:
        try:
            session = self.client.get_session(self.session_id, self.user_id,
                                              agent_id=self.agent_id)
        except NotFoundError:
            return []  # no turn yet: the session does not exist
        return [_message(t) for t in (session.working.turns if session.working else [])]

    def get_messages(self) -> List[ChatMessage]:
        return self.messages

    def add_messages(self, messages: Iterable[Any]) -> None:
        """One request for all the messages."""
        self.client.append_session_messages(self.session_id, self.user_id,
                                            [_turn(msg) for msg in messages],
                                            agent_id=self.agent_id, infer=self.infer)

    def add_message(self, message: Any) -> None:
        self.add_messages([message])

    def add_user_message(self, text: str) -> None:
        self.add_message(ChatMessage("human", text))

    def add_ai_message(self, text: str) -> None:
        self.add_message(ChatMessage("ai", text))

    def clear(self) -> None:
        try:
            self.client.close_session(self.session_id, self.user_id, agent_id=self.agent_id)
        except NotFoundError:
            pass  # nothing said yet: nothing to close
        self._cleared += 1
        self.session_id = "%s~%x%d" % (self._base, int(time.time() * 1000), self._cleared)


def hit_to_document(hit: SearchHit) -> Document:
    """A search hit as a document: the memory's content, its id, type, score and dates."""
    mem = hit.memory
    metadata: Dict[str, Any] = {"id": hit.id, "score": hit.score}
    if mem is not None:
        for name in ("type", "tier", "importance", "created_at", "updated_at", "valid_from",
                     "valid_to", "tags", "entities", "session_id", "slot"):
            metadata[name] = getattr(mem, name)
    return Document(page_content=mem.content if mem else "", metadata=metadata, id=hit.id)


class EngramRetriever:
    """A retriever over POST /v1/search within one user's memories, best first (LangChain's
    BaseRetriever shape: invoke(query) -> documents)."""

    def __init__(self, client: EngramClient, user_id: str, *, k: Optional[int] = None,
                 filters: Optional[Dict[str, Any]] = None, min_score: Optional[float] = None,
                 agent_id: Optional[str] = None):
        self.client = client
        self.user_id = user_id
        self.options = {"k": k, "filters": filters, "min_score": min_score, "agent_id": agent_id}

    def invoke(self, query: str, config: Any = None) -> List[Document]:
        """config is accepted for LangChain's Runnable signature and not used."""
        reply = self.client.search(self.user_id, query, **self.options)
        return [hit_to_document(hit) for hit in reply.results]

    def get_relevant_documents(self, query: str) -> List[Document]:
        """LangChain's older name for invoke."""
        return self.invoke(query)
