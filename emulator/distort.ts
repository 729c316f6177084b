import type { Operation } from "../schema/catalog.js";
import { Rng } from "./random.js";

// Members a drifted answer never nulls: identities a pipeline keys on, and members the data schemas require.
const KEEP = new Set([
  "asin",
  "pn",
  "patentId",
  "publicationNumber",
  "position",
  "documentToken",
  "reportId",
  "results",
]);

/**
 * Schema drift, as providers ship it without notice: unknown extra members (top level and in
 * records) and nulls in optional members. The result still passes the operation's data schema.
 */
export function applyDrift(
  data: Record<string, unknown>,
  op: Operation,
  seed: number,
): Record<string, unknown> {
  const rng = new Rng(seed);
  const out: Record<string, unknown> = {
    ...data,
    sourceTool: null,
    costTime: null,
    schemaRevision: `2026-${String(rng.int(1, 12)).padStart(2, "0")}`,
    upstreamMeta: { provider: "emulated", cacheHit: rng.chance(0.5), region: null },
  };
  const path = op.recordsPath;
  const records = path ? out[path] : undefined;
  if (path && Array.isArray(records)) {
    out[path] = records.map((r: unknown) => {
      if (r === null || typeof r !== "object") return r;
      const record: Record<string, unknown> = {
        ...(r as Record<string, unknown>),
        driftScore: rng.decimal(0, 1, 3),
      };
      const nullable = Object.keys(record).filter(
        (k) => !KEEP.has(k) && record[k] !== null && k !== "driftScore",
      );
      for (const key of rng.sample(nullable, 2)) record[key] = null;
      return record;
    });
  }
  return out;
}

/** A broken answer: truncated JSON, an HTML error page, or JSON that is not the envelope. */
export function malformedBody(
  envelopeText: string,
  data: unknown,
  variant: number,
): { body: string; contentType: string } {
  if (variant === 0)
    return {
      body: envelopeText.slice(0, Math.max(1, Math.floor(envelopeText.length / 2))),
      contentType: "application/json; charset=utf-8",
    };
  if (variant === 1) {
    return {
      body: "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>",
      contentType: "text/html; charset=utf-8",
    };
  }
  return {
    body: JSON.stringify({ status: "ok", result: data }),
    contentType: "application/json; charset=utf-8",
  };
}
