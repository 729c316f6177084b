import { describe, expect, it } from "vitest";
import { CATALOG_SIZE, catalog, operationPath } from "../../../schema/catalog.js";
import { buildOpenApi } from "../../../schema/documents/openapi.js";
import { buildToolList } from "../../../schema/documents/tools.js";

/**
 * The documents are generated from `catalog`, so an operation added there must appear in both
 * (issue 6: "the tool list and OpenAPI documents stay complete as operations are added").
 */
describe("documents stay complete", () => {
  const openapi = buildOpenApi();
  const tools = buildToolList();

  it("holds the 23 documented operations, within the 172-operation catalog", () => {
    expect(catalog.size).toBeGreaterThanOrEqual(23);
    expect(catalog.size).toBeLessThanOrEqual(CATALOG_SIZE);
  });

  for (const [slug, op] of catalog) {
    it(`${slug} is in the OpenAPI document and the tool list`, () => {
      expect(openapi.paths[operationPath(slug)]?.post.operationId).toBe(op.tool);
      const tool = tools.tools.find((t) => t.name === op.tool);
      expect(tool?.endpoint).toBe(operationPath(slug));
    });
  }

  it("has nothing in either document that is not in the catalog", () => {
    expect(Object.keys(openapi.paths)).toHaveLength(catalog.size);
    expect(tools.tools).toHaveLength(catalog.size);
    expect(new Set(tools.tools.map((t) => t.name)).size).toBe(catalog.size);
  });
});
