/** What the runner benchmarks run: marketplace-search, one call per keyword, into a fresh warehouse. */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { SkillClient } from "../connectors/skill-api/client.js";
import { openWarehouse, type Warehouse } from "../connectors/warehouse/open.js";
import { dropReaderRole } from "../connectors/warehouse/postgres/reader.js";
import { DEMO_KEY } from "../emulator/index.js";
import { loadPipeline } from "../engine/define/pipeline-file.js";
import { type RunOptions, type RunSummary, runPipelines } from "../engine/run/runner.js";

export interface Workspace {
  /** The warehouse's URL, for other processes (workers). */
  url: string;
  warehouse: Warehouse;
  client: SkillClient;
  close(): Promise<void>;
}

/** A fresh warehouse (a SQLite file, or a Postgres schema of its own) and a client for `url`. */
export async function workspace(
  emulatorUrl: string,
  pgUrl?: string,
  clientOptions: { rate?: number } = {},
): Promise<Workspace> {
  let drop: () => Promise<void>;
  let url: string;
  if (pgUrl) {
    const schema = `bench_${randomBytes(5).toString("hex")}`;
    url = `${pgUrl}${pgUrl.includes("?") ? "&" : "?"}schema=${schema}`;
    drop = async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`drop schema if exists "${schema}" cascade`);
      await dropReaderRole(c, schema);
      // The workers' queue, when figure 5 made one (connectors/queue/work-queue.ts).
      await c.query(`drop schema if exists "${schema}_pgboss" cascade`);
      await c.end();
    };
  } else {
    const dir = mkdtempSync(join(tmpdir(), "skillsync-bench-"));
    url = join(dir, "bench.db");
    drop = async () => rmSync(dir, { recursive: true, force: true });
  }
  const warehouse = await openWarehouse(url);
  const client = new SkillClient({ baseUrl: emulatorUrl, apiKey: DEMO_KEY, ...clientOptions });
  return {
    url,
    warehouse,
    client,
    async close() {
      await client.close();
      await warehouse.close();
      await drop();
    },
  };
}

let serial = 0;

/** `n` keywords no earlier run of this process used. */
export function benchKeywords(n: number): string[] {
  const tag = `${process.pid}-${serial++}`;
  return Array.from({ length: n }, (_, i) => `bench ${tag} ${i}`);
}

/** `n` marketplace-search calls (distinct keywords, or these keywords; one page each) at concurrency `c`. */
export function marketplaceRun(
  ws: Workspace,
  n: number | string[],
  c: number,
  extra: Partial<RunOptions> = {},
): Promise<RunSummary> {
  const keyword = typeof n === "number" ? benchKeywords(n) : n;
  return runPipelines({
    warehouse: ws.warehouse,
    client: ws.client,
    pipelines: [loadPipeline("marketplace-search")],
    params: { keyword },
    concurrency: c,
    ...extra,
  });
}
