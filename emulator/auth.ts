import type { Family } from "../schema/catalog.js";
import type { EmulatorKey } from "./options.js";

/** One configured key: what it may not call and what it has left to spend. */
export interface Account {
  /** Position in the configured key list; the ledger and logs use this, never the key. */
  index: number;
  deny: ReadonlySet<Family>;
  /** Remaining credits; Infinity when unlimited. */
  balance: number;
}

export type AuthResult = { ok: true; account: Account } | { ok: false; status: 401; msg: string };

/**
 * The keys the emulator accepts (contract 5): `Authorization: Bearer <key>`. Balances start from
 * the configured values and are restored by reset().
 */
export class KeyRing {
  private readonly accounts = new Map<string, Account>();

  constructor(private readonly keys: readonly EmulatorKey[]) {
    this.reset();
  }

  authenticate(header: string | undefined): AuthResult {
    if (!header)
      return { ok: false, status: 401, msg: "missing Authorization header (expected: Bearer <API key>)" };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return { ok: false, status: 401, msg: "Authorization header must be: Bearer <API key>" };
    const account = this.accounts.get(match[1] as string);
    if (!account) return { ok: false, status: 401, msg: "API key is invalid or not matched to a user" };
    return { ok: true, account };
  }

  reset(): void {
    this.accounts.clear();
    this.keys.forEach((k, index) => {
      this.accounts.set(k.key, {
        index,
        deny: new Set(k.deny ?? []),
        balance: k.balance ?? Number.POSITIVE_INFINITY,
      });
    });
  }
}
