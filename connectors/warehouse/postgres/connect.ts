import pg from "pg";

/**
 * How long opening one Postgres connection may take, TCP connect and startup (login) together,
 * unless the URL says otherwise (docs/postgres.md). Without it a server that accepts connections but never speaks Postgres (a
 * Redis on 6379, a firewall that swallows packets) leaves every command waiting for ever.
 */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The connect time-out of a connection string: libpq's `connect_timeout` (seconds) when the URL
 * gives one, as psql and every libpq client read it, else CONNECT_TIMEOUT_MS.
 *
 * @example connectTimeoutMs("postgres://db.example/w?connect_timeout=30") // 30000
 */
export function connectTimeoutMs(connectionString: string | undefined): number {
  let given: string | null = null;
  try {
    given = connectionString ? new URL(connectionString).searchParams.get("connect_timeout") : null;
  } catch {
    // Not a URL (a key=value string): the default holds.
  }
  const seconds = given === null ? Number.NaN : Number(given);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : CONNECT_TIMEOUT_MS;
}

/** The first byte of every answer Postgres gives a startup message: authentication, error, notice, SSL yes/no, protocol version. */
const POSTGRES_FIRST_BYTES = new Set(["R", "E", "N", "S", "v"]);

/**
 * Opening a connection failed before Postgres answered as Postgres: nothing answered within
 * CONNECT_TIMEOUT_MS, or something else did (`answered`: its first bytes, printable).
 */
export class PostgresConnectError extends Error {
  constructor(
    readonly answered: string | undefined,
    cause: unknown,
    /** The time-out the connection had. */
    readonly timeoutMs: number,
  ) {
    super(answered === undefined ? "no answer" : "not a Postgres server", { cause });
  }
}

/**
 * The pg client of every warehouse connection: its connecting is bounded by CONNECT_TIMEOUT_MS,
 * and it remembers the first bytes the server sent, so a failure can say what answered. Errors
 * Postgres itself reported (a SQLSTATE: no such database, login refused) pass through.
 */
export class BoundedClient extends pg.Client {
  private first: Buffer | undefined;
  private readonly timeoutMs: number;

  constructor(config: pg.ClientConfig = {}) {
    const timeoutMs = connectTimeoutMs(config.connectionString);
    super({ ...config, connectionTimeoutMillis: timeoutMs });
    this.timeoutMs = timeoutMs;
    this.connection.stream.once("data", (chunk: Buffer) => {
      this.first = chunk.subarray(0, 120);
    });
    // The server ending a session held between two statements (a transaction's client, checked
    // out of the pool) emits "error" with no one listening: unheard, it ends the process. Heard
    // here, the next statement on it fails instead ("not queryable"), where the run says so.
    this.on("error", () => {});
  }

  // Both forms pg has: the pool connects with a callback, the rest of the code awaits.
  override connect(): Promise<pg.Client>;
  override connect(callback: (err: Error) => void): void;
  override connect(callback?: (err: Error) => void): Promise<pg.Client> | undefined {
    if (!callback) return super.connect().catch((err: Error) => Promise.reject(this.explain(err)));
    super.connect((err: Error) => callback(err && this.explain(err)));
    return undefined;
  }

  private explain(err: Error): Error {
    if (err && typeof err === "object" && "code" in err && /^[0-9A-Z]{5}$/.test(String(err.code))) return err;
    const first = this.first;
    if (first && POSTGRES_FIRST_BYTES.has(String.fromCharCode(first[0]!)) && !timedOut(err)) return err;
    if (!first && !timedOut(err)) return err;
    return new PostgresConnectError(first && printable(first), err, this.timeoutMs);
  }
}

function timedOut(err: unknown): boolean {
  return err instanceof Error && /timeout expired|connection timeout/i.test(err.message);
}

/** Bytes as text a person can read: line breaks as spaces, other control and non-ASCII bytes as dots. */
function printable(bytes: Buffer): string {
  return bytes
    .toString("latin1")
    .replace(/[\r\n\t]+/g, " ")
    .replace(/[^\x20-\x7e]/g, ".")
    .trim();
}
