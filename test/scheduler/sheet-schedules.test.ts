import { describe, it } from "vitest";
import { unavailable, WAREHOUSE_KINDS } from "../helpers/warehouses.js";
import { twoServersTrial } from "./sheet-serve.js";

describe.each(WAREHOUSE_KINDS)("sheet schedules fired by serve (%s)", (kind) => {
  it.skipIf(unavailable(kind))(
    "two servers on one warehouse run each tick once under its cap, replace the tab and note it; none after DELETE",
    () => twoServersTrial(kind, "*/4 * * * * *", 2, 90_000),
    180_000,
  );
});
