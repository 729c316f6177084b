import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { CATALOG_VERSION, catalog, operationPath } from "../../../schema/catalog.js";
import { buildOpenApi, ERROR_RESPONSE_REF, ERROR_STATUSES } from "../../../schema/documents/openapi.js";
import { samples } from "./samples.js";

type Schema = Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };

const doc = buildOpenApi();
const operationOf = (slug: string) => doc.paths[operationPath(slug)]!.post;
const requestSchemaOf = (slug: string): Schema => {
  const ref = operationOf(slug).requestBody.content["application/json"].schema.$ref;
  return doc.components.schemas[ref.replace("#/components/schemas/", "")] as Schema;
};

describe("OpenAPI document", () => {
  it("passes the OpenAPI 3.1 schema validator and its references resolve", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");

    const resolved = validator.resolveRefs() as typeof doc;
    expect(JSON.stringify(resolved)).not.toContain('"$ref"');
    const post = resolved.paths[operationPath("patent-claims")]!.post as unknown as {
      responses: Record<string, { description: string }>;
      requestBody: { content: { "application/json": { schema: Schema } } };
    };
    expect(post.responses["404"]!.description).toBe(doc.components.responses.Error.description);
    expect(post.requestBody.content["application/json"].schema.properties["patentId"]).toBeDefined();
  });

  it("is rejected by the same validator when broken (the validator really checks)", async () => {
    const broken = structuredClone(doc) as Record<string, unknown>;
    delete broken["info"];
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("is OpenAPI 3.1.0 with the catalog version, a {base_url} server and global bearer security", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe(CATALOG_VERSION);
    expect(doc.info.version).toBe("2026-08-28-public-catalog-v1");
    expect(doc.info.title).toBeTruthy();
    expect(doc.servers[0]!.url).toBe("{base_url}");
    expect(doc.servers[0]!.variables.base_url.default).toMatch(/^https?:\/\//);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(JSON.stringify(doc)).not.toContain('"$schema"');
  });

  it("has exactly one POST path per documented slug, named for its tool", () => {
    expect(Object.keys(doc.paths).sort()).toEqual([...catalog.keys()].map(operationPath).sort());
    for (const [slug, op] of catalog) {
      const item = doc.paths[operationPath(slug)]!;
      expect(Object.keys(item)).toEqual(["post"]);
      expect(item.post).toMatchObject({
        operationId: op.tool,
        summary: op.title,
        description: op.description,
        tags: [op.tag],
      });
    }
    const ids = Object.values(doc.paths).map((p) => p.post.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("gives every operation the 13 error statuses, all one shared error response", () => {
    expect(ERROR_STATUSES).toHaveLength(13);
    for (const item of Object.values(doc.paths)) {
      const responses = item.post.responses as Record<string, unknown>;
      expect(Object.keys(responses).sort()).toEqual(["200", ...ERROR_STATUSES].sort());
      for (const status of ERROR_STATUSES) expect(responses[status]).toEqual({ $ref: ERROR_RESPONSE_REF });
    }
    const error = doc.components.responses.Error;
    expect(error.description).toMatch(/does not show its body/);
    const envelope = doc.components.schemas["ErrorEnvelope"] as Schema;
    expect(envelope.properties["data"]).toEqual({ type: "null" });
  });

  it("answers 200 with the envelope whose data is the operation's data schema or null", () => {
    const schema = operationOf("marketplace-search").responses["200"].content["application/json"]
      .schema as Schema;
    expect(schema.required).toEqual(["code", "msg", "data", "ts", "time", "cost", "traceId"]);
    expect(schema.properties["data"]).toEqual({
      anyOf: [{ $ref: "#/components/schemas/MarketplaceSearchData" }, { type: "null" }],
    });
    const data = doc.components.schemas["MarketplaceSearchData"] as Schema;
    expect(data["additionalProperties"]).toEqual({});
    expect(data.properties["products"]).toBeDefined();
  });

  it("request schemas are strict or loose exactly as the zod schemas are", () => {
    for (const [slug, op] of catalog) {
      const additional = requestSchemaOf(slug)["additionalProperties"];
      const strict = op.family === "advertising" || op.family === "patent-search";
      if (strict) expect(additional, slug).toBe(false);
      else expect(additional, slug).not.toBe(false);
      expect(op.request.safeParse({ ...samples[slug]!.good, unknownMember: 1 }).success).toBe(!strict);
    }
  });

  it("carries the contract's rules into JSON Schema", () => {
    const search = requestSchemaOf("websearch-patent-search");
    expect(search["required"]).toEqual(["q"]);
    expect(search.properties["q"]).toMatchObject({ type: "string", minLength: 1, maxLength: 1000 });
    expect(search.properties["num"]).toMatchObject({
      type: "integer",
      minimum: 10,
      maximum: 100,
      default: 10,
    });
    expect(search.properties["before"]!["pattern"]).toBe("^(priority|filing|publication):\\d{8}$");

    const report = requestSchemaOf("marketplace-ads-sp-search-impression-share-report");
    expect(report.properties["timeUnit"]).toMatchObject({ enum: ["DAILY", "SUMMARY"], default: "DAILY" });
    expect(report.properties["startDate"]!["format"]).toBe("date");
    // io "input": a member with a default is optional for the caller.
    expect(report["required"]).toEqual(["connectionId", "startDate", "endDate"]);

    const images = requestSchemaOf("patent-fulltext-images");
    expect(images.properties["limit"]).toMatchObject({ type: "string", default: "100" });
    expect(images.properties["limit"]!["description"]).toMatch(/at most 100/);
  });

  it("states the refinements JSON Schema cannot carry in descriptions", () => {
    const claims = requestSchemaOf("patent-claims");
    expect(claims["description"]).toMatch(/patentId or patentNumber \(at least one\)/);
    expect(claims["anyOf"]).toEqual([{ required: ["patentId"] }, { required: ["patentNumber"] }]);
    expect(claims.properties["patentId"]).toMatchObject({ maxLength: 60000 });
    expect(claims.properties["patentId"]!["description"]).toMatch(/1 to 100 identifiers/);
    const tro = requestSchemaOf("vendora-product-tro-detection");
    expect(tro.properties["mainProductImage"]!["description"]).toMatch(/data:image/);
    const design = requestSchemaOf("vendorb-detection-patent-design");
    expect(design.properties["regions"]!["description"]).toMatch(/US, EU, CN/);
  });
});
