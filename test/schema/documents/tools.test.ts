import { describe, expect, it } from "vitest";
import { catalog, operationPath } from "../../../schema/catalog.js";
import { buildToolList } from "../../../schema/documents/tools.js";
import { compileJsonSchema, errorsOf } from "./json-schema-validator.js";
import { samples } from "./samples.js";

const doc = buildToolList();
const toolOf = (slug: string) => {
  const tool = doc.tools.find((t) => t.name === catalog.get(slug)?.tool);
  if (!tool) throw new Error(`no tool for ${slug}`);
  return tool;
};

describe("tool list document", () => {
  it("has version 1.0.0 and the apiKey/Bearer authentication declaration", () => {
    expect(doc.version).toBe("1.0.0");
    expect(doc.authentication).toEqual({
      type: "apiKey",
      in: "header",
      name: "Authorization",
      format: "Bearer <API_KEY>",
    });
  });

  it("lists 23 tools named svc_ + slug with underscores, each a POST to its endpoint", () => {
    expect(doc.tools).toHaveLength(23);
    const slugs = [...catalog.keys()];
    doc.tools.forEach((tool, i) => {
      const slug = slugs[i]!;
      expect(tool.name).toMatch(/^svc_[a-z0-9]+(?:_[a-z0-9]+)*$/);
      expect(tool.name).toBe(`svc_${slug.replaceAll("-", "_")}`);
      expect(tool.endpoint).toBe(`/api/skill-api/v1/skills/${slug}/run`);
      expect(tool.endpoint).toBe(operationPath(slug));
      expect(tool.method).toBe("POST");
      expect(tool.title).toBe(catalog.get(slug)!.title);
      expect(tool.description).toContain("do not retry a paid call automatically");
      expect(tool.inputSchema["type"]).toBe("object");
      expect(tool.outputSchema["type"]).toBe("object");
    });
  });

  it("has a known-good and a known-bad sample for every tool", () => {
    expect(Object.keys(samples).sort()).toEqual([...catalog.keys()].sort());
  });

  for (const [slug, op] of catalog) {
    it(`${op.tool}: inputSchema compiles, accepts the good request, rejects the bad one (as zod does)`, () => {
      const sample = samples[slug];
      if (!sample) throw new Error(`add a sample for ${slug} to test/schema/documents/samples.ts`);
      const validate = compileJsonSchema(toolOf(slug).inputSchema);

      expect(op.request.safeParse(sample.good).success).toBe(true);
      expect(validate(sample.good), errorsOf(validate)).toBe(true);
      expect(op.request.safeParse(sample.bad).success).toBe(false);
      expect(validate(sample.bad)).toBe(false);

      // Strictness as zod has it: strict ops reject an unknown member, loose ones keep it.
      const withExtra = { ...sample.good, unknownMember: 1 };
      expect(validate(withExtra)).toBe(op.request.safeParse(withExtra).success);
    });
  }

  it("outputSchema is the envelope around the operation's data: nulls and unknown members allowed", () => {
    const validate = compileJsonSchema(toolOf("marketplace-search").outputSchema);
    const envelope = {
      code: 0,
      msg: null,
      ts: "1767225600000",
      time: "2026-01-01 00:00:00",
      cost: "120",
      traceId: "t-1",
      data: {
        keyword: "lamp",
        total: 1,
        costToken: null,
        extraMember: { kept: true },
        products: [{ asin: "B0TEST", price: "$12.99", extractedPrice: 12.99, rating: null, newField: 1 }],
      },
    };
    expect(validate(envelope), errorsOf(validate)).toBe(true);
    expect(validate({ ...envelope, data: null })).toBe(true);
    expect(validate({ ...envelope, data: { products: "not a list" } })).toBe(false);
    expect(validate({ ...envelope, cost: 1.5 })).toBe(false);
    const { traceId: _t, ...withoutTraceId } = envelope;
    expect(validate(withoutTraceId)).toBe(false);
  });

  it("outputSchema requires reportId in an advertising report's data", () => {
    const validate = compileJsonSchema(toolOf("marketplace-ads-sp-insights-report-status").outputSchema);
    const base = { code: 0, msg: "ok", ts: "1", time: "2026-01-01 00:00:00", cost: "-1", traceId: null };
    expect(
      validate({ ...base, data: { reportId: "r1", status: "PENDING", completedReportParts: null } }),
    ).toBe(true);
    expect(validate({ ...base, data: { status: "PENDING" } })).toBe(false);
  });
});
