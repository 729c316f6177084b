/**
 * Times README's first `npx skillsync …` command as a new user meets it, right after `npm ci` in a
 * clean clone: `node --import tsx scripts/first-command.ts [--limit SECONDS]` (default 3). Exit 1
 * when the command fails, takes longer than the limit, or has not ended after two minutes (then it
 * is killed). npx gets a cache folder of its own, so no earlier `npx skillsync` in this folder can
 * hide a slow first one (npm 11 installs the folder into that cache on the first call).
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

const limitAt = process.argv.indexOf("--limit");
const limit = limitAt > 0 ? Number(process.argv[limitAt + 1]) : 3;
const command = firstReadmeCommand(readFileSync(join(root, "README.md"), "utf8"));
const cache = mkdtempSync(join(tmpdir(), "skillsync-npx-cache-"));
const env = { ...process.env, npm_config_cache: cache, npm_config_update_notifier: "false" };
const result = await timed(command, env);
rmSync(cache, { recursive: true, force: true });
// README's walkthrough starts an emulator in the background; what this check started, it stops.
if (/\bemulator\b.*--detach/.test(command))
  spawnSync(process.execPath, ["bin/skillsync.js", "emulator", "stop"], { cwd: root, stdio: "ignore" });

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
process.exit(result.seconds <= limit ? 0 : 1);
