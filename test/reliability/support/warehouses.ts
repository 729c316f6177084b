import { randomBytes } from "node:crypto";
import { SUITE_TAG, suitePath } from "./suite.js";

/** The machine's Postgres (CI sets it); without it the Postgres parts are skipped, visibly. */
export const PG_URL = process.env["SKILLSYNC_TEST_POSTGRES_URL"];
export type Kind = "sqlite" | "postgres";
export const KINDS: Kind[] = ["sqlite", "postgres"];

let warned = false;
/** For `describe.skipIf`: says once, loudly, that the Postgres parts are skipped. */
export function unavailable(kind: Kind): boolean {
  if (kind === "postgres" && !PG_URL && !warned) {
    warned = true;
    console.warn(
      "SKILLSYNC_TEST_POSTGRES_URL is not set: the Postgres parts of the reliability suite are SKIPPED",
    );
  }
  return kind === "postgres" && !PG_URL;
}

/**
 * A fresh warehouse URL that lives until the end of the suite (the teardown scans it for secrets,
 * then removes it): a SQLite file in the suite folder, or a Postgres schema `rel_<tag>_…`.
 */
export function suiteWarehouse(kind: Kind, label: string): string {
  const id = `${label.replace(/[^a-z0-9]/gi, "_").toLowerCase()}_${randomBytes(4).toString("hex")}`;
  if (kind === "sqlite") return suitePath("db", `${id}.db`);
  const sep = PG_URL!.includes("?") ? "&" : "?";
  return `${PG_URL}${sep}schema=rel_${SUITE_TAG}_${id}`;
}
