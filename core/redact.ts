/**
 * Secrets must never reach a log, an error, a table or a file. Everything that prints or stores
 * text a user gave us goes through `redact`, which replaces every registered secret.
 */
const secrets = new Set<string>();

/** Registers a secret (API key, server secret, Google key material). Short values are ignored: they would mask ordinary text. */
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= 8) secrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const s of secrets) {
    if (out.includes(s)) out = out.split(s).join("[redacted]");
  }
  // The look first: answers are tens of KiB and almost never hold the word.
  return out.includes("Bearer") ? out.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g, "$1[redacted]") : out;
}

/** Enough text held back for a `Bearer` token split between pieces to be seen whole. */
const TOKEN_TAIL = 128;

/**
 * `redact` over text that arrives in pieces (a streamed report part). Text is given out up to a
 * line break at least a secret's length (plus a token's) before the end of what has arrived; the
 * rest waits for the next piece, so a secret split across two pieces is still seen whole. A
 * single line longer than that is cut where the hold-back begins. `end()` gives what is left.
 *
 * @example const r = redactPieces(); r.push("1,sk-li") + r.push("ve-0123456789\n") + r.end()
 */
export function redactPieces(): { push(piece: string): string; end(): string } {
  const hold = Math.max(0, ...[...secrets].map((s) => s.length)) + TOKEN_TAIL;
  let pending = "";
  return {
    push(piece) {
      pending += piece;
      const limit = pending.length - hold;
      if (limit <= 0) return "";
      const line = pending.lastIndexOf("\n", limit);
      const cut = line > 0 ? line + 1 : limit;
      const out = redact(pending.slice(0, cut));
      pending = pending.slice(cut);
      return out;
    },
    end() {
      const out = redact(pending);
      pending = "";
      return out;
    },
  };
}

/**
 * Redacts every string inside a parsed JSON value (keys too); returns the value itself when
 * nothing had to change, so the common case allocates nothing.
 *
 * @example redactDeep({ traceId: "Bearer sk-live-0123456789" }) // { traceId: "Bearer [redacted]" }
 */
export function redactDeep<T>(value: T): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((v, i) => {
      const r = redactDeep(v);
      if (r !== v) {
        out ??= [...value];
        out[i] = r;
      }
    });
    return (out ?? value) as T;
  }
  if (value && typeof value === "object") {
    let changed = false;
    const entries = Object.entries(value).map(([k, v]) => {
      const rk = redact(k);
      const rv = redactDeep(v);
      if (rk !== k || rv !== v) changed = true;
      return [rk, rv] as const;
    });
    return (changed ? Object.fromEntries(entries) : value) as T;
  }
  return value;
}
