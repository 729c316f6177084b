import { existsSync, statSync } from "node:fs";
import { readKeyFile, sheetsConfigFromEnv } from "../../connectors/sheets/google-auth.js";
import { resolveConfig } from "../../connectors/skill-api/client-config.js";
import { probeApi } from "../../connectors/skill-api/probe.js";
import { openWarehouse, type Warehouse } from "../../connectors/warehouse/open.js";
import { postJson } from "../../connectors/webhook/post.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { type NotifyTarget, notifyFromFlag, uniqueTargets } from "../../engine/notify/config.js";
import { DEFAULT_SCHEDULE_DIR, loadSchedules, yamlFilesIn } from "../../scheduler/load.js";
import { pendingMigrations } from "../../store/migrate.js";
import { readerMissing } from "../../store/reader-login.js";

/**
 * A key file's JSON. V8's parse error quotes the text around the fault, which in a key file is
 * the private key: say only where the file stops being JSON.
 */
function keyFileJson(path: string): Record<string, unknown> {
  const text = readKeyFile(path);
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${path} is not JSON (a service account key file is JSON); its content is not shown`);
  }
}

/** One line of `doctor`: what was checked, whether it passed, and what to do when it did not. */
export interface Check {
  check: string;
  ok: boolean;
  detail: string;
  fix?: string | undefined;
  /** Passed, with something worth knowing that needs nothing done (a new warehouse's migrations). */
  note?: true;
  /** Failed, yet no run is stopped by it (a webhook that refuses: runs go on, deliveries retry). */
  runsAnyway?: true;
}

const pass = (check: string, detail: string): Check => ({ check, ok: true, detail });
const note = (check: string, detail: string): Check => ({ check, ok: true, detail, note: true });
const fail = (check: string, detail: string, fix: string): Check => ({ check, ok: false, detail, fix });
const warn = (check: string, detail: string, fix: string): Check => ({
  ...fail(check, detail, fix),
  runsAnyway: true,
});

/** Whether a check would stop a run: only those decide doctor's exit code. */
export const stopsRun = (c: Check): boolean => !c.ok && !c.runsAnyway;
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The API answers and accepts the key, found out without a paid call (probe.ts says how). */
export async function checkApi(baseUrl: string | undefined): Promise<Check[]> {
  let config: ReturnType<typeof resolveConfig>;
  try {
    config = resolveConfig({ baseUrl });
  } catch (err) {
    return [fail("api", message(err), "set SKILL_API_BASE_URL (or --base-url) and SKILL_API_KEY")];
  }
  const p = await probeApi(config);
  const where = `${config.baseUrl} (--base-url or SKILL_API_BASE_URL)`;
  if (!p.reachable)
    return [fail("api", `${where} is unreachable: ${p.detail}`, "check the address, and that the API is up")];
  const reached = pass("api", `${where} answers`);
  if (p.keyAccepted === false)
    return [reached, fail("api key", `SKILL_API_KEY refused: ${p.detail}`, "set the key your account shows")];
  // Not known to be refused: a run may well go through.
  if (p.keyAccepted === undefined)
    return [reached, warn("api key", p.detail, "try a small paid run (skillsync run … --max-credits 1)")];
  return [reached, pass("api key", `SKILL_API_KEY accepted (${p.detail}; nothing is billed)`)];
}

/** The warehouse opens (read-only: doctor changes nothing), is migrated, and has its reader. */
export async function checkWarehouse(url: string | undefined): Promise<Check[]> {
  let w: Warehouse;
  try {
    w = await openWarehouse(url, { readOnly: true });
  } catch (err) {
    return [fail("warehouse", message(err), "fix --db or DATABASE_URL")];
  }
  try {
    const out = [pass("warehouse", `${w.description} opens`)];
    const pending = await pendingMigrations(w);
    out.push(pending.length ? migrationsNote(pending, await isNew(w)) : pass("migrations", "current"));
    if (w.adapter.loginRoles && !pending.length) {
      const missing = await readerMissing(w).catch((err: unknown) => message(err));
      out.push(
        missing
          ? fail(
              "read role",
              missing,
              "run `skillsync migrate` as a role with CREATEROLE (docs/read-only.md)",
            )
          : pass("read role", "read paths log in as a role that can only read"),
      );
    }
    return out;
  } finally {
    await w.close();
  }
}

/** Every run migrates the warehouse first: pending migrations are what a new set-up has, not a fault. */
function migrationsNote(pending: string[], fresh: boolean): Check {
  if (fresh)
    return note(
      "migrations",
      `a new warehouse: its ${pending.length} migrations are applied at the first run (or \`skillsync migrate\`)`,
    );
  const names = pending.length > 3 ? `${pending.slice(0, 3).join(", ")}, …` : pending.join(", ");
  return note(
    "migrations",
    `${pending.length} pending (${names}): applied at the next run (or \`skillsync migrate\`)`,
  );
}

/** A warehouse no migration has touched yet (none of the toolkit's tables is there). */
async function isNew(w: Warehouse): Promise<boolean> {
  const catalog = await w.adapter.readCatalog(w.db);
  return ![...catalog.columns.keys()].some((t) => t.startsWith("skillsync_"));
}

/**
 * Pipeline files (the arguments, else ./pipelines) and their schedules parse; the webhooks their
 * schedules notify come back to be tried.
 */
export function checkPipelines(refs: string[]): { checks: Check[]; webhooks: NotifyTarget[] } {
  const isDir = (ref: string) => existsSync(ref) && statSync(ref).isDirectory();
  const targets = refs.length ? refs : isDir(DEFAULT_SCHEDULE_DIR) ? [DEFAULT_SCHEDULE_DIR] : [];
  const files = targets.flatMap((ref) => (isDir(ref) ? yamlFilesIn(ref) : [ref]));
  if (!files.length)
    return {
      checks: [pass("pipelines", "no pipeline files given and no ./pipelines folder (built-ins only)")],
      webhooks: [],
    };
  const bad: Check[] = [];
  const webhooks: NotifyTarget[] = [];
  let scheduled = 0;
  for (const file of files) {
    try {
      if (!loadPipeline(file).schedule) continue;
      const schedules = loadSchedules([file]);
      scheduled += schedules.length;
      webhooks.push(...schedules.flatMap((s) => s.notify ?? []));
    } catch (err) {
      bad.push(fail("pipelines", message(err), "fix the file at the line named"));
    }
  }
  const checks = bad.length
    ? bad
    : [pass("pipelines", `${files.length} file(s) parse, ${scheduled} with a schedule`)];
  return { checks, webhooks };
}

/** Sheets credentials, when configured: a token, or a key file that reads as one. */
export function checkSheets(): Check[] {
  const config = sheetsConfigFromEnv();
  if (!config) return [];
  const c = config.credentials;
  if (!("keyFile" in c)) return [pass("sheets", "an access token is set (SKILLSYNC_SHEETS_ACCESS_TOKEN)")];
  try {
    const key = keyFileJson(c.keyFile);
    const missing = ["type", "client_email", "private_key"].filter((k) => typeof key[k] !== "string");
    if (!missing.length)
      return [pass("sheets", `${String(key["client_email"])} (GOOGLE_APPLICATION_CREDENTIALS)`)];
    return [
      fail("sheets", `${c.keyFile} lacks ${missing.join(", ")}`, "download a service account key (JSON)"),
    ];
  } catch (err) {
    return [
      fail("sheets", `GOOGLE_APPLICATION_CREDENTIALS: ${message(err)}`, "point it at a readable key file"),
    ];
  }
}

/** The webhooks of `--notify` or SKILLSYNC_NOTIFY_URL and of schedule files (`schedule.notify`). */
export function configuredWebhooks(
  flag: string | undefined,
  fromFiles: NotifyTarget[],
): NotifyTarget[] | Check {
  try {
    return uniqueTargets([...notifyFromFlag(flag), ...fromFiles]);
  } catch (err) {
    return warn("notify", message(err), "give the webhook's http(s) address");
  }
}

/**
 * Each configured webhook gets the harmless test event. One that refuses stops no run (a run's
 * events wait in the outbox and are tried again), so it is a warning, not a failure.
 */
export async function checkNotify(webhooks: NotifyTarget[]): Promise<Check[]> {
  const out: Check[] = [];
  for (const t of webhooks) {
    // The same POST as every delivery (connectors/webhook): its errors never hold the URL's token.
    const r = await postJson(
      t.url,
      { text: "skillsync doctor: test notification", event: { kind: "doctor" } },
      { timeoutMs: 5000 },
    );
    out.push(
      r.ok
        ? pass("notify", `the webhook of ${t.from} accepted a test event (HTTP ${r.status})`)
        : warn(
            "notify",
            `the webhook of ${t.from} did not accept a test event: ${r.error}`,
            "check the webhook URL",
          ),
    );
  }
  return out;
}
