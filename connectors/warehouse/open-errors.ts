import { statSync } from "node:fs";
import { ConfigurationError } from "../../core/errors.js";
import { connectionErrorCode, isCannotOpen, isLoginRefused, isMissingDatabase } from "./driver-errors.js";
import { PostgresConnectError } from "./postgres/connect.js";
import { describeWarehouse, type WarehouseTarget } from "./url.js";

/** Where every message below says the warehouse came from: the flag, else the variable. */
const WHERE = "--db (or DATABASE_URL)";

const NETWORK: Record<string, string> = {
  ECONNREFUSED: "connection refused: no server listens there. Start Postgres, or fix the host and port",
  ENOTFOUND: "no such host. Fix the host name",
  EAI_AGAIN: "the host name could not be resolved now. Check DNS, or use an IP address",
  ETIMEDOUT: "the connection timed out. Check the host, the port and any firewall",
  EHOSTUNREACH: "the host is unreachable. Check the host and the network",
  ECONNRESET: "the server closed the connection. Check that the port is Postgres's",
};

/**
 * What opening the warehouse the user configured ran into, as a configuration error (exit 2) that
 * says what was tried (the address, password masked), which setting named it and what to do — or
 * the error itself when it is not about reaching or opening the warehouse.
 */
export function openFailure(err: unknown, target: WarehouseTarget): unknown {
  const at = describeWarehouse(target);
  if (target.kind === "sqlite") {
    if (!isCannotOpen(err)) return err;
    return new ConfigurationError(
      `cannot open the SQLite warehouse ${at}: ${sqliteWhy(target.path)}; fix ${WHERE}`,
      {
        cause: err,
      },
    );
  }
  if (isMissingDatabase(err))
    return new ConfigurationError(`no database at ${at}: create it (createdb) or fix ${WHERE}`, {
      cause: err,
    });
  if (isLoginRefused(err)) {
    const reason = err instanceof Error ? err.message : String(err);
    return new ConfigurationError(
      `Postgres at ${at} refused the login: ${reason}. Fix the user and password in ${WHERE}, or create the role (createuser)`,
      { cause: err },
    );
  }
  if (err instanceof PostgresConnectError) return notPostgres(err, at);
  const net = NETWORK[connectionErrorCode(err)];
  if (net)
    return new ConfigurationError(`cannot reach Postgres at ${at}: ${net} in ${WHERE}`, { cause: err });
  return err;
}

/** A server that took the connection but did not answer as Postgres: silent, or something else. */
function notPostgres(err: PostgresConnectError, at: string): ConfigurationError {
  const seconds = err.timeoutMs / 1000;
  const what =
    err.answered === undefined
      ? `the server took the connection but sent nothing within ${seconds} s (a server that is not Postgres, or a firewall)`
      : `what answered there is not Postgres: it sent "${err.answered.slice(0, 60)}"`;
  return new ConfigurationError(
    `cannot reach Postgres at ${at}: ${what}. Check the host and port in ${WHERE} (Postgres listens on 5432 unless set otherwise)`,
    { cause: err },
  );
}

function sqliteWhy(path: string): string {
  try {
    if (statSync(path).isDirectory()) return "it is a folder; give a file path such as ./skillsync.db";
    return "the file cannot be opened for reading and writing (check its permissions)";
  } catch {
    return "its folder cannot be created or written (check the path and permissions)";
  }
}
