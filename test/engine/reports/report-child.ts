// A report run in a child process, polling slowly, so a test can SIGKILL it mid-poll.
// argv: <db url> <emulator url> <api key>
import { SkillClient } from "../../../connectors/skill-api/client.js";
import { openWarehouse } from "../../../connectors/warehouse/open.js";
import { runPipelines } from "../../../engine/run/runner.js";
import { fast, RANGE } from "./helpers.js";

const [db, baseUrl, apiKey] = process.argv.slice(2);
const client = new SkillClient({ baseUrl, apiKey });
const warehouse = await openWarehouse(db);
const pipeline = fast("ads-sp-search-impression-share", { initial: "40ms", max: "40ms", timeout: "60s" });
process.stdout.write("started\n");
const s = await runPipelines({
  warehouse,
  client,
  pipelines: [pipeline],
  params: { connection: ["5"], ...RANGE },
});
process.stdout.write(`${JSON.stringify({ status: s.status })}\n`);
await warehouse.close();
await client.close();
