// One run in its own process, as `skillsync run` would be, so a test can SIGKILL it at any moment or
// run several at once. argv: <spec JSON>; the API key comes in SKILL_API_KEY, as for the CLI.
import { SkillClient } from "../../../connectors/skill-api/client.js";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { type ChildSpec, pipelinesOf, pricesOf } from "./child-spec.js";

const spec = JSON.parse(process.argv[2]!) as ChildSpec;
const client = new SkillClient({
  baseUrl: spec.baseUrl,
  retryBaseDelayMs: 5,
  maxRetryDelayMs: 50,
  ...(spec.headersTimeoutMs ? { headersTimeoutMs: spec.headersTimeoutMs } : {}),
});
// Processes spawned together take different times to load: a shared start time lines them up.
if (spec.startAt) await new Promise((r) => setTimeout(r, Math.max(0, spec.startAt! - Date.now())));
const warehouse = await openWarehouse(spec.db);
process.stdout.write("started\n");
const s = await runPipelines({
  warehouse,
  client,
  pipelines: pipelinesOf(spec),
  params: spec.params,
  concurrency: spec.concurrency,
  maxCredits: spec.maxCredits,
  prices: pricesOf(spec),
  refresh: spec.refresh,
  onStart: () => process.stdout.write("run\n"),
});
process.stdout.write(
  `${JSON.stringify({ status: s.status, resumed: s.resumed, stopReason: s.stopReason, credits: s.counters.creditsSpent, shared: s.counters.callsShared })}\n`,
);
await warehouse.close();
await client.close();
