import { describe, expect, it } from "vitest";
import { SkillClient } from "../../connectors/skill-api/client.js";
import { afterTest } from "../helpers/after-test.js";
import { DEMO_KEY } from "../helpers/emulator.js";
import { openTracked, startTracked, tempDir, until, writeScheduledPipeline } from "../scheduler/fixtures.js";
import { chromiumMissing, useChromium } from "./harness/chromium.js";
import { useAddon } from "./setup.js";

const mode = chromiumMissing();
const addon = useAddon();

describe.skipIf(mode === "skip")("Runs and credits in a real headless Chromium", () => {
  const chromium = useChromium();

  it("lists a run the scheduler made beside the server, marked scheduled; the server's own run is not", async () => {
    const env = await addon.start();
    const { project } = env;
    expect((await env.runPipeline("marketplace-search", { keyword: ["usb hub"] })).status).toBe("succeeded");

    // `skillsync schedule`, beside the server: on its warehouse file and against its emulator.
    const client = new SkillClient({ baseUrl: env.emulatorUrl, apiKey: DEMO_KEY, retryBaseDelayMs: 10 });
    afterTest(() => client.close());
    const { scheduler } = await startTracked({
      warehouse: await openTracked(env.warehouseUrl),
      client,
      files: [writeScheduledPipeline(tempDir(), { params: "{ keyword: desk lamp }" })],
    });
    await until(
      async () => scheduler.ticks.some((t) => t.outcome.kind === "ran" && t.outcome.status === "succeeded"),
      20_000,
      "a scheduled run that succeeded",
    );
    // Returns once the run in flight (if any) is recorded; the default grace only bounds a hang.
    await scheduler.stop();

    const view = project.call("getRunsAndCredits");
    const byPipeline = (name: string) => view.runs.filter((r: { pipeline: string }) => r.pipeline === name);
    const made = byPipeline("sched-search");
    expect(made.length).toBeGreaterThanOrEqual(1);
    expect(made[0]).toMatchObject({ scheduled: true, status: "succeeded", finished: true });
    for (const r of made) expect(r.scheduled).toBe(true);
    expect(byPipeline("marketplace-search")).toEqual([expect.objectContaining({ scheduled: false })]);

    // As the user sees it: the scheduled row carries the label, the server's row does not.
    const pages = await chromium.pageServer(project);
    expect(project.menu("Runs and credits").error).toBeUndefined();
    const page = await chromium.newPage();
    await page.goto(pages.show("runs", project.ui.dialogs.at(-1)!.html.getContent()));
    const row = (name: string) => page.locator("#runs tr", { hasText: name });
    await row("sched-search").waitFor({ state: "visible", timeout: 20_000 });
    expect(await row("sched-search").first().locator(".tag").textContent()).toBe("scheduled");
    expect(await row("sched-search").locator(".tag").count()).toBe(made.length);
    expect(await row("marketplace-search").locator(".tag").count()).toBe(0);
    expect(await page.locator("#runs tr").count()).toBe(1 + made.length);
  }, 60_000);
});
