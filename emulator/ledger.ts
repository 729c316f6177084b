/**
 * What happened to a call. Charged: ok, drift, malformed, timeout. Everything else was refused or
 * failed before it was processed and costs nothing.
 */
export type CallStatus =
  | "ok"
  | "drift"
  | "malformed"
  | "timeout"
  | "invalid"
  | "unauthorized"
  | "forbidden"
  | "payment-required"
  | "unknown-operation"
  | "not-found"
  | "rate-limited"
  | "server-error"
  | "platform-error"
  | "too-large"
  /** The client went away before the answer was sent: the work is abandoned and not billed. */
  | "client-gone";

export interface LedgerCall {
  seq: number;
  slug: string;
  /** sha256 hex of the canonical JSON of the validated body (the raw JSON body when it did not validate; null when it was not JSON). */
  bodyHash: string | null;
  credits: number;
  status: CallStatus;
  /** Patent-identifier operations: the identifiers asked for, as sent (each billed at a per-item price). */
  items?: string[];
  httpStatus: number | null;
  reportId?: string;
  /** When the call was recorded, ms since the epoch: its answer sent (or the client gone). */
  at?: number;
}

export interface LedgerSnapshot {
  totalCalls: number;
  chargedCalls: number;
  totalCredits: number;
  operations: Record<string, { calls: number; charged: number; credits: number }>;
  calls: LedgerCall[];
  /** Entries dropped from `calls` because it keeps only the latest `ledgerLimit`; totals stay exact. */
  droppedCalls: number;
}

/**
 * Every request to a skill path, with its outcome and what it cost. It never holds the API key.
 * The call list is capped so a long-running emulator does not grow without bound; totals are exact.
 */
export class Ledger {
  private seq = 0;
  private calls: LedgerCall[] = [];
  private dropped = 0;
  private totalCredits = 0;
  private charged = 0;
  private operations = new Map<string, { calls: number; charged: number; credits: number }>();

  constructor(private readonly limit: number) {}

  /** The sequence number the next call will get (1-based since start or reset). */
  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  record(call: LedgerCall): void {
    const op = this.operations.get(call.slug) ?? { calls: 0, charged: 0, credits: 0 };
    op.calls += 1;
    op.credits += call.credits;
    if (isCharged(call.status)) {
      op.charged += 1;
      this.charged += 1;
    }
    this.operations.set(call.slug, op);
    this.totalCredits += call.credits;
    this.calls.push({ ...call, at: call.at ?? Date.now() });
    if (this.calls.length > this.limit * 2) {
      const drop = this.calls.length - this.limit;
      this.calls = this.calls.slice(drop);
      this.dropped += drop;
    }
  }

  snapshot(): LedgerSnapshot {
    const calls = this.calls.length > this.limit ? this.calls.slice(-this.limit) : [...this.calls];
    const operations: LedgerSnapshot["operations"] = {};
    for (const [slug, op] of this.operations) operations[slug] = { ...op };
    return {
      totalCalls: this.dropped + this.calls.length,
      chargedCalls: this.charged,
      totalCredits: this.totalCredits,
      operations,
      calls: calls.map((c) => ({ ...c })),
      droppedCalls: this.dropped + (this.calls.length - calls.length),
    };
  }

  reset(): void {
    this.seq = 0;
    this.calls = [];
    this.dropped = 0;
    this.totalCredits = 0;
    this.charged = 0;
    this.operations.clear();
  }
}

function isCharged(status: CallStatus): boolean {
  return status === "ok" || status === "drift" || status === "malformed" || status === "timeout";
}
