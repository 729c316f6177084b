/** The Google Sheets connector: input lists from ranges, tables pushed to tabs. */
export { SheetsConnector, type SheetsConnectorOptions } from "./connector.js";
export { TRUNCATION_MARK } from "./limits.js";
