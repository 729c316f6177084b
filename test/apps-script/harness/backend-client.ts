import { Worker } from "node:worker_threads";
import { type BackendCommand, FETCH } from "./protocol.js";

export interface SyncResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Why a synchronous fetch produced no answer. */
export class FetchFailure extends Error {
  constructor(
    message: string,
    readonly kind: "network" | "too-large",
  ) {
    super(message);
  }
}

type Command = BackendCommand extends infer C ? (C extends { id: number } ? Omit<C, "id"> : never) : never;

/**
 * The test side of the backend worker: starts and stops a real `skillsync serve`, and fetches
 * synchronously (the main thread waits on a SharedArrayBuffer while the worker does the HTTP).
 */
export class Backend {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly ready: Promise<void>;
  private sab: SharedArrayBuffer | undefined;

  private constructor(private readonly worker: Worker) {
    this.ready = new Promise((resolve, reject) => {
      worker.once("error", reject);
      worker.on(
        "message",
        (m: { ready?: boolean; id?: number; ok?: boolean; value?: unknown; error?: string }) => {
          if (m.ready) return resolve();
          const w = this.waiting.get(m.id ?? -1);
          if (!w) return;
          this.waiting.delete(m.id!);
          if (m.ok) w.resolve(m.value);
          else w.reject(new Error(`backend: ${m.error}`));
        },
      );
    });
  }

  static async start(): Promise<Backend> {
    const b = new Backend(new Worker(new URL("./backend-worker.mjs", import.meta.url)));
    await b.ready;
    return b;
  }

  command<T>(c: Command): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...c, id });
    });
  }

  /**
   * One HTTP request, blocking this thread until the answer is in (as UrlFetchApp.fetch does).
   * Answers over `limit` bytes fail like Apps Script's 50 MB response limit.
   */
  fetchSync(
    req: { url: string; method: string; headers: Record<string, string>; body?: string },
    limit: number,
    timeoutMs = 30_000,
  ): SyncResponse {
    const size = FETCH.dataOffset + Math.min(limit, 64 * 1024 * 1024) + 64 * 1024;
    if (!this.sab || this.sab.byteLength < size) this.sab = new SharedArrayBuffer(size);
    const ctl = new Int32Array(this.sab, 0, FETCH.controlInts);
    Atomics.store(ctl, FETCH.state, 0);
    this.worker.postMessage({ type: "fetch", ...req, limit, sab: this.sab });
    if (Atomics.wait(ctl, FETCH.state, 0, timeoutMs) === "timed-out") {
      throw new FetchFailure(`Timeout: ${req.url}`, "network");
    }
    const data = Buffer.from(this.sab, FETCH.dataOffset);
    const kind = ctl[FETCH.kind];
    const metaLength = ctl[FETCH.metaLength]!;
    const bodyLength = ctl[FETCH.bodyLength]!;
    if (kind === FETCH.tooLarge) {
      throw new FetchFailure(`Response size exceeded: ${bodyLength} bytes (limit ${limit})`, "too-large");
    }
    const body = Buffer.from(data.subarray(metaLength, metaLength + bodyLength));
    if (kind === FETCH.networkError) throw new FetchFailure(body.toString("utf8"), "network");
    return {
      status: ctl[FETCH.status]!,
      headers: JSON.parse(data.subarray(0, metaLength).toString("utf8")) as Record<string, string>,
      body,
    };
  }

  async close(): Promise<void> {
    await this.command({ type: "stop" }).catch(() => {});
    await this.worker.terminate();
  }
}
