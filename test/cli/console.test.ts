import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { afterTest } from "../helpers/after-test.js";
import { serveProcess } from "../helpers/serve-process.js";
import { until } from "../helpers/until.js";

describe("skillsync console", () => {
  it("serves the console on a free port without a configured secret; its one-time link signs in once, and no secret is printed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillsync-console-"));
    afterTest(() => rmSync(dir, { recursive: true, force: true }));
    const p = await serveProcess(
      ["--no-open", "--db", join(dir, "w.db")],
      {
        SKILLSYNC_SERVER_SECRET: "",
        // As for serve: runs started from the console would call the API (none is started here).
        SKILL_API_BASE_URL: "http://127.0.0.1:9",
        SKILL_API_KEY: "sk-console-test-0000000000",
      },
      "console",
    );
    const link = await until(
      async () => /console: (http:\/\/\S+token=\S+)/.exec(p.output())?.[1],
      30_000,
      "the link",
    );
    expect(new URL(link).origin).toBe(p.url);
    const first = await fetch(link, { redirect: "manual" });
    expect(first.status).toBe(303);
    const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
    const home = await fetch(`${p.url}/`, { headers: { cookie } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("Credits per day");
    expect((await fetch(link, { redirect: "manual" })).status).toBe(401);
    // The random secret made for this process is never shown; nothing signed can be made without it.
    expect(p.output()).not.toMatch(/[0-9a-f]{64}/);
    expect((await fetch(`${p.url}/pipelines`)).status).toBe(401);
    await p.stop();
  });
});
