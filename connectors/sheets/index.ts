/** The Google Sheets connector: input lists from ranges, tables pushed to tabs. */
export { a1Range, columnLetters, quoteTab } from "./a1.js";
export type { RetryPolicy, SheetTab } from "./api.js";
export {
  DEFAULT_SHEETS_ROOT_URL,
  SHEETS_SCOPE,
  type SheetsCredentials,
  type SheetsEnvConfig,
  sheetsConfigFromEnv,
} from "./auth.js";
export { SheetsConnector, type SheetsConnectorOptions } from "./connector.js";
export { type CellValue, encodeCell } from "./encode.js";
export { SHEETS_LIMITS, TRUNCATION_MARK } from "./limits.js";
export type { PushMode, PushResult, PushTarget, TableData } from "./push.js";
