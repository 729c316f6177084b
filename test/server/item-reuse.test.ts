import { describe, expect, it } from "vitest";
import { startTestServer, waitForRun } from "./helpers.js";

describe("skillsync serve: per-item reuse", () => {
  it("a pull of overlapping patents shows the identifiers reused and the credits saved", async () => {
    const t = await startTestServer("sqlite");
    const pull = async (patent: string[]) => {
      const post = await t.call("POST", "/runs", { pipeline: "patent-bibliography", params: { patent } });
      expect(post.status).toBe(202);
      return waitForRun(t, post.json.runId);
    };
    await pull(["US1000001B2", "US1000002B2"]);
    const second = await pull(["US1000001B2", "US1000003B2"]);
    expect(second).toMatchObject({
      status: "succeeded",
      credits: { spent: 1, saved: 1 },
      items: { reused: 1 },
    });
    expect(t.emulator.ledger().totalCredits).toBe(3);
  }, 60_000);
});
