import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { Client } from "undici";
import type { SkillApiConfig } from "../../../connectors/skill-api/config.js";
import { RateLimitError, ResponseShapeError, TransportError } from "../../../connectors/skill-api/errors.js";
import { interpretResponse } from "../../../connectors/skill-api/response.js";
import { backoffDelay, sleep } from "../../../connectors/skill-api/retry.js";
import { redact } from "../../../core/redact.js";
import { genericData, getOperation, operationPath } from "../../../schema/catalog.js";
import { JsonMemberStream, JsonStreamError } from "./json-member.js";

/** A download answered and kept: `data` without its content, the whole `data` gzipped (for the store). */
export interface StreamedDownload {
  data: Record<string, unknown>;
  traceId: string | null;
  status: number;
  attempts: number;
  elapsedMs: number;
  /** gzip of `data` as JSON, content included: what the response store keeps, built without holding the text. */
  stored: Buffer;
}

// Failures where the request provably never left: retrying them is free.
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/**
 * POSTs a download and streams its answer: `data.content` goes straight into gzip, so a part of a
 * million rows is never one string in memory; the rest of the envelope is checked exactly as the
 * client checks any answer (status, envelope, code, data shape) and throws the same errors. Like
 * the client, it retries only a 429 and a connection that sent nothing.
 *
 * @example const d = await streamDownload(client.config, "marketplace-ads-sp-insights-report-download", body);
 */
export async function streamDownload(
  config: SkillApiConfig,
  slug: string,
  body: Record<string, unknown>,
): Promise<StreamedDownload> {
  const started = performance.now();
  let rate = 0;
  let connect = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await once(config, slug, body);
      return { ...r, attempts: attempt, elapsedMs: Math.round(performance.now() - started) };
    } catch (err) {
      const limited = err instanceof RateLimitError && rate < config.maxRateLimitRetries;
      const refused = err instanceof TransportError && !err.sent && connect < config.maxConnectRetries;
      if (!limited && !refused) throw err;
      const wait = limited
        ? (err.retryAfterMs ?? backoffDelay(rate++, config.retryBaseDelayMs, config.maxRetryDelayMs))
        : backoffDelay(connect++, config.retryBaseDelayMs, config.maxRetryDelayMs);
      await sleep(Math.min(wait, config.maxRetryDelayMs));
    }
  }
}

async function once(config: SkillApiConfig, slug: string, body: Record<string, unknown>) {
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
    const member = new JsonMemberStream(["data", "content"]);
    const gzip = createGzip();
    const stored: Buffer[] = [];
    gzip.on("data", (b: Buffer) => stored.push(b));
    const closed = new Promise((resolve, reject) => gzip.on("end", resolve).on("error", reject));
    let opened = false;
    const open = () => {
      if (!opened) gzip.write('{"content":"');
      opened = true;
    };
    const sink = new Writable({
      objectMode: true,
      write(text: string, _enc, done) {
        open();
        // JSON-escaped piece by piece: the stored document is the same JSON a whole string would give.
        if (gzip.write(JSON.stringify(text).slice(1, -1))) done();
        else gzip.once("drain", () => done());
      },
    });
    try {
      await pipeline(res.body, member, sink);
    } catch (err) {
      gzip.destroy();
      if (!(err instanceof JsonStreamError)) throw fail(err, true);
      throw new ResponseShapeError({ slug, status: 200, issues: [{ path: [], message: err.message }] });
    }
    const answer = interpretResponse(slug, { status: 200, headers: res.headers, body: member.rest }, schema);
    const data = answer.data ?? {};
    const { content: _content, ...others } = data;
    const tail = JSON.stringify(others).slice(1, -1);
    if (member.found) {
      open();
      gzip.end(`"${tail ? `,${tail}` : ""}}`);
    } else gzip.end(JSON.stringify(data));
    await closed;
    return { data: others, traceId: answer.traceId, status: 200, stored: Buffer.concat(stored) };
  } finally {
    await client.close().catch(() => {});
  }
}
