import type { z } from "zod";
import { fromZodIssues, type Issue } from "../../core/errors.js";
import { redact, redactDeep } from "../../core/redact.js";
import { type Envelope, envelopeSchema } from "../../schema/envelope.js";
import {
  AccessError,
  AuthError,
  NotTheApiError,
  PlatformError,
  RateLimitError,
  RequestError,
  ResponseShapeError,
  ServerError,
} from "./errors.js";
import { parseRetryAfter } from "./retry.js";
import type { HttpResponse } from "./transport.js";

export interface Interpreted {
  envelope: Envelope;
  /** The response's own `data` object, untouched (schemas only check it). */
  data: Record<string, unknown> | null;
  traceId: string | null;
  /**
   * The body as it arrived (secrets redacted), exactly the JSON of `envelope`: null when a secret
   * hid behind JSON escapes and the parsed strings had to be redacted instead.
   */
  text: string | null;
}

/**
 * Turns an HTTP answer into the envelope and its `data`, or throws the typed error that
 * matches it (contract 2.1 and 7). Nothing here retries.
 *
 * @example
 * const { data } = interpretResponse("patent-claims", res, op.data); // or throws AuthError, PlatformError…
 */
export function interpretResponse(slug: string, res: HttpResponse, dataSchema: z.ZodType): Interpreted {
  // Everything the API sends is redacted as error messages are, before anything reads it: a broken
  // or hostile upstream that echoes the key (into a trace id, a title…) cannot plant it in the
  // warehouse or a log. JSON escapes (\/, \u…) could hide a key from the text check: then the
  // parsed strings are checked too.
  const body = redact(res.body);
  const received = parseJson(body);
  const parsed = redactParsed(received, body);
  const traceId = traceIdOf(parsed.value);
  const init = { slug, status: res.status, traceId };

  if (res.status === 401) throw new AuthError(init);
  if (res.status === 403) throw new AccessError(init);
  if (res.status === 429)
    throw new RateLimitError({ ...init, retryAfterMs: parseRetryAfter(res.headers["retry-after"]) });
  if (!parsed.ok && (res.status === 501 || (res.status >= 400 && res.status < 500)) && isWebPage(res, body))
    throw new NotTheApiError({ ...init, answered: webPageSummary(res, body) });
  if (res.status >= 400 && res.status < 500)
    throw new RequestError({ ...init, detail: detailOf(parsed, body) });
  if (res.status >= 500) throw new ServerError(init);
  if (res.status < 200 || res.status >= 300) {
    throw shapeError(init, [{ path: [], message: `unexpected HTTP status ${res.status}` }]);
  }

  if (!parsed.ok) {
    throw shapeError(init, [
      { path: [], message: `the body is not JSON (${parsed.error}): ${snippet(body)}` },
    ]);
  }
  const envelope = envelopeSchema.safeParse(parsed.value);
  if (!envelope.success) throw shapeError(init, fromZodIssues(envelope.error.issues));

  // The parsed value is returned rather than zod's output, so every member the service sent stays.
  const original = parsed.value as Envelope;
  if (original.code !== 0) {
    throw new PlatformError({
      ...init,
      platformCode: original.code,
      platformMessage: original.msg === null ? null : redact(original.msg),
    });
  }
  if (original.data !== null) {
    const checked = dataSchema.safeParse(original.data);
    if (!checked.success) {
      const issues = fromZodIssues(checked.error.issues).map((i) => ({ ...i, path: ["data", ...i.path] }));
      throw shapeError(init, issues);
    }
  }
  const text = parsed.value === received.value ? body : null;
  return { envelope: original, data: original.data, traceId, text };
}

type Parsed = { ok: true; value: unknown } | { ok: false; value: undefined; error: string };

function parseJson(body: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (err) {
    return {
      ok: false,
      value: undefined,
      error: body.trim() === "" ? "empty" : (err as Error).message.split(",")[0]!,
    };
  }
}

function redactParsed(parsed: Parsed, body: string): Parsed {
  // Two plain searches: a fifth of the time of one pattern over a whole answer.
  if (!parsed.ok || !(body.includes("\\u") || body.includes("\\/"))) return parsed;
  return { ok: true, value: redactDeep(parsed.value) };
}

function traceIdOf(value: unknown): string | null {
  if (value && typeof value === "object" && "traceId" in value && typeof value.traceId === "string") {
    return value.traceId;
  }
  return null;
}

/** The service's own words about a refused request, when it gave any. */
function detailOf(parsed: Parsed, body: string): string | undefined {
  const v = parsed.value;
  if (v && typeof v === "object") {
    const msg = (v as Record<string, unknown>)["msg"] ?? (v as Record<string, unknown>)["message"];
    if (typeof msg === "string" && msg.trim() !== "") return snippet(msg);
  }
  return body.trim() === "" ? undefined : snippet(body);
}

/** An HTML page: the API answers JSON (or nothing), never markup. */
function isWebPage(res: HttpResponse, body: string): boolean {
  const type = String(res.headers["content-type"] ?? "");
  return (
    /text\/html|application\/xhtml/i.test(type) || /^\s*<(!doctype|html|head|body|title|h1)\b/i.test(body)
  );
}

/** `HTTP 501, text/html: "Error response"`: the status, the type and the page's title or first words. */
function webPageSummary(res: HttpResponse, body: string): string {
  const type = String(res.headers["content-type"] ?? "no content type").split(";")[0];
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1] ?? body.replace(/<[^>]*>/g, " ");
  return `HTTP ${res.status}, ${type}: "${snippet(title).slice(0, 80)}"`;
}

function snippet(text: string): string {
  const flat = redact(text).replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
}

function shapeError(init: { slug: string; status: number; traceId: string | null }, issues: Issue[]) {
  return new ResponseShapeError({
    ...init,
    issues: issues.map((i) => ({ ...i, message: redact(i.message) })),
  });
}
