import { Validator } from "@seriousme/openapi-schema-validator";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../../cli/main.js";
import { catalog } from "../../../schema/catalog.js";

/** Runs `skillsync <args>` in-process and captures what it writes. */
async function run(args: string[]) {
  let stdout = "";
  let stderr = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

describe("skillsync tools", () => {
  it("--format openapi prints a valid OpenAPI 3.1 document as JSON", async () => {
    const { code, stdout, stderr } = await run(["tools", "--format", "openapi"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const doc = JSON.parse(stdout);
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toHaveLength(catalog.size);
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it("--format tools prints the tool list as JSON", async () => {
    const { code, stdout } = await run(["tools", "--format", "tools"]);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.version).toBe("1.0.0");
    expect(doc.authentication.type).toBe("apiKey");
    expect(doc.tools.map((t: { name: string }) => t.name)).toEqual([...catalog.values()].map((o) => o.tool));
  });

  it("prints a table of slug, tool name, family and default price by default", async () => {
    const { code, stdout } = await run(["tools"]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^slug\s+tool\s+family\s+default price$/);
    expect(lines).toHaveLength(catalog.size + 2);
    expect(stdout).toMatch(
      /patent-claims\s+svc_patent_claims\s+patent-identifier\s+1 credit\(s\) per identifier/,
    );
    expect(stdout).toMatch(
      /marketplace-search\s+svc_marketplace_search\s+marketplace\s+1 credit\(s\) per call/,
    );
    expect((await run(["tools", "--format", "list"])).stdout).toBe(stdout);
  });

  it("exits 2 with a clear message on an unknown format, printing nothing on stdout", async () => {
    const { code, stdout, stderr } = await run(["tools", "--format", "yaml"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain('unknown --format "yaml"');
    expect(stderr).toContain("openapi");
    expect(stderr.trim().split("\n")).toHaveLength(1);
  });
});
