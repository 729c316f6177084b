/** Messages between the test's main thread and the backend worker. */
export type BackendCommand =
  | {
      type: "start";
      id: number;
      warehouseUrl: string;
      secret: string;
      maxCredits: number;
      /** One float: simulated milliseconds ahead of the real clock. */
      clock: SharedArrayBuffer;
    }
  | { type: "stop"; id: number }
  | { type: "break"; id: number }
  /** Moves the emulator's date (yyyy-mm-dd): later answers are the API's at that date. */
  | { type: "clock"; id: number; date: string }
  /**
   * Runs a pipeline beside the server on its warehouse, asking everything again (`skillsync run
   * --refresh`, as a schedule or the CLI would): POST /runs has no refresh, and a pipeline's
   * freshness would answer a second run from the store.
   */
  | { type: "refresh-run"; id: number; pipeline: string; params: Record<string, string[]> }
  | { type: "logs"; id: number }
  | FetchRequest;

export interface FetchRequest {
  type: "fetch";
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Answers larger than this many bytes are refused, as Apps Script refuses those over 50 MB. */
  limit: number;
  sab: SharedArrayBuffer;
}

/** Layout of a fetch's shared buffer: control ints, then the answer's headers (JSON) and body bytes. */
export const FETCH = {
  controlInts: 8,
  state: 0,
  status: 1,
  metaLength: 2,
  bodyLength: 3,
  kind: 4,
  dataOffset: 64,
  ok: 0,
  networkError: 1,
  tooLarge: 2,
} as const;
