import { sleep } from "../skill-api/retry.js";

/**
 * Paces write requests to a quota such as "60 per minute": a request waits until fewer than
 * `limit` were sent in the last `windowMs`. Shared by every push of one connector.
 */
export class WriteQuota {
  private readonly sent: number[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Resolves when one more request may be sent, and counts it. */
  take(): Promise<void> {
    const turn = this.queue.then(async () => {
      for (;;) {
        const now = Date.now();
        while (this.sent.length && now - this.sent[0]! >= this.windowMs) this.sent.shift();
        if (this.sent.length < this.limit) {
          this.sent.push(now);
          return;
        }
        await sleep(this.windowMs - (now - this.sent[0]!) + 1);
      }
    });
    this.queue = turn.catch(() => {});
    return turn;
  }
}
