/** The local Skill API emulator: start it in-process, or run `skillsync emulator`. */

export { canonicalJson } from "../core/hash.js";
export { answerAt, legalStatusAt } from "./answers.js";
export { DEFAULT_EMULATOR_DATE } from "./clock.js";
export type { LedgerCall, LedgerSnapshot } from "./ledger.js";
export { DEMO_KEY, type EmulatorOptions, type FaultSettings } from "./options.js";
export { type Emulator, startEmulator } from "./server.js";
