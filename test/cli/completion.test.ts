import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

/** What bash's completion offers for the words typed so far (the last one being completed). */
function complete(script: string, typed: string[], cwd = tmpdir()): string[] {
  const file = join(tempDir("completion"), "skillsync.bash");
  writeFileSync(file, script);
  const words = typed.map((w) => `'${w}'`).join(" ");
  const r = spawnSync(
    "bash",
    [
      "-c",
      `source '${file}'; COMP_WORDS=(${words}); COMP_CWORD=${typed.length - 1}; _skillsync; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: "utf8", cwd },
  );
  expect(r.stderr).toBe("");
  return r.stdout.split("\n").filter(Boolean);
}

describe("skillsync completion", () => {
  it("bash: commands, their flags and subcommands, built-in pipelines for run and plan", async () => {
    const r = await cli(["completion", "bash"]);
    expect(r.code).toBe(0);
    expect(complete(r.out, ["skillsync", "ru"]).sort()).toEqual(["run", "runs"]);
    expect(complete(r.out, ["skillsync", "run", "--max-c"])).toEqual(["--max-credits"]);
    expect(complete(r.out, ["skillsync", "--log-format", "json", "plan", "patent-leg"])).toEqual([
      "patent-legal-status",
    ]);
    expect(complete(r.out, ["skillsync", "emulator", "st"])).toEqual(["stop"]);
    expect(complete(r.out, ["skillsync", "-"])).toEqual(
      expect.arrayContaining(["-V", "--quiet", "--verbose"]),
    );
  });

  it("completes `npx skillsync …` as `skillsync …`; another npx command gets file names", async () => {
    const r = await cli(["completion", "bash"]);
    expect(r.out).toContain("complete -F _skillsync npx");
    // A folder of its own: the first word after npx may also be a file name.
    const folder = tempDir("completion-files");
    writeFileSync(join(folder, "tsconfig.json"), "{}");
    expect(complete(r.out, ["npx", "skill"], folder)).toEqual(["skillsync"]);
    expect(complete(r.out, ["npx", "skillsync", "ru"]).sort()).toEqual(["run", "runs"]);
    expect(complete(r.out, ["/usr/bin/npx", "skillsync", "--quiet", "plan", "patent-leg"])).toEqual([
      "patent-legal-status",
    ]);
    expect(complete(r.out, ["npx", "skillsync", "emulator", "st"])).toEqual(["stop"]);
    expect(complete(r.out, ["npx", "tsc", "tsc"], folder)).toEqual(["tsconfig.json"]);
    expect(complete(r.out, ["npx", "run"], folder)).toEqual([]);
  });

  it("offers every command --help lists", async () => {
    const script = (await cli(["completion", "bash"])).out;
    const help = (await cli(["--help"])).out;
    const commands = [...help.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!).filter((c) => c !== "help");
    expect(commands.length).toBeGreaterThan(15);
    expect(complete(script, ["skillsync", ""])).toEqual(expect.arrayContaining(commands));
  });

  it("zsh loads bash's completion functions; another shell is a usage error", async () => {
    const zsh = await cli(["completion", "zsh"]);
    expect(zsh.code).toBe(0);
    expect(zsh.out).toMatch(/^autoload -U \+X bashcompinit && bashcompinit\n/);
    expect(zsh.out).toContain("complete -F _skillsync skillsync");
    const fish = await cli(["completion", "fish"]);
    expect(fish.code).toBe(2);
    expect(fish.err).toMatch(/fish/);
  });
});
