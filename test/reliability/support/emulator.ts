import { SkillClient, type SkillClientInit } from "../../../connectors/skill-api/client.js";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../../emulator/index.js";
import { API_KEY } from "./secrets.js";

/** An emulator on an ephemeral loopback port that knows only the suite's API key. */
export function suiteEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ port: 0, host: "127.0.0.1", keys: [{ key: API_KEY }], ...options });
}

/** A client with the suite's key; short backoff so retries do not slow the suite down. */
export function suiteClient(emulator: Emulator, init: SkillClientInit = {}): SkillClient {
  return new SkillClient({
    baseUrl: emulator.url,
    apiKey: API_KEY,
    retryBaseDelayMs: 5,
    maxRetryDelayMs: 50,
    ...init,
  });
}

/** Slugs of the advertising report operations. */
export const REPORT_STATUS = "marketplace-ads-sp-insights-report-status";
export const REPORT_DOWNLOAD = "marketplace-ads-sp-insights-report-download";
export const REPORT_CREATES = new Set([
  "marketplace-ads-sp-search-impression-share-report",
  "marketplace-ads-sp-audience-report",
]);
