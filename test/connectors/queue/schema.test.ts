import { describe, expect, it } from "vitest";
import { queueSchema } from "../../../connectors/queue/work-queue.js";
import { parseWarehouseUrl } from "../../../connectors/warehouse/url.js";
import { ConfigurationError } from "../../../core/errors.js";

describe("the queue's schema", () => {
  it("sits beside the warehouse's: pgboss for the default schema, <schema>_pgboss for a named one", () => {
    expect(queueSchema(parseWarehouseUrl("postgres://u@h/db"))).toBe("pgboss");
    expect(queueSchema(parseWarehouseUrl("postgres://u@h/db?schema=tenant_a"))).toBe("tenant_a_pgboss");
  });

  it("refuses a SQLite warehouse and a schema whose queue schema would pass 63 characters", () => {
    expect(() => queueSchema(parseWarehouseUrl("./w.db"))).toThrow(ConfigurationError);
    const long = `s${"x".repeat(56)}`;
    expect(() => queueSchema(parseWarehouseUrl(`postgres://u@h/db?schema=${long}`))).toThrow(/at most 56/);
    expect(queueSchema(parseWarehouseUrl(`postgres://u@h/db?schema=${long.slice(0, 56)}`))).toHaveLength(63);
  });
});
