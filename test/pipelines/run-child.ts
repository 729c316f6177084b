// A run in a child process, so a test can kill it with SIGKILL at any moment, or run several at once
// as separate processes would. argv: <db url> <emulator url> <api key> [<spec JSON>]
import { SkillClient } from "../../connectors/skill-api/client.js";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { loadPipeline } from "../../pipelines/engine/load.js";
import { runPipelines } from "../../pipelines/engine/runner.js";
import { CRASH_PARAMS, CRASH_PIPELINES } from "./crash-plan.js";

const [db, baseUrl, apiKey, specJson] = process.argv.slice(2);
const spec = specJson
  ? (JSON.parse(specJson) as { pipelines: string[]; params: Record<string, string[]>; concurrency: number })
  : { pipelines: CRASH_PIPELINES, params: CRASH_PARAMS, concurrency: 4 };
const client = new SkillClient({ baseUrl, apiKey });
const warehouse = await openWarehouse(db);
process.stdout.write("started\n");
const s = await runPipelines({
  warehouse,
  client,
  pipelines: spec.pipelines.map((p) => loadPipeline(p)),
  params: spec.params,
  concurrency: spec.concurrency,
});
process.stdout.write(
  `${JSON.stringify({ status: s.status, resumed: s.resumed, stopReason: s.stopReason })}\n`,
);
await warehouse.close();
await client.close();
