import type { z } from "zod";
import type { DocumentedOperations } from "../../schema/catalog.js";
import type { Envelope } from "../../schema/envelope.js";

/**
 * Request and response types of the 23 documented operations, inferred from the catalog
 * (`schema/catalog.ts`): `input`, what a caller may pass; `body`, what is sent (defaults applied);
 * `data`, the response's `data`.
 */
type SkillTypes = {
  [S in keyof DocumentedOperations]: {
    input: z.input<DocumentedOperations[S]["request"]>;
    body: z.output<DocumentedOperations[S]["request"]>;
    data: z.infer<DocumentedOperations[S]["data"]>;
  };
};

export type DocumentedSlug = keyof SkillTypes;

type GenericObject = Record<string, unknown>;
/** A documented slug gets its inferred types; any other slug of the catalog a plain JSON object. */
export type InputOf<S extends string> = S extends DocumentedSlug ? SkillTypes[S]["input"] : GenericObject;
export type BodyOf<S extends string> = S extends DocumentedSlug ? SkillTypes[S]["body"] : GenericObject;
export type DataOf<S extends string> = S extends DocumentedSlug ? SkillTypes[S]["data"] : GenericObject;

/** A request that passed validation and can be sent as is. */
export interface PreparedCall<S extends string = string> {
  readonly slug: S;
  readonly body: BodyOf<S>;
}

export interface CallResult<S extends string = string> {
  slug: S;
  /** The envelope's `data` exactly as received (null when the service sent null). */
  data: DataOf<S> | null;
  envelope: Envelope<DataOf<S>>;
  /**
   * The answer's body as received (secrets redacted), the JSON of `envelope`: what a store keeps
   * without writing it out again. Null when a secret behind JSON escapes had to be redacted.
   */
  text: string | null;
  status: number;
  traceId: string | null;
  /** Wall time of the whole call, retries and waits included. */
  elapsedMs: number;
  /** HTTP requests made (1 when nothing was retried). */
  attempts: number;
}

export interface RetryInfo {
  slug: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** The wait before the next attempt. */
  delayMs: number;
  reason: "rate-limited" | "connect-failed";
  error: Error;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Called for each 429 the call meets (it waits and goes again: docs/rate-limits.md). */
  onRateLimited?: (() => void) | undefined;
  /** The skill's own known rate limit (calls per second, a price file's `rateLimit`): paced below it. */
  rateLimit?: number | undefined;
}
