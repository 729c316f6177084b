/** The Skill API client: typed calls, the few error classes, and the retry rules. */
export { SkillClient, type SkillClientInit } from "./client.js";
export { CONFIG_DEFAULTS, resolveConfig, type SkillApiConfig, type SkillClientOptions } from "./config.js";
export {
  AccessError,
  AuthError,
  PlatformError,
  RateLimitError,
  RequestError,
  ResponseShapeError,
  ServerError,
  SkillApiError,
  TransportError,
} from "./errors.js";
export { type Interpreted, interpretResponse } from "./response.js";
export { backoffDelay, parseRetryAfter } from "./retry.js";
export type {
  BodyOf,
  CallOptions,
  CallResult,
  DataOf,
  DocumentedSlug,
  InputOf,
  PreparedCall,
  RetryInfo,
  SkillTypes,
} from "./types.js";
