import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator/index.js";
import { DEFAULT_EMULATOR_HOST, DEFAULT_EMULATOR_PORT } from "../../emulator/options.js";
import { afterTest } from "../helpers/after-test.js";
import { cli } from "../helpers/cli.js";
import { DEMO_KEY } from "../helpers/emulator.js";

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const DETACHED_URL = `http://${DEFAULT_EMULATOR_HOST}:${DEFAULT_EMULATOR_PORT}`;

/** The lines of the ```sh blocks of README's "Five-minute walkthrough", in order. */
function walkthroughLines(): string[] {
  const section = README.split(/^## /m).find((s) => s.startsWith("Five-minute walkthrough"));
  if (!section) throw new Error("README.md has no '## Five-minute walkthrough'");
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].flatMap((m) =>
    (m[1] ?? "").split("\n").filter((l) => l.trim() !== ""),
  );
}

/**
 * A line split into words as sh does for these lines: '…' and "…" quoting, a trailing `# comment`.
 * A command substitution or variable is refused: what the walkthrough types must not depend on
 * the shell's tools (GNU's `date -d` is not BSD's).
 */
function words(line: string): string[] {
  if (/\$\(|`|\$[A-Za-z{]/.test(line)) throw new Error(`a substitution in a walkthrough line: ${line}`);
  const out: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === " " || c === "\t") {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else if (c === "#" && word === undefined) {
      break;
    } else if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new Error(`an unclosed quote in: ${line}`);
      word = (word ?? "") + line.slice(i + 1, end).replace(/\\(["\\$`])/g, c === '"' ? "$1" : "\\$1");
      i = end;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** `curl -s [-X METHOD] URL [-d BODY]` through fetch, against the test's emulator. */
async function curl(args: string[], base: string): Promise<{ status: number; json: unknown }> {
  let method = "GET";
  let body: string | undefined;
  let url = "";
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "-X") method = args[++i] as string;
    else if (a === "-d") body = args[++i];
    else if (a !== "-s") url = a;
  }
  expect(url.startsWith(DETACHED_URL), url).toBe(true);
  if (body !== undefined && method === "GET") method = "POST";
  const res = await fetch(base + url.slice(DETACHED_URL.length), { method, ...(body ? { body } : {}) });
  return { status: res.status, json: await res.json() };
}

describe("README's five-minute walkthrough", () => {
  it("has no line that needs GNU date or another substitution (the old clock line did)", () => {
    for (const line of walkthroughLines()) expect(() => words(line), line).not.toThrow();
  });

  it("runs as written, in order, against an emulator: store reuse, the clock moved a week, changes", async () => {
    const folder = mkdtempSync(join(tmpdir(), "skillsync-walkthrough-"));
    afterTest(() => rmSync(folder, { recursive: true, force: true }));
    const emu = await startEmulator({ port: 0, host: "127.0.0.1" });
    afterTest(() => emu.stop());
    const env: Record<string, string> = { DATABASE_URL: join(folder, "skillsync.db") };
    const seen: string[] = [];
    for (const line of walkthroughLines()) {
      const w = words(line);
      const text = w.join(" ");
      if (text.startsWith("npx skillsync emulator")) {
        // The detached emulator and its stop: this test's own emulator stands in for both.
        expect(["npx skillsync emulator --detach", "npx skillsync emulator stop"]).toContain(text);
      } else if (w[0] === "export") {
        const [name, value] = (w[1] ?? "").split(/=(.*)/s) as [string, string];
        expect([DETACHED_URL, DEMO_KEY], line).toContain(value);
        env[name] = value === DETACHED_URL ? emu.url : value;
      } else if (w[0] === "curl") {
        const res = await curl(w.slice(1), emu.url);
        expect(res.status, line).toBe(200);
        if (line.includes("/__emulator/clock")) expect(res.json).toEqual({ date: "2026-11-08" });
      } else if (w[0] === "npx" && w[1] === "skillsync") {
        // A file the walkthrough wrote is in the test's folder, not the working one.
        const args = w.slice(2).map((a) => a.replace(/=@(?!\/)/, `=@${folder}/`));
        const r = await cli(args, env);
        expect(r.code, `${line}\n${r.err}`).toBe(0);
        seen.push(`${text}\n${r.out}${r.err}`);
      } else {
        const r = spawnSync("sh", ["-c", line], { cwd: folder, encoding: "utf8" });
        expect(r.status, `${line}\n${r.stderr}`).toBe(0);
      }
    }
    expect(emu.date()).toBe("2026-11-08");
    // What the prose around the commands says they print.
    // "The last run says `4 from store` and `credits 0`".
    const repeated = seen
      .filter((s) =>
        s
          .split("\n")[0]
          ?.endsWith(
            "marketplace-search --param keyword=ergonomic chair --param keyword=monitor arm --param pages=2",
          ),
      )
      .at(-1);
    expect(repeated).toMatch(/4 from store\)[^\n]* credits 0 /);
    const changes = seen.find((s) => s.startsWith("npx skillsync changes patent_legal_status"));
    // "per patent: the column, old → new, and the load": a status moved in the week.
    expect(changes).toMatch(/ (legal_date|legal_status|simple_legal_status) +\S+ +\S+/);
    expect(changes).toMatch(/[1-9]\d* change\(s\)/);
    // "the watch's alerts: each patent that moved": what `changes` listed for the week's load.
    const alerts = seen.find((s) => s.startsWith("npx skillsync alerts"));
    expect(alerts).toMatch(
      / moved +[A-Z]{2}\d+[A-Z]\d? +(legal_date|legal_status|simple_legal_status|patent_legal_events) +/,
    );
    expect(alerts).toMatch(/[1-9]\d* alert\(s\)/);
  }, 60_000);
});
