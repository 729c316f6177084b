import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A one-time sign-in link is good for this long after it is printed. */
const LINK_TTL_MS = 15 * 60_000;
/** A session ends after this long without a request. */
const SESSION_IDLE_MS = 12 * 60 * 60_000;
/** Sessions kept at most; the least recently used goes first (a loop of sign-ins cannot fill memory). */
const MAX_SESSIONS = 1_000;
/** Sign-ins with the server secret per minute, whatever the outcome: guessing is not a way in. */
const SECRET_TRIES_PER_MINUTE = 10;

export interface Session {
  /** Sent back with every write (the form's `csrf`): a page of another site cannot know it. */
  csrf: string;
  lastSeen: number;
}

const token = () => randomBytes(32).toString("base64url");
// Only hashes are kept: a heap dump or a log of this map gives no way in.
const digest = (s: string) => createHash("sha256").update(s).digest("hex");

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(digest(a));
  const y = Buffer.from(digest(b));
  return timingSafeEqual(x, y);
}

/**
 * The console's sign-ins and sessions, in this server's memory: a one-time link (printed at start,
 * as notebook servers do) or the server secret opens a session; its id travels only in an HttpOnly
 * cookie, and each session has its own CSRF token. A restart signs everyone out.
 */
export class ConsoleSessions {
  private readonly links = new Map<string, number>();
  private readonly sessions = new Map<string, Session>();
  private secretTries: number[] = [];

  constructor(
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new one-time link token, good for 15 minutes. */
  issueLink(): string {
    const t = token();
    this.links.set(digest(t), this.now() + LINK_TTL_MS);
    return t;
  }

  /** A session id for a link token used for the first time within its time; undefined otherwise. */
  redeemLink(t: string): string | undefined {
    const key = digest(t);
    const until = this.links.get(key);
    this.links.delete(key);
    if (until === undefined || this.now() > until) return undefined;
    return this.open();
  }

  /** A session id for the server secret; "busy" when too many tries came this minute. */
  signInWithSecret(given: string): string | "busy" | undefined {
    const now = this.now();
    this.secretTries = this.secretTries.filter((t) => now - t < 60_000);
    if (this.secretTries.length >= SECRET_TRIES_PER_MINUTE) return "busy";
    this.secretTries.push(now);
    return sameText(given, this.secret) ? this.open() : undefined;
  }

  /** The live session a cookie's id names (its idle time restarts), or undefined. */
  get(id: string | undefined): Session | undefined {
    if (!id) return undefined;
    const key = digest(id);
    const s = this.sessions.get(key);
    if (!s) return undefined;
    if (this.now() - s.lastSeen > SESSION_IDLE_MS) {
      this.sessions.delete(key);
      return undefined;
    }
    s.lastSeen = this.now();
    // Re-inserted: the map's order is the eviction order.
    this.sessions.delete(key);
    this.sessions.set(key, s);
    return s;
  }

  end(id: string | undefined): void {
    if (id) this.sessions.delete(digest(id));
  }

  /** Whether a form's CSRF token is the session's. */
  csrfMatches(s: Session, given: string | undefined): boolean {
    return given !== undefined && sameText(given, s.csrf);
  }

  private open(): string {
    const id = token();
    this.sessions.set(digest(id), { csrf: token(), lastSeen: this.now() });
    while (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    return id;
  }
}
