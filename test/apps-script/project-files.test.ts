import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";
import { stop, transformSync } from "esbuild";
import { describe, expect, it } from "vitest";
import { afterTest } from "../helpers/after-test.js";
import { APPS_SCRIPT_DIR, GasProject } from "./harness/project.js";

const files = readdirSync(APPS_SCRIPT_DIR);
const gs = files
  .filter((f) => f.endsWith(".gs"))
  .map((f) => ({ f, code: readFileSync(join(APPS_SCRIPT_DIR, f), "utf8") }));
const html = files
  .filter((f) => f.endsWith(".html"))
  .map((f) => ({ f, code: readFileSync(join(APPS_SCRIPT_DIR, f), "utf8") }));
const manifest = JSON.parse(readFileSync(join(APPS_SCRIPT_DIR, "appsscript.json"), "utf8")) as {
  runtimeVersion: string;
  oauthScopes: string[];
  urlFetchWhitelist: string[];
};
const publicFunctions = new Set(
  gs.flatMap(({ code }) => [...code.matchAll(/^function ([A-Za-z]\w*[^_\W])\s*\(/gm)].map((m) => m[1]!)),
);

describe("the Apps Script project's files", () => {
  it("declares the narrowest scopes it needs and a whitelist placeholder to edit", () => {
    expect(manifest.runtimeVersion).toBe("V8");
    expect([...manifest.oauthScopes].sort()).toEqual([
      "https://www.googleapis.com/auth/script.container.ui",
      "https://www.googleapis.com/auth/script.external_request",
      "https://www.googleapis.com/auth/script.scriptapp",
      "https://www.googleapis.com/auth/spreadsheets.currentonly",
    ]);
    // Prefixes must be https with a full domain and a non-empty path.
    for (const prefix of manifest.urlFetchWhitelist)
      expect(prefix).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]+\/.*$/);
    // Only services these scopes cover (Drive, Gmail, the user's e-mail address… would widen them).
    const services = new Set(
      gs.flatMap(({ code }) => [...code.matchAll(/\b([A-Z][A-Za-z]*(?:App|Service))\b/g)].map((m) => m[1])),
    );
    expect([...services].sort()).toEqual([
      "HtmlService",
      "LockService",
      "PropertiesService",
      "ScriptApp",
      "SpreadsheetApp",
      "UrlFetchApp",
    ]);
    for (const { f, code } of gs)
      expect(code, f).not.toMatch(/getActiveUser|getEffectiveUser|openById|openByUrl/);
  });

  it("is plain ES2019 script code: nothing a V8 Apps Script runtime would need lowered, no modules", () => {
    // esbuild's service process would outlive the test (and its file) in the worker.
    afterTest(() => stop());
    expect(gs.length).toBeGreaterThanOrEqual(8);
    for (const { f, code } of gs) {
      const modern = transformSync(code, { loader: "js", target: "esnext" }).code;
      const es2019 = transformSync(code, { loader: "js", target: "es2019" }).code;
      expect(es2019, `${f} uses syntax newer than ES2019`).toBe(modern);
      expect(code, f).not.toMatch(/^\s*(import|export)\s/m);
      // esbuild prints numbers without separators at every target, so ES2021's 1_000 needs its own check.
      expect(code, f).not.toMatch(/\b\d+_\d/);
    }
  });

  it("calls from the pages, menus and triggers reach public functions that exist", () => {
    const called = new Set(
      html.flatMap(({ code }) => [...code.matchAll(/\bcall\('(\w+)'/g)].map((m) => m[1]!)),
    );
    expect(called.size).toBeGreaterThanOrEqual(12);
    for (const name of called) expect(publicFunctions, `google.script.run.${name}`).toContain(name);

    const project = new GasProject(undefined);
    expect(project.open().error).toBeUndefined();
    const items = project.ui.menus.flatMap((m) => m.items);
    expect(project.ui.menus.map((m) => m.name)).toEqual(["Skillsync"]);
    expect(items.map((i) => i.label)).toEqual([
      "Run a pipeline…",
      "Refresh this tab",
      "Schedule this tab…",
      "Load a table…",
      "Watch these rows…",
      "Show alerts",
      "Runs and credits",
      "Settings…",
    ]);
    for (const i of items) expect(publicFunctions).toContain(i.fn);
    expect(publicFunctions).toContain("skillsyncContinueLoads");
    expect(publicFunctions).toContain("skillsyncRefreshAlerts");
    for (const { code } of gs) {
      for (const m of code.matchAll(/newTrigger\((\w+)\)/g))
        expect(code).toMatch(new RegExp(`const ${m[1]} = '(\\w+)'`));
    }
  });

  it("renders every page with its includes, and each page's script parses", () => {
    const project = new GasProject(undefined);
    project.open();
    for (const label of [
      "Run a pipeline…",
      "Schedule this tab…",
      "Load a table…",
      "Runs and credits",
      "Settings…",
    ]) {
      expect(project.menu(label).error).toBeUndefined();
    }
    const pages = [...project.ui.sidebars, ...project.ui.dialogs.map((d) => d.html)];
    expect(pages).toHaveLength(5);
    for (const page of pages) {
      const content = page.getContent();
      expect(content).not.toContain("<?");
      expect(content).toContain("function call(name, args, onOk, onError)");
      const scripts = [...content.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
      expect(scripts.length).toBe(2);
      for (const s of scripts) expect(() => new vm.Script(s)).not.toThrow();
    }
  });
});
