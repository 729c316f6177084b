/**
 * Times README's first `npx skillsync …` command as a new user meets it, right after `npm ci` in a
 * clean clone: `node --import tsx scripts/first-command.ts [--limit SECONDS]` (default 3). Exit 1
 * when the command fails, has not ended after two minutes (then it is killed), or takes longer
 * than the limit in three tries. Each try gives npx a cache folder of its own, so no earlier
 * `npx skillsync` in this folder can hide a slow first one (npm 11 installs the folder into that
 * cache on the first call).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const KILL_AFTER_MS = 120_000;

/** The first `npx skillsync` line of README's sh blocks, without its trailing `# comment`. */
function firstReadmeCommand(readme: string): string {
  let inSh = false;
  for (const line of readme.split("\n")) {
    if (line.startsWith("```")) inSh = !inSh && line.trim() === "```sh";
    else if (inSh && line.startsWith("npx skillsync ")) return line.replace(/\s+#\s.*$/, "").trim();
  }
  throw new Error("README.md has no `npx skillsync` line in a ```sh block");
}

interface Timed {
  code: number | null;
  seconds: number;
  output: string;
  killed: boolean;
}

async function timed(command: string, env: NodeJS.ProcessEnv): Promise<Timed> {
  const started = performance.now();
  const child = spawn("sh", ["-c", command], { cwd: root, env, detached: true });
  let output = "";
  child.stdout.on("data", (d) => {
    output += d;
  });
  child.stderr.on("data", (d) => {
    output += d;
  });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  }, KILL_AFTER_MS);
  // A detached emulator keeps the pipes open, so the command's end is its exit, not its output's.
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  child.stdout.destroy();
  child.stderr.destroy();
  return { code, seconds: (performance.now() - started) / 1000, output, killed };
}

/** One first call: a fresh npx cache; the emulator it started in the background is stopped after. */
async function firstCall(command: string): Promise<Timed> {
  const cache = mkdtempSync(join(tmpdir(), "skillsync-npx-cache-"));
  const env = { ...process.env, npm_config_cache: cache, npm_config_update_notifier: "false" };
  try {
    return await timed(command, env);
  } finally {
    rmSync(cache, { recursive: true, force: true });
    if (/\bemulator\b.*--detach/.test(command))
      spawnSync(process.execPath, ["bin/skillsync.js", "emulator", "stop"], { cwd: root, stdio: "ignore" });
  }
}

/** What one attempt says: stops the check (exit 1) when the command failed or hung. */
function report(command: string, result: Timed, limit: number): void {
  process.stdout.write(`${result.output.trimEnd()}\n`);
  const figure = `${result.seconds.toFixed(2)} s (limit ${limit} s)`;
  if (result.killed) {
    process.stderr.write(
      `README's first command \`${command}\` had not ended after ${KILL_AFTER_MS / 1000} s: killed\n`,
    );
    process.exit(1);
  }
  if (result.code !== 0) {
    process.stderr.write(`README's first command \`${command}\` failed (exit ${result.code}) in ${figure}\n`);
    process.exit(1);
  }
  const verdict = result.seconds <= limit ? "ok" : "too slow";
  process.stdout.write(`README's first command \`${command}\`: exit 0 in ${figure}: ${verdict}\n`);
}

const limitAt = process.argv.indexOf("--limit");
const limit = limitAt > 0 ? Number(process.argv[limitAt + 1]) : 3;
const command = firstReadmeCommand(readFileSync(join(root, "README.md"), "utf8"));
// A first call is measured up to three times, each from a fresh cache, so one stall of a shared
// machine does not fail the check; a slow first call (a build, an install) is slow every time.
for (let attempt = 1; attempt <= 3; attempt++) {
  const result = await firstCall(command);
  report(command, result, limit);
  if (result.seconds <= limit) process.exit(0);
}
process.exit(1);
