/** `skillsync serve`: signed HTTP endpoints for spreadsheets and scripts. */
export { RequestAuthenticator } from "./auth.js";
export { type Job, type JobStatus, RunQueue } from "./queue.js";
export { MAX_PAGE, runRequestSchema } from "./routes.js";
export { checkSecret, type ServerOptions, type SkillsyncServer, startServer } from "./server.js";
export {
  canonicalRequest,
  MAX_SKEW_SECONDS,
  MIN_SECRET_LENGTH,
  SIGNATURE_HEADER,
  type SignedParts,
  signatureMatches,
  signedHeaders,
  signRequest,
  TIMESTAMP_HEADER,
} from "./signature.js";
