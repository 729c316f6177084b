import { ConfigurationError } from "../../../core/errors.js";
import { connectionErrorCode, isLoginRefused, isMissingDatabase } from "../driver-errors.js";
import { describeWarehouse, URL_SETTING, type WarehouseTarget } from "../url.js";
import { PostgresConnectError } from "./connect.js";

const NETWORK: Record<string, string> = {
  ECONNREFUSED: "connection refused: no server listens there. Start Postgres, or fix the host and port",
  ENOTFOUND: "no such host. Fix the host name",
  EAI_AGAIN: "the host name could not be resolved now. Check DNS, or use an IP address",
  ETIMEDOUT: "the connection timed out. Check the host, the port and any firewall",
  EHOSTUNREACH: "the host is unreachable. Check the host and the network",
  ECONNRESET: "the server closed the connection. Check that the port is Postgres's",
};

/**
 * What opening the Postgres warehouse the user configured ran into, as a configuration error
 * (exit 2) that says what was tried (the address, password masked), which setting named it and
 * what to do — or the error itself when it is not about reaching or opening the warehouse.
 */
export function openFailure(err: unknown, target: Extract<WarehouseTarget, { kind: "postgres" }>): unknown {
  const at = describeWarehouse(target);
  if (isMissingDatabase(err))
    return new ConfigurationError(`no database at ${at}: create it (createdb) or fix ${URL_SETTING}`, {
      cause: err,
    });
  if (isLoginRefused(err)) {
    const reason = err instanceof Error ? err.message : String(err);
    return new ConfigurationError(
      `Postgres at ${at} refused the login: ${reason}. Fix the user and password in ${URL_SETTING}, or create the role (createuser)`,
      { cause: err },
    );
  }
  if (err instanceof PostgresConnectError) return notPostgres(err, at);
  const net = NETWORK[connectionErrorCode(err)];
  if (net)
    return new ConfigurationError(`cannot reach Postgres at ${at}: ${net} in ${URL_SETTING}`, { cause: err });
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
    `cannot reach Postgres at ${at}: ${what}. Check the host and port in ${URL_SETTING} (Postgres listens on 5432 unless set otherwise)`,
    { cause: err },
  );
}
