import { describe, expect, it } from "vitest";
import { addSheetSchedule } from "../../../store/sheet-schedules.js";
import { DEMO_KEY } from "../../helpers/emulator.js";
import { publishedPatents } from "../../helpers/legal-status.js";
import { SECRET, startTestServer, waitForRun } from "../helpers.js";
import { consoleClient } from "./console-client.js";

const nonce = () => `nonce=${Math.random().toString(36).slice(2)}`;

describe("the console's sign-in, sessions and writes", () => {
  it("answers a request without a session with the sign-in page (401), leaves the signed API as it was", async () => {
    const t = await startTestServer("sqlite");
    const c = consoleClient(t.server);
    const home = await c.get("/");
    expect(home.status).toBe(401);
    expect(home.headers.get("content-type")).toContain("text/html");
    expect(home.text).toContain('action="/console/signin"');
    expect(home.text).not.toMatch(/Credits per day/);
    for (const path of ["/console/runs", "/console/schedules", "/console/changes", "/console/tables"]) {
      expect((await c.get(path)).status, path).toBe(401);
    }
    expect((await c.get("/console/tables/patent_legal_status.csv")).status).toBe(401);
    expect((await c.post("/console/schedules/x/pause", { csrf: "guess" })).status).toBe(401);
    // The JSON API still asks for a signature, and still answers JSON.
    const api = await fetch(`${t.server.url}/pipelines`);
    expect(api.status).toBe(401);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
    expect((await t.call("GET", `/pipelines?${nonce()}`)).status).toBe(200);
  });

  it("signs in once with the one-time link: an HttpOnly SameSite=Strict cookie, then /; the same link again is refused", async () => {
    const t = await startTestServer("sqlite");
    const c = consoleClient(t.server);
    const first = await c.signIn(t.server.consoleLink);
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/");
    const cookie = first.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/); // plain HTTP on loopback; under TLS it is Secure
    expect(cookie).toMatch(/Path=\//);
    const home = await c.get("/");
    expect(home.status).toBe(200);
    expect(home.text).toContain("Credits per day");

    const other = consoleClient(t.server);
    const again = await other.signIn(t.server.consoleLink);
    expect(again.status).toBe(401);
    expect(again.text).toContain("used already or has expired");
    expect(other.signedIn()).toBe(false);
    // The token never reaches the log: only paths are logged.
    const token = new URL(t.server.consoleLink).searchParams.get("token")!;
    expect(t.logs.join("\n")).not.toContain(token);
    expect(t.logs.join("\n")).toContain("GET /console/signin 303");
  });

  it("refuses a link used after its 15 minutes", async () => {
    let clock = Date.now();
    const t = await startTestServer("sqlite", { now: () => clock });
    clock += 15 * 60_000 + 1_000;
    const c = consoleClient(t.server);
    const late = await c.signIn(t.server.consoleLink);
    expect(late.status).toBe(401);
    expect(c.signedIn()).toBe(false);
  });

  it("signs in with the server secret; a wrong one is refused, and guessing is limited to 10 tries a minute", async () => {
    const t = await startTestServer("sqlite");
    const c = consoleClient(t.server);
    const wrong = await c.post("/console/signin", { secret: "not-the-secret-0123456789abcdefghij" });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("not the server secret");
    const right = await c.post("/console/signin", { secret: SECRET });
    expect(right.status).toBe(303);
    expect((await c.get("/console/runs")).status).toBe(200);
    const guesser = consoleClient(t.server);
    const answers: number[] = [];
    for (let i = 0; i < 10; i++)
      answers.push((await guesser.post("/console/signin", { secret: `guess-${i}` })).status);
    // Ten tries a minute for the whole server: two above (wrong, right), eight guesses, then refused.
    expect(answers).toEqual([...Array(8).fill(401), 429, 429]);
    // Even the right secret waits out the minute: a guesser learns nothing from the answer.
    expect((await guesser.post("/console/signin", { secret: SECRET })).status).toBe(429);
  });

  it("refuses a write without the CSRF token or from another site; pausing a schedule pauses it and resuming resumes it", async () => {
    const t = await startTestServer("sqlite");
    const s = await addSheetSchedule(t.warehouse, {
      pipeline: "patent-legal-status",
      params: { patent: ["US1234567B2"] },
      cron: "0 6 * * *",
      timezone: "UTC",
      maxCredits: 20,
      spreadsheet: "sheet-1",
      tab: "Status",
      mode: "replace",
    });
    const key = `sheet:${s.id}`;
    const c = consoleClient(t.server);
    await c.signIn(t.server.consoleLink);
    const page = await c.get("/console/schedules");
    expect(page.text).toContain(key);
    const csrf = c.csrfOf(page.text)!;
    const path = `/console/schedules/${encodeURIComponent(key)}/pause`;
    expect((await c.post(path, {})).status).toBe(403);
    expect((await c.post(path, { csrf: `${csrf}x` })).status).toBe(403);
    expect((await c.post(path, { csrf }, { origin: "http://evil.example" })).status).toBe(403);
    const paused = async () => (await t.call("GET", `/schedules?${nonce()}`)).json.schedules[0].paused;
    expect(await paused()).toBe(false);

    const done = await c.post(path, { csrf });
    expect(done.status).toBe(303);
    expect(await paused()).toBe(true);
    expect((await c.get("/console/schedules")).text).toContain("paused from the console");
    expect((await c.post(`/console/schedules/${encodeURIComponent(key)}/resume`, { csrf })).status).toBe(303);
    expect(await paused()).toBe(false);
  });

  it("runs a schedule now exactly once, however often the same form is sent", async () => {
    const t = await startTestServer("sqlite", { maxCredits: 200 });
    const patents = publishedPatents(3, "2026-11-08");
    const s = await addSheetSchedule(t.warehouse, {
      pipeline: "patent-legal-status",
      params: { patent: patents },
      cron: "0 6 * * *",
      timezone: "UTC",
      maxCredits: 50,
      spreadsheet: "sheet-1",
      tab: "Status",
      mode: "replace",
    });
    const c = consoleClient(t.server);
    await c.signIn(t.server.consoleLink);
    const page = (await c.get("/console/schedules")).text;
    const form =
      /action="(\/console\/schedules\/[^"]+\/run)">\s*<input type="hidden" name="csrf" value="([^"]+)"><input type="hidden" name="nonce" value="([^"]+)">/.exec(
        page,
      )!;
    expect(form[1]).toBe(`/console/schedules/${encodeURIComponent(`sheet:${s.id}`)}/run`);
    const sent = await Promise.all(
      [1, 2, 3].map(() => c.post(form[1]!, { csrf: form[2]!, nonce: form[3]! })),
    );
    expect(sent.map((r) => r.status)).toEqual([303, 303, 303]);
    expect(new Set(sent.map((r) => r.headers.get("location"))).size).toBe(1);
    expect(t.server.queue.list()).toHaveLength(1);
    const job = t.server.queue.list()[0]!;
    expect(job.pipeline).toBe("patent-legal-status");
    expect(job.maxCredits).toBe(50);
    expect((await waitForRun(t, job.id)).status).toBe("succeeded");
  });

  it("serves every page and asset with the CSP and without inline script, the API key or the server secret", async () => {
    const t = await startTestServer("sqlite", { maxCredits: 200 });
    const post = await t.call("POST", "/runs", {
      pipeline: "patent-legal-status",
      params: { patent: publishedPatents(5, "2026-11-08") },
    });
    const run = await waitForRun(t, post.json.runId);
    const c = consoleClient(t.server);
    await c.signIn(t.server.consoleLink);
    const paths = [
      "/",
      "/console/runs",
      `/console/runs/${run.warehouseRunId}`,
      "/console/schedules",
      "/console/changes",
      "/console/changes/patent_legal_status",
      "/console/tables",
      "/console/tables/patent_legal_status",
      "/console/assets/console.js",
      "/console/assets/console.css",
      "/console/tables/patent_legal_status.csv",
    ];
    for (const path of paths) {
      const r = await c.get(path);
      expect(r.status, path).toBe(200);
      const csp = r.headers.get("content-security-policy")!;
      expect(csp, path).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.text, path).not.toContain(SECRET);
      expect(r.text, path).not.toContain(DEMO_KEY);
      if (r.headers.get("content-type")?.startsWith("text/html")) {
        // Every script is the bundle or a JSON block the browser never runs; no inline handler or style.
        for (const tag of r.text.match(/<script[^>]*>/g) ?? [])
          expect(tag, path).toMatch(/src="\/console\/assets\/console\.js"|type="application\/json"/);
        expect(r.text, path).not.toMatch(/\son[a-z]+=|\sstyle=/i);
      }
    }
  });
});

describe("the console's pages and hostile text", () => {
  it("escapes what the warehouse holds and what a request names; an unknown table or key is a 404", async () => {
    const t = await startTestServer("sqlite");
    await t.warehouse.db.schema
      .createTable("notes")
      .addColumn("id", "integer")
      .addColumn("body", "text")
      .execute();
    const hostile = `<script>alert(1)</script><img src=x onerror="alert(2)">`;
    await t.warehouse.db.insertInto("notes").values({ id: 1, body: hostile }).execute();
    const c = consoleClient(t.server);
    await c.signIn(t.server.consoleLink);
    const page = await c.get("/console/tables/notes");
    expect(page.status).toBe(200);
    expect(page.text).not.toContain("<script>alert");
    expect(page.text).not.toContain("<img src=x");
    expect(page.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    const unknown = await c.get(`/console/tables/${encodeURIComponent(hostile)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).not.toContain("<script>alert");
    expect((await c.get(`/console/changes/notes`)).status).toBe(404);
    expect((await c.get(`/console/changes/${encodeURIComponent("x'; drop table notes; --")}`)).status).toBe(
      404,
    );
    expect((await c.get(`/console/runs/${encodeURIComponent(hostile)}`)).status).toBe(404);
    expect((await c.get("/console/tables/notes")).status).toBe(200);
  });
});
