/**
 * Bad requests to `skillsync serve`. `sign` says how the request is signed; every case must be
 * answered with `status` and an error body matching `where`, queue nothing and write nothing.
 */
export interface ServerCase {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: string | Record<string, unknown> | unknown[];
  sign?: "ok" | "none" | "wrong-secret" | "stale" | "future" | "replay" | "other-body" | "malformed";
  status: 400 | 401 | 404 | 405 | 413;
  where: RegExp;
}

const post = (
  name: string,
  body: NonNullable<ServerCase["body"]>,
  where: RegExp,
  status: 400 | 413 = 400,
): ServerCase => ({
  name,
  method: "POST",
  path: "/runs",
  body,
  status,
  where,
});
const page = (name: string, query: string, where: RegExp, status: 400 | 404 = 400): ServerCase => ({
  name,
  method: "GET",
  path: `/tables/marketplace_search_results${query}`,
  status,
  where,
});
const good = { pipeline: "marketplace-search", params: { keyword: ["usb hub"] } };
const ids = (n: number) => Array.from({ length: n }, (_, i) => `US${10_000_000 + i}B2`).join(",");

export const SERVER_CASES: ServerCase[] = [
  {
    name: "unsigned",
    method: "GET",
    path: "/runs",
    sign: "none",
    status: 401,
    where: /missing X-Skillsync-Timestamp/,
  },
  {
    name: "signed with another secret",
    method: "POST",
    path: "/runs",
    body: good,
    sign: "wrong-secret",
    status: 401,
    where: /bad signature/,
  },
  {
    name: "timestamp an hour old",
    method: "GET",
    path: "/pipelines",
    sign: "stale",
    status: 401,
    where: /timestamp is \d+ s away/,
  },
  {
    name: "timestamp an hour ahead",
    method: "GET",
    path: "/pipelines",
    sign: "future",
    status: 401,
    where: /timestamp is \d+ s away/,
  },
  {
    name: "replayed request",
    method: "GET",
    path: "/pipelines",
    sign: "replay",
    status: 401,
    where: /replay/,
  },
  {
    name: "signature over another body",
    method: "POST",
    path: "/runs",
    body: good,
    sign: "other-body",
    status: 401,
    where: /bad signature/,
  },
  {
    name: "signature not hex",
    method: "GET",
    path: "/runs",
    sign: "malformed",
    status: 401,
    where: /bad signature/,
  },
  post("body is not JSON", "{pipeline: marketplace-search", /not JSON/),
  post("body is empty", "", /not JSON/),
  post("body is an array", [good], /run request/),
  post("body is a string", '"marketplace-search"', /run request/),
  post("unknown member", { ...good, priority: "high" }, /priority|unrecognized/i),
  post("pipeline missing", { params: { keyword: ["x"] } }, /pipeline/),
  post("pipeline a number", { pipeline: 7 }, /pipeline/),
  post("pipeline unknown", { pipeline: "no-such-pipeline" }, /pipeline.*no-such-pipeline/),
  post("pipeline with traversal", { pipeline: "../../etc/passwd" }, /pipeline.*passwd/),
  post("pipeline name of 101 characters", { pipeline: "p".repeat(101) }, /pipeline/),
  post("params an array", { pipeline: "marketplace-search", params: ["keyword=x"] }, /params/),
  post(
    "params with an object value",
    { pipeline: "marketplace-search", params: { keyword: { $ne: 1 } } },
    /params\.keyword/,
  ),
  post("unknown param", { ...good, params: { keyword: ["x"], nope: 1 } }, /params.*nope/),
  post(
    "param of the wrong type",
    { ...good, params: { keyword: ["x"], pages: "many" } },
    /params.*pages.*whole number/,
  ),
  post(
    "param above its maximum",
    { ...good, params: { keyword: ["x"], pages: 500 } },
    /params.*pages.*maximum/,
  ),
  post("required param missing", { pipeline: "marketplace-search" }, /params.*keyword.*required/),
  post(
    "param value of 60001 characters",
    { ...good, params: { keyword: ["k".repeat(60_001)] } },
    /params\.keyword/,
  ),
  post(
    "10001 param values",
    { ...good, params: { keyword: Array.from({ length: 10_001 }, (_, i) => `k${i}`) } },
    /params\.keyword|too large|larger than/,
    413,
  ),
  post(
    "101 identifiers in one value",
    { pipeline: "patent-claims", params: { patent: [ids(101)] } },
    /patent(Number)?.*100/,
  ),
  post(
    "date param as SQL",
    { pipeline: "ads-sp-audience", params: { connection: 1, start: "2025-01-01' or 1=1 --" } },
    /params.*start.*not a date/,
  ),
  post("maxCredits above the server's ceiling", { ...good, maxCredits: 1e9 }, /maxCredits.*ceiling/),
  post("maxCredits negative", { ...good, maxCredits: -1 }, /maxCredits/),
  post("maxCredits as text", { ...good, maxCredits: "10" }, /maxCredits/),
  post(
    "body over 64 KB",
    { ...good, params: { keyword: ["k".repeat(70_000)] } },
    /larger than 65536 bytes/,
    413,
  ),
  { name: "POST to /tables", method: "POST", path: "/tables", body: {}, status: 405, where: /use GET/ },
  { name: "unknown endpoint", method: "GET", path: "/admin", status: 404, where: /no endpoint/ },
  { name: "nested path", method: "GET", path: "/runs/a/b", status: 404, where: /no endpoint/ },
  {
    name: "table name with SQL",
    method: "GET",
    path: `/tables/${encodeURIComponent("x; drop table skillsync_runs")}`,
    status: 404,
    where: /no table/,
  },
  { name: "toolkit table", method: "GET", path: "/tables/skillsync_runs", status: 404, where: /no table/ },
  {
    name: "table name with traversal",
    method: "GET",
    path: "/tables/..%2f..%2fetc%2fpasswd",
    status: 404,
    where: /no table/,
  },
  {
    name: "bad percent-encoding",
    method: "GET",
    path: "/tables/%E0%A4%A",
    status: 400,
    where: /percent-encoding/,
  },
  page("columns with SQL", "?columns=asin%3B%20drop%20table%20x", /columns.*unknown column/),
  page("unknown column", "?columns=asin,password", /columns.*password/),
  page("limit 0", "?limit=0", /limit/),
  page("limit above the page size", "?limit=100000", /limit/),
  page("limit not a number", "?limit=all", /limit/),
  page("offset negative", "?offset=-1", /offset/),
  page("offset huge", "?offset=1e30", /offset/),
  page("unknown query member", "?order=asin", /order|unrecognized/i),
  page("columns of 10001 characters", `?columns=${"a".repeat(10_001)}`, /columns/),
  {
    name: "unknown run id",
    method: "GET",
    path: "/runs/r20260101000000-deadbeef",
    status: 404,
    where: /no run/,
  },
];
