// engram-client: the HTTP client of Engram's v1 API. The framework integrations are separate
// entry points (engram-client/langchain, engram-client/ai-sdk) so that this one needs nothing
// but a global fetch.
export { EngramClient } from "./client.js";
export type { ClientOptions, RequestOptions } from "./http.js";
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  EngramConnectionError,
  EngramError,
  EngramTimeoutError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  UnavailableError,
  type ErrorDetails,
} from "./errors.js";
export {
  defaultMemoryPrompt,
  fetchContext,
  memoryPrompt,
  saveExchange,
  type MemoryOptions,
} from "./memory.js";
export * from "./generated/openapi.js";
