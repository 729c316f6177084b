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
  return out.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g, "$1[redacted]");
}
