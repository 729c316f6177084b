import { describe, expect, it } from "vitest";
import { SECRET, useAddon } from "./setup.js";

const addon = useAddon();

describe("Settings", () => {
  it("keeps the URL and the secret in User Properties only, and tests the connection", async () => {
    const { project, url } = await addon.start({ settings: false });
    const refused = project.rpc("getRunSidebarData");
    expect(refused).toEqual({ ok: false, message: expect.stringMatching(/not set up yet.*Settings…/) });

    expect(project.menu("Settings…").error).toBeUndefined();
    expect(project.ui.dialogs.at(-1)?.title).toBe("Skillsync: settings");
    expect(project.ui.dialogs.at(-1)?.html.getContent()).toContain("Test connection");

    const saved = project.call("saveSettings", { serverUrl: `${url}/`, secret: SECRET });
    expect(saved).toMatchObject({ serverUrl: url, hasSecret: true });
    expect(project.userProperties.map.get("skillsync.secret")).toBe(SECRET);
    expect(project.userProperties.map.get("skillsync.serverUrl")).toBe(url);
    expect(project.call("getSettings")).toEqual({ serverUrl: url, hasSecret: true });

    const ok = project.call("testConnection");
    expect(ok.ok).toBe(true);
    expect(ok.message).toMatch(
      new RegExp(
        `^Connected to ${url}: \\d+ pipelines, 0 credits spent today, at most 50 credits per run\\.$`,
      ),
    );
  });

  it("says plainly what is wrong with a URL, a secret or a connection", async () => {
    const { project, url } = await addon.start({ settings: false });
    expect(
      project.rpc("saveSettings", { serverUrl: "http://skillsync.example.com", secret: SECRET }),
    ).toMatchObject({
      ok: false,
      message: expect.stringMatching(/must start with https:\/\//),
    });
    expect(project.rpc("saveSettings", { serverUrl: `${url}/api`, secret: SECRET })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/no path/),
    });
    expect(project.rpc("saveSettings", { serverUrl: url, secret: "short" })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/too short.*at least 32 characters \(this one has 5\)/),
    });
    expect(project.userProperties.map.size).toBe(0);

    const wrong = project.call("testConnection", { serverUrl: url, secret: "x".repeat(40) });
    expect(wrong.ok).toBe(false);
    expect(wrong.message).toMatch(/refused the request \(bad signature\)\. Check that the secret/);

    const closedPort = project.call("testConnection", { serverUrl: "http://127.0.0.1:9", secret: SECRET });
    expect(closedPort).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Could not reach the Skillsync server at http:\/\/127\.0\.0\.1:9/),
    });
  });
});
