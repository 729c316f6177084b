/** Apps Script stops an execution after 6 minutes. */
export const EXECUTION_LIMIT_MS = 6 * 60 * 1000;

/**
 * Simulated time: the real clock plus an offset that service calls push forward (a fetch "takes" a
 * minute when a test says so). The offset lives in shared memory so the server's clock follows it.
 */
export class SimClock {
  readonly buffer = new SharedArrayBuffer(8);
  private readonly offset = new Float64Array(this.buffer);

  now(): number {
    return Date.now() + this.offset[0]!;
  }

  advance(ms: number): void {
    this.offset[0] = this.offset[0]! + ms;
  }
}

export type ExecutionKind = "simple" | "menu" | "rpc" | "trigger";

const KILLED_MESSAGE = "Exceeded maximum execution time";

/** One execution of the script: its own start time and limit, and whether Apps Script killed it. */
export class Execution {
  readonly started: number;
  ended: number | undefined;
  killed = false;

  constructor(
    readonly id: number,
    readonly kind: ExecutionKind,
    readonly entry: string,
    private readonly clock: SimClock,
    readonly limitMs: number,
  ) {
    this.started = clock.now();
  }

  /** How long the finished execution took, in simulated milliseconds. */
  duration(): number {
    return (this.ended ?? Number.NaN) - this.started;
  }

  elapsed(): number {
    return this.clock.now() - this.started;
  }

  /**
   * Every service call spends time; past the limit the execution is dead and every later call fails
   * too (a real kill cannot be caught by the script).
   */
  spend(ms: number): void {
    this.check();
    this.clock.advance(ms);
    this.check();
  }

  check(): void {
    if (!this.killed && this.elapsed() > this.limitMs) this.killed = true;
    if (this.killed) throw new Error(KILLED_MESSAGE);
  }
}
