/** `skillsync serve`: signed HTTP endpoints for spreadsheets and scripts. */
export { RequestAuthenticator } from "./auth.js";
export { checkSecret, type ServerOptions, type SkillsyncServer, startServer } from "./server.js";
export { canonicalRequest, signedHeaders, signRequest } from "./signature.js";
