import { API_PREFIX, CATALOG_VERSION, catalog, type Operation, operationPath } from "../catalog.js";
import {
  dataJsonSchema,
  envelopeJsonSchema,
  type JsonSchema,
  requestJsonSchema,
  withoutDialect,
} from "./json-schema.js";

/** The statuses every operation declares, all sharing one error response (contract 7). */
export const ERROR_STATUSES = [
  "400",
  "401",
  "402",
  "403",
  "404",
  "409",
  "410",
  "413",
  "429",
  "500",
  "502",
  "503",
  "504",
] as const;

export const ERROR_RESPONSE_REF = "#/components/responses/Error";
const SECURITY_SCHEME = "bearerAuth";

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `patent-claims` → `PatentClaims`: component names from slugs, stable and readable. */
const componentName = (slug: string) =>
  slug
    .split("-")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");

function pathItem(op: Operation, name: string) {
  return {
    post: {
      operationId: op.tool,
      summary: op.title,
      description: op.description,
      tags: [op.tag],
      requestBody: {
        required: true,
        content: { "application/json": { schema: schemaRef(`${name}Request`) } },
      },
      responses: {
        "200": {
          description:
            "The response envelope. Business success is code 0; a nonzero code is a platform error. " +
            "cost is elapsed milliseconds, never credits.",
          content: { "application/json": { schema: envelopeJsonSchema(schemaRef(`${name}Data`)) } },
        },
        ...Object.fromEntries(ERROR_STATUSES.map((status) => [status, { $ref: ERROR_RESPONSE_REF }])),
      },
    },
  };
}

/**
 * The OpenAPI 3.1.0 document of the documented operations in `catalog`: one POST path per slug,
 * request and `data` schemas generated from the zod schemas, bearer authentication, and the 13 error
 * statuses sharing one error response.
 *
 * @example
 * const doc = buildOpenApi();
 * doc.paths["/api/skill-api/v1/skills/patent-claims/run"].post.operationId // "svc_patent_claims"
 */
export function buildOpenApi() {
  const paths: Record<string, ReturnType<typeof pathItem>> = {};
  const schemas: Record<string, JsonSchema> = {};
  for (const op of catalog.values()) {
    const name = componentName(op.slug);
    schemas[`${name}Request`] = requestJsonSchema(op);
    schemas[`${name}Data`] = dataJsonSchema(op);
    paths[operationPath(op.slug)] = pathItem(op, name);
  }
  schemas["ErrorEnvelope"] = envelopeJsonSchema(null);
  const tags = [...new Set([...catalog.values()].map((op) => op.tag))];

  return withoutDialect({
    openapi: "3.1.0",
    info: {
      title: "Skill API: documented operations",
      version: CATALOG_VERSION,
      description:
        `The ${catalog.size} operations the Skill API contract documents in detail, each one POST under ` +
        `${API_PREFIX}/skills/{slug}/run. Every call consumes account credits; a paid call is not retried ` +
        "automatically.",
    },
    servers: [
      {
        url: "{base_url}",
        description: "The Skill API base URL (SKILL_API_BASE_URL); the contract does not publish one.",
        variables: { base_url: { default: "https://skill-api.example.com" } },
      },
    ],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas,
      responses: {
        Error: {
          description:
            "The one semantic error response all error statuses share (contract 7). The contract does not " +
            "show its body; it is described here as the response envelope with data null.",
          content: { "application/json": { schema: schemaRef("ErrorEnvelope") } },
        },
      },
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description: "Authorization: Bearer <API_KEY>, a user API key from the account's API access area.",
        },
      },
    },
  });
}
