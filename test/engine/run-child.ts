// A run in a child process, so a test can kill it with SIGKILL at any moment, or run several at once
// as separate processes would. argv: <db url> <emulator url> <api key> [<spec JSON>]
import { SkillClient } from "../../connectors/skill-api/client.js";
import { openWarehouse } from "../../connectors/warehouse/open.js";
import { loadPipeline } from "../../engine/define/pipeline-file.js";
import { runPipelines } from "../../engine/run/runner.js";
import type { ChildSpec } from "./child.js";
import { CRASH_PARAMS, CRASH_PIPELINES } from "./crash-plan.js";

const [db, baseUrl, apiKey, specJson] = process.argv.slice(2);
const spec: ChildSpec = specJson
  ? (JSON.parse(specJson) as ChildSpec)
  : { pipelines: CRASH_PIPELINES, params: CRASH_PARAMS, concurrency: 4 };
// Processes spawned together take different times to load: a shared start time lines them up.
const { startAt } = spec;
if (startAt) await new Promise((r) => setTimeout(r, Math.max(0, startAt - Date.now())));
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
