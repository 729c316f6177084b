import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { SkillClient } from "../../../connectors/skill-api/client.js";
import type { BodyOf, DataOf, DocumentedSlug, InputOf } from "../../../connectors/skill-api/types.js";
import type {
  reportDataSchema,
  reportDownloadDataSchema,
  reportDownloadRequest,
  reportStatusRequest,
  searchImpressionShareRequest,
} from "../../../schema/advertising.js";
import { catalog } from "../../../schema/catalog.js";
import type { troDetectionDataSchema, troDetectionRequest } from "../../../schema/ip-risk.js";
import type { marketplaceSearchDataSchema, marketplaceSearchRequest } from "../../../schema/marketplace.js";
import type { PatentIdentifierSlug, patentIdentifierOperations } from "../../../schema/patent-identifier.js";

// The call types are inferred from the catalog (schema/catalog.ts): these checks run in `tsc`.
describe("call types inferred from the catalog", () => {
  it("has a documented slug for each operation of the catalog", () => {
    const slugs: DocumentedSlug[] = [...catalog.keys()] as DocumentedSlug[];
    expect(slugs).toHaveLength(23);
    expectTypeOf<PatentIdentifierSlug>().toExtend<DocumentedSlug>();
    expectTypeOf<"marketplace-search">().toExtend<DocumentedSlug>();
    expectTypeOf<"some-other-slug">().not.toExtend<DocumentedSlug>();
  });

  it("types a documented operation's input, body and data from its schemas", () => {
    expectTypeOf<InputOf<"marketplace-search">>().toEqualTypeOf<z.input<typeof marketplaceSearchRequest>>();
    expectTypeOf<BodyOf<"marketplace-search">>().toEqualTypeOf<z.output<typeof marketplaceSearchRequest>>();
    expectTypeOf<DataOf<"marketplace-search">>().toEqualTypeOf<z.infer<typeof marketplaceSearchDataSchema>>();
    expectTypeOf<InputOf<"vendora-product-tro-detection">>().toEqualTypeOf<
      z.input<typeof troDetectionRequest>
    >();
    expectTypeOf<DataOf<"vendora-product-tro-detection">>().toEqualTypeOf<
      z.infer<typeof troDetectionDataSchema>
    >();
  });

  it("keeps the advertising defaults (status request, report data) where an operation sets none", () => {
    expectTypeOf<InputOf<"marketplace-ads-sp-insights-report-status">>().toEqualTypeOf<
      z.input<typeof reportStatusRequest>
    >();
    expectTypeOf<InputOf<"marketplace-ads-sp-search-impression-share-report">>().toEqualTypeOf<
      z.input<typeof searchImpressionShareRequest>
    >();
    expectTypeOf<DataOf<"marketplace-ads-sp-audience-report">>().toEqualTypeOf<
      z.infer<typeof reportDataSchema>
    >();
    expectTypeOf<InputOf<"marketplace-ads-sp-insights-report-download">>().toEqualTypeOf<
      z.input<typeof reportDownloadRequest>
    >();
    expectTypeOf<DataOf<"marketplace-ads-sp-insights-report-download">>().toEqualTypeOf<
      z.infer<typeof reportDownloadDataSchema>
    >();
  });

  it("types each patent-identifier operation's records", () => {
    type Claims = (typeof patentIdentifierOperations)["patent-claims"];
    expectTypeOf<InputOf<"patent-claims">>().toEqualTypeOf<z.input<Claims["request"]>>();
    expectTypeOf<DataOf<"patent-claims">["data"]>().toEqualTypeOf<
      z.infer<Claims["record"]>[] | null | undefined
    >();
  });

  it("gives any other slug a plain JSON object", () => {
    expectTypeOf<InputOf<"some-other-slug">>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<DataOf<"some-other-slug">>().toEqualTypeOf<Record<string, unknown>>();
  });

  it("checks a call's body against its operation", () => {
    const call = (client: SkillClient) => {
      void client.call("marketplace-search", { keyword: "lamp" });
      // @ts-expect-error keyword is required
      void client.call("marketplace-search", {});
      // @ts-expect-error keyword is a string
      void client.call("marketplace-search", { keyword: 1 });
    };
    expectTypeOf(call).toBeFunction();
  });
});
