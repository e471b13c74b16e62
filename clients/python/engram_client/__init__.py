"""engram_client: the Python client of Engram's HTTP API (v1), standard library only.

    from engram_client import EngramClient
    client = EngramClient()   # $ENGRAM_URL, $ENGRAM_API_KEY
    client.add_memory("alice", "I'm allergic to peanuts")
    print(client.context("alice", "plan a dinner", token_budget=300).context)
"""

from . import models
from .client import ROUTES, EngramClient
from .errors import (AuthenticationError, BadRequestError, ConflictError, EngramConnectionError,
                     EngramError, EngramTimeoutError, InternalServerError, NotFoundError,
                     PayloadTooLargeError, PermissionDeniedError, RateLimitError,
                     UnavailableError)
from .models import (AddResponse, ContextResponse, JobAccepted, Memory, MemoryPage, Profile,
                     SearchHit, SearchResponse, Session)

__version__ = "1.0.0"  # follows the API's version (GET /openapi.json info.version)

__all__ = [
    "EngramClient", "ROUTES", "models",
    "EngramError", "BadRequestError", "AuthenticationError", "PermissionDeniedError",
    "NotFoundError", "ConflictError", "PayloadTooLargeError", "RateLimitError",
    "UnavailableError", "InternalServerError", "EngramConnectionError", "EngramTimeoutError",
    "AddResponse", "ContextResponse", "JobAccepted", "Memory", "MemoryPage", "Profile",
    "SearchHit", "SearchResponse", "Session",
]
