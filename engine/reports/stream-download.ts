import { closeSync, openSync } from "node:fs";
import { type Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { Client } from "undici";
import type { SkillApiConfig } from "../../connectors/skill-api/client-config.js";
import {
  RateLimitError,
  ResponseShapeError,
  SkillApiError,
  TransportError,
} from "../../connectors/skill-api/errors.js";
import { interpretResponse } from "../../connectors/skill-api/response.js";
import { backoffDelay, sleep } from "../../connectors/skill-api/retry.js";
import { redact, redactPieces } from "../../core/redact.js";
import { genericData, getOperation, operationPath } from "../../schema/catalog.js";
import { writeAll } from "../../store/chunks.js";
import { JsonMemberStream, JsonStreamError } from "./json-member.js";

/** A download answered and kept: `data` without its content; the whole `data`, gzipped, is in the spool file. */
export interface StreamedDownload {
  data: Record<string, unknown>;
  traceId: string | null;
  status: number;
  attempts: number;
  elapsedMs: number;
}

// Failures where the request provably never left: retrying them is free.
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/**
 * POSTs a download and streams its answer: `data.content` goes straight into gzip, so a part of a
 * million rows is never one string in memory; the rest of the envelope is checked exactly as the
 * client checks any answer (status, envelope, code, data shape) and throws the same errors. Like
 * the client, it retries only a 429 and a connection that sent nothing.
 *
 * The gzip of `data` as JSON, content included (what the response store keeps) goes to `spool`, a
 * file; an attempt that fails leaves it to the next one to overwrite. Gathered in memory, then
 * joined for the store, it was held twice at once.
 *
 * @example const d = await streamDownload(client.config, "marketplace-ads-sp-insights-report-download", body, "/tmp/part.json.gz");
 */
/** A report file's download is one request, not a run's stream of calls: a few refusals end it. */
const REPORT_RATE_RETRIES = 5;

export async function streamDownload(
  config: SkillApiConfig,
  slug: string,
  body: Record<string, unknown>,
  spool: string,
): Promise<StreamedDownload> {
  const started = performance.now();
  let rate = 0;
  let connect = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await once(config, slug, body, spool);
      return { ...r, attempts: attempt, elapsedMs: Math.round(performance.now() - started) };
    } catch (err) {
      const limited =
        err instanceof RateLimitError && rate < (config.maxRateLimitRetries ?? REPORT_RATE_RETRIES);
      const refused = err instanceof TransportError && !err.sent && connect < config.maxConnectRetries;
      if (!limited && !refused) throw err;
      const wait = limited
        ? (err.retryAfterMs ?? backoffDelay(rate, config.retryBaseDelayMs, config.maxRetryDelayMs))
        : backoffDelay(connect++, config.retryBaseDelayMs, config.maxRetryDelayMs);
      if (limited) rate++;
      await sleep(Math.min(wait, config.maxRetryDelayMs));
    }
  }
}

async function once(config: SkillApiConfig, slug: string, body: Record<string, unknown>, spool: string) {
  const url = new URL(`${config.baseUrl}${operationPath(slug)}`);
  const client = new Client(url.origin, {
    connect: { timeout: config.connectTimeoutMs },
    headersTimeout: config.headersTimeoutMs,
    bodyTimeout: config.bodyTimeoutMs,
  });
  const fail = (err: unknown, sent: boolean) => {
    const e = err as { code?: unknown; message?: unknown };
    const code = typeof e.code === "string" ? e.code : "";
    const timeout = /TIMEOUT/.test(code);
    const detail = redact(`${code ? `${code}: ` : ""}${String(e.message ?? err)}`);
    return new TransportError({ slug, sent: sent && !NOT_SENT.has(code), timeout, detail, cause: err });
  };
  try {
    let res: Awaited<ReturnType<Client["request"]>>;
    try {
      res = await client.request({
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          authorization: `Bearer ${config.apiKey}`,
        },
        body: JSON.stringify(body),
      });
    } catch (err) {
      throw fail(err, true);
    }
    const schema = getOperation(slug)?.data ?? genericData;
    if (res.statusCode !== 200) {
      const text = await res.body.text().catch(() => "");
      // Not a successful answer: interpreting it throws the typed error (401, 403, 429, 4xx, 5xx).
      interpretResponse(slug, { status: res.statusCode, headers: res.headers, body: text }, schema);
    }
    let fd: number | undefined;
    try {
      fd = openSync(spool, "w");
      return await spoolAnswer(res.body, fd, (rest) =>
        interpretResponse(slug, { status: 200, headers: res.headers, body: rest }, schema),
      );
    } catch (err) {
      if (err instanceof SkillApiError) throw err;
      if (err instanceof JsonStreamError) {
        throw new ResponseShapeError({ slug, status: 200, issues: [{ path: [], message: err.message }] });
      }
      throw fail(err, true);
    } finally {
      if (fd !== undefined) closeSync(fd);
      // Left unread (the spool could not be opened): dropped, and its abort is no one's error.
      if (!res.body.readableEnded) res.body.on("error", () => {}).destroy();
    }
  } finally {
    await client.close().catch(() => {});
  }
}

/**
 * Streams the answer's `data.content` into gzip and the gzip into the spool file; checks the rest
 * of the answer with `interpret` once the body has been read, then closes the stored JSON.
 */
async function spoolAnswer(
  body: Readable,
  fd: number,
  interpret: (rest: string) => ReturnType<typeof interpretResponse>,
): Promise<Omit<StreamedDownload, "attempts" | "elapsedMs">> {
  const member = new JsonMemberStream(["data", "content"]);
  const gzip = createGzip();
  // Each piece is written as it comes out. Queued for asynchronous writes, pieces outlived a
  // scavenge and were promoted: the whole compressed part then stayed in memory, as garbage, until
  // V8's next full collection.
  gzip.on("data", (b: Buffer) => {
    try {
      writeAll(fd, b);
    } catch (err) {
      gzip.destroy(err instanceof Error ? err : new Error(String(err)));
    }
  });
  const closed = new Promise<void>((resolve, reject) => gzip.on("end", resolve).on("error", reject));
  let opened = false;
  const open = () => {
    if (!opened) gzip.write('{"content":"');
    opened = true;
  };
  // The content is the provider's text like any other answer: a secret in it is redacted before it
  // is stored or loaded (a broken or hostile upstream echoing the key).
  const redacting = redactPieces();
  const sink = new Writable({
    objectMode: true,
    write(text: string, _enc, done) {
      open();
      // JSON-escaped piece by piece: the stored document is the same JSON a whole string would give.
      if (gzip.write(JSON.stringify(redacting.push(text)).slice(1, -1))) done();
      else gzip.once("drain", () => done());
    },
  });
  // The spool cannot be written (disk full): stop reading the answer, no drain will come.
  closed.catch((err: unknown) => sink.destroy(err instanceof Error ? err : new Error(String(err))));
  try {
    await pipeline(body, member, sink);
    const answer = interpret(member.rest);
    const data = answer.data ?? {};
    const { content: _content, ...others } = data;
    const tail = JSON.stringify(others).slice(1, -1);
    if (member.found) {
      open();
      gzip.write(JSON.stringify(redacting.end()).slice(1, -1));
      gzip.end(`"${tail ? `,${tail}` : ""}}`);
    } else gzip.end(JSON.stringify(data));
    await closed;
    return { data: others, traceId: answer.traceId, status: 200 };
  } finally {
    gzip.destroy();
    await closed.catch(() => {});
  }
}
