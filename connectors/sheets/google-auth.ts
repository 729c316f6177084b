import { READ_LIMITS, readBoundedText } from "../../core/bounded-read.js";
import { readConfig } from "../../core/env-config.js";
import { ExitCode, SkillsyncError, ValidationError } from "../../core/errors.js";
import { registerSecret } from "../../core/redact.js";

const SHEETS_SCOPE = "https://www.googleapis.com/auth/spreadsheets";
export const DEFAULT_SHEETS_ROOT_URL = "https://sheets.googleapis.com/";

/** How the connector proves who it is; exactly one source is used. */
export type SheetsCredentials =
  /** A service account key file (JSON) downloaded from the Google Cloud console. */
  | { keyFile: string }
  /** Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS, gcloud's login, or the metadata server. */
  | { adc: true }
  /** A ready OAuth access token (e.g. `gcloud auth print-access-token`); also what tests use against the fake. */
  | { accessToken: string };

export interface SheetsEnvConfig {
  credentials: SheetsCredentials;
  rootUrl: string;
}

/**
 * Reads the Sheets set-up from the environment, or undefined when none is configured:
 * SKILLSYNC_SHEETS_ACCESS_TOKEN (a token), else GOOGLE_APPLICATION_CREDENTIALS (a service account
 * key file, or any credentials file Google's libraries read); SKILLSYNC_SHEETS_API_URL overrides the API root (a local fake in tests).
 *
 * @example sheetsConfigFromEnv({ GOOGLE_APPLICATION_CREDENTIALS: "/keys/sa.json" })
 * // { credentials: { keyFile: "/keys/sa.json" }, rootUrl: "https://sheets.googleapis.com/" }
 */
export function sheetsConfigFromEnv(env?: NodeJS.ProcessEnv): SheetsEnvConfig | undefined {
  const { rootUrl = DEFAULT_SHEETS_ROOT_URL, accessToken, keyFile } = readConfig(env).sheets;
  if (accessToken) return { credentials: { accessToken }, rootUrl };
  if (keyFile) return { credentials: { keyFile }, rootUrl };
  return undefined;
}

/** The googleapis auth client for some credentials (the library is loaded only when Sheets is used). */
export async function sheetsAuthClient(credentials: SheetsCredentials): Promise<unknown> {
  const { auth } = await import("googleapis/build/src/apis/sheets/index.js");
  if ("accessToken" in credentials) {
    registerSecret(credentials.accessToken);
    const client = new auth.OAuth2();
    // Far-future expiry: the client never tries to refresh (there is no refresh token to use).
    client.setCredentials({
      access_token: credentials.accessToken,
      expiry_date: Date.now() + 10 * 365 * 86_400_000,
    });
    return client;
  }
  if ("keyFile" in credentials) {
    checkKeyFile(credentials.keyFile);
    return new auth.GoogleAuth({ keyFile: credentials.keyFile, scopes: [SHEETS_SCOPE] });
  }
  return new auth.GoogleAuth({ scopes: [SHEETS_SCOPE] });
}

/** A key file that is missing or not a Google credentials file is said plainly, before any request. */
function checkKeyFile(path: string): void {
  let type: unknown;
  try {
    type = (JSON.parse(readKeyFile(path)) as { type?: unknown }).type;
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    const why =
      (err as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : "is not a readable JSON key file";
    throw new SkillsyncError("SHEETS_NOT_CONFIGURED", `the Google key file ${path} ${why}`, ExitCode.usage);
  }
  if (typeof type !== "string") {
    throw new SkillsyncError(
      "SHEETS_NOT_CONFIGURED",
      `${path} is not a Google credentials file (no "type"; download a JSON key of the service account)`,
      ExitCode.usage,
    );
  }
}

/** A Google key file's text, within READ_LIMITS: a device or a wrong huge file is refused, not read. */
export function readKeyFile(path: string): string {
  return readBoundedText(path, {
    maxBytes: READ_LIMITS.keyFileBytes,
    what: "Google key file (GOOGLE_APPLICATION_CREDENTIALS)",
    instead: "a service account key is a few KB of JSON; download one from the Google Cloud console",
  });
}

/** Sheets needs set-up the user has not done; says what to set. */
export function notConfiguredError(): SkillsyncError {
  return new SkillsyncError(
    "SHEETS_NOT_CONFIGURED",
    "Google Sheets is not set up: set GOOGLE_APPLICATION_CREDENTIALS to a service account key file (see the README, Google Sheets)",
    ExitCode.usage,
  );
}
