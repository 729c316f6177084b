/** The Skill API client: typed calls, the few error classes, and the retry rules. */
export { SkillClient, type SkillClientInit } from "./client.js";
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
export { backoffDelay, parseRetryAfter } from "./retry.js";
export type { RetryInfo } from "./types.js";
