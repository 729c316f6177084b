import type { Command } from "commander";
import { SkillClient } from "../../connectors/skill-api/client.js";
import type { RetryInfo } from "../../connectors/skill-api/types.js";
import { redact } from "../../core/redact.js";
import { readJsonBody } from "../json-input.js";
import { printJson } from "../output.js";

interface CallCommandOptions {
  body?: string | undefined;
  bodyFile?: string | undefined;
  baseUrl?: string | undefined;
}

/**
 * Makes one call and prints the envelope's `data` as JSON. The body is parsed and validated
 * before anything is sent, so a mistake costs nothing (exit 2).
 *
 * @example
 * await main(["call", "websearch-patent-search", "--body", '{"q":"drone"}']); // stdout: {"results":[…]}
 */
async function runCall(slug: string, opts: CallCommandOptions): Promise<void> {
  const body = await readJsonBody(opts);
  const client = new SkillClient({ baseUrl: opts.baseUrl, onRetry: reportRetry });
  try {
    const result = await client.send(client.prepare(slug, body));
    printJson(result.data);
  } finally {
    await client.close();
  }
}

function reportRetry(info: RetryInfo): void {
  const why = info.reason === "rate-limited" ? "rate limited" : "could not connect (nothing was sent)";
  const wait = (info.delayMs / 1000).toFixed(1);
  process.stderr.write(
    redact(`skillsync: ${info.slug}: ${why}; retrying in ${wait} s (attempt ${info.attempt + 1})\n`),
  );
}

export function registerCallCommand(program: Command): void {
  program
    .command("call")
    .description("make one call to an operation and print the response data as JSON")
    .argument("<slug>", "operation slug, e.g. websearch-patent-search")
    .option("--body <json>", "the request body as JSON text")
    .option("--body-file <path>", "a file holding the request body as JSON")
    .option("--base-url <url>", "the Skill API base URL (default: SKILL_API_BASE_URL)")
    .action((slug: string, opts: CallCommandOptions) => runCall(slug, opts));
}
