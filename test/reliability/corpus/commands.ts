/**
 * Bad params, price files and command lines, run through the CLI's main(). `$DIR` is a fresh folder
 * holding `files`; `--db` and the emulator's URL and key are added by the test. Every case must end
 * with exit code 2 and a message matching `where`.
 */
export interface CommandCase {
  name: string;
  kind: "params" | "prices" | "cli";
  args: string[];
  where: RegExp;
  files?: Record<string, string>;
  /** Commands that take no --db. */
  noDb?: boolean;
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `US${10_000_000 + i}B2`).join(",");
const run = (pipeline: string, ...params: string[]) => [
  "run",
  pipeline,
  ...params.flatMap((p) => ["--param", p]),
];

export const PARAM_CASES: CommandCase[] = [
  {
    name: "unknown param",
    kind: "params",
    args: run("marketplace-search", "keyword=a", "nope=1"),
    where: /--param.*nope/,
  },
  {
    name: "pages is not a number",
    kind: "params",
    args: run("marketplace-search", "keyword=a", "pages=abc"),
    where: /pages.*whole number/,
  },
  {
    name: "pages below its minimum",
    kind: "params",
    args: run("marketplace-search", "keyword=a", "pages=0"),
    where: /pages.*minimum/,
  },
  {
    name: "pages above its maximum",
    kind: "params",
    args: run("marketplace-search", "keyword=a", "pages=51"),
    where: /pages.*maximum/,
  },
  {
    name: "pages in exponent form",
    kind: "params",
    args: run("marketplace-search", "keyword=a", "pages=1e3"),
    where: /pages/,
  },
  {
    name: "pages given twice",
    kind: "params",
    args: run("marketplace-search", "keyword=a", "pages=1", "pages=2"),
    where: /pages.*one value/,
  },
  {
    name: "required keyword missing",
    kind: "params",
    args: run("marketplace-search"),
    where: /keyword.*required/,
  },
  {
    name: "keyword of 60001 characters",
    kind: "params",
    args: run("marketplace-search", `keyword=${"k".repeat(60_001)}`),
    where: /keyword.*60000/,
  },
  {
    name: "param without =",
    kind: "params",
    args: run("marketplace-search", "keyword"),
    where: /--param.*name=value/,
  },
  {
    name: "param with an empty name",
    kind: "params",
    args: run("marketplace-search", "=x"),
    where: /--param.*name=value/,
  },
  {
    name: "param name starting with a digit",
    kind: "params",
    args: run("marketplace-search", "1keyword=x"),
    where: /--param.*name=value/,
  },
  {
    name: "101 identifiers in one value",
    kind: "params",
    args: run("patent-claims", `patent=${ids(101)}`),
    where: /patent(Number)?.*100/,
  },
  {
    name: "identifiers over 60000 characters",
    kind: "params",
    args: run("patent-claims", `patent=${ids(40)},${"X".repeat(59_800)}`),
    where: /patent.*60000/,
  },
  {
    name: "patent of 60001 characters",
    kind: "params",
    args: run("patent-bibliography", `patent=${"U".repeat(60_001)}`),
    where: /patent.*60000/,
  },
  {
    name: "lang not in the enum",
    kind: "params",
    args: run("patent-claims-translation", "patent=US10000000B2", "lang=de"),
    where: /lang.*en, cn, jp/,
  },
  {
    name: "related above its maximum",
    kind: "params",
    args: run("patent-claims-translation", "patent=US10000000B2", "related=2"),
    where: /related.*maximum/,
  },
  {
    name: "related not in the enum",
    kind: "params",
    args: run("patent-claims", "patent=US10000000B2", "related=yes"),
    where: /related/,
  },
  {
    name: "connection zero",
    kind: "params",
    args: run("ads-sp-audience", "connection=0"),
    where: /connection.*minimum/,
  },
  {
    name: "connection negative",
    kind: "params",
    args: run("ads-sp-search-impression-share", "connection=-3"),
    where: /connection.*minimum/,
  },
  {
    name: "connection huge",
    kind: "params",
    args: run("ads-sp-audience", "connection=99999999999999999999"),
    where: /connection.*whole number/,
  },
  {
    name: "start is not a date",
    kind: "params",
    args: run("ads-sp-audience", "connection=1", "start=last week"),
    where: /start.*not a date/,
  },
  {
    name: "start is February 30th",
    kind: "params",
    args: run("ads-sp-audience", "connection=1", "start=2025-02-30"),
    where: /start.*not a date/,
  },
  {
    name: "end as SQL",
    kind: "params",
    args: run("ads-sp-audience", "connection=1", "end=2025-01-01'; drop table x; --"),
    where: /end.*not a date/,
  },
  {
    name: "timeUnit not in the enum",
    kind: "params",
    args: run("ads-sp-search-impression-share", "connection=1", "timeUnit=HOURLY"),
    where: /timeUnit/,
  },
  {
    name: "detailLevel not in the enum",
    kind: "params",
    args: run("ads-sp-audience", "connection=1", "detailLevel=KEYWORD"),
    where: /detailLevel/,
  },
  {
    name: "copyright top below 10",
    kind: "params",
    args: run("ip-copyright-check", "image=https://img.example/a.jpg", "top=5"),
    where: /top.*minimum/,
  },
  {
    name: "radar is not a boolean",
    kind: "params",
    args: run("ip-copyright-check", "image=https://img.example/a.jpg", "radar=maybe"),
    where: /radar.*true or false/,
  },
  {
    name: "design mode not in the enum",
    kind: "params",
    args: run("ip-design-patent-check", "image=https://img.example/a.jpg", "mode=3d"),
    where: /mode/,
  },
  {
    name: "TRO image of 1001 characters",
    kind: "params",
    args: run("ip-tro-check", `image=https://img.example/${"a".repeat(990)}.jpg`),
    where: /image.*1000|mainProductImage/,
  },
  {
    name: "TRO with 21 keywords",
    kind: "params",
    args: run(
      "ip-tro-check",
      "image=https://img.example/a.jpg",
      ...Array.from({ length: 21 }, (_, i) => `keywords=k${i}`),
    ),
    where: /keywords|ipKeywords/,
  },
  {
    name: "TRO language not in the enum",
    kind: "params",
    args: run("ip-tro-check", "image=https://img.example/a.jpg", "language=fr"),
    where: /language/,
  },
  {
    name: "patent search q of 1001 characters",
    kind: "params",
    args: run("patent-search", `q=${"q".repeat(1001)}`),
    where: /\bq\b.*1000|q/,
  },
  {
    name: "patent search before in a free form",
    kind: "params",
    args: run("patent-search", "q=drone", "before=yesterday"),
    where: /before/,
  },
  {
    name: "values file that does not exist",
    kind: "params",
    args: run("marketplace-search", "keyword=@$DIR/missing.txt"),
    where: /--param keyword.*missing\.txt/,
  },
  {
    name: "values CSV without the column",
    kind: "params",
    args: run("marketplace-search", "keyword=@$DIR/k.csv#kw"),
    where: /column.*kw/,
    files: { "k.csv": "keyword\nusb hub\n" },
  },
];

export const PRICE_CASES: CommandCase[] = [
  ["yaml error", "marketplace-search: [1,\n", /line \d+|flow|unexpected/i],
  ["negative price", "marketplace-search: -1\n", /marketplace-search/],
  ["price as text", 'marketplace-search: "cheap"\n', /marketplace-search/],
  ["key that is not a slug", '"Marketplace Search": 1\n', /Marketplace Search|slug/],
  ["SQL as a key", '"x\'; drop table skillsync_budgets; --": 1\n', /slug/],
  ["negative perItem", "patent-claims: { perItem: -0.5 }\n", /patent-claims/],
  ["unknown price shape", "patent-claims: { perDay: 1 }\n", /patent-claims/],
  ["perCall and perItem together", "patent-claims: { perCall: 1, perItem: 1 }\n", /patent-claims/],
  ["infinite price", "marketplace-search: .inf\n", /marketplace-search/],
  ["a list, not a mapping", "- marketplace-search: 1\n", /\(root\)|expected/],
].map(([name, text, where]) => ({
  name: `price file: ${name as string}`,
  kind: "prices" as const,
  args: [...run("marketplace-search", "keyword=a"), "--prices", "$DIR/prices.yaml"],
  where: new RegExp(
    `price file .*prices\\.yaml[\\s\\S]*${(where as RegExp).source}`,
    (where as RegExp).flags,
  ),
  files: { "prices.yaml": text as string },
}));
PRICE_CASES.push({
  name: "price file: missing",
  kind: "prices",
  args: [...run("marketplace-search", "keyword=a"), "--prices", "$DIR/nope.yaml"],
  where: /price file .*nope\.yaml/,
});

export const CLI_CASES: CommandCase[] = [
  {
    name: "--concurrency 0",
    kind: "cli",
    args: [...run("marketplace-search", "keyword=a"), "--concurrency", "0"],
    where: /--concurrency/,
  },
  {
    name: "--concurrency not a number",
    kind: "cli",
    args: [...run("marketplace-search", "keyword=a"), "--concurrency", "lots"],
    where: /--concurrency/,
  },
  {
    name: "--concurrency a fraction",
    kind: "cli",
    args: [...run("marketplace-search", "keyword=a"), "--concurrency", "1.5"],
    where: /--concurrency.*whole/,
  },
  {
    name: "--max-credits negative",
    kind: "cli",
    args: [...run("marketplace-search", "keyword=a"), "--max-credits", "-1"],
    where: /--max-credits/,
  },
  {
    name: "--max-credits not a number",
    kind: "cli",
    args: [...run("marketplace-search", "keyword=a"), "--max-credits", "ten"],
    where: /--max-credits/,
  },
  {
    name: "--max-credits infinite",
    kind: "cli",
    args: [...run("marketplace-search", "keyword=a"), "--max-credits", "Infinity"],
    where: /--max-credits/,
  },
  {
    name: "unknown option",
    kind: "cli",
    args: [...run("marketplace-search", "keyword=a"), "--frobnicate"],
    where: /unknown option.*--frobnicate/,
  },
  {
    name: "option value missing",
    kind: "cli",
    args: [...run("marketplace-search", "keyword=a"), "--db", "$DIR/w.db", "--prices"],
    where: /--prices/,
    noDb: true,
  },
  {
    name: "run without a pipeline",
    kind: "cli",
    args: ["run"],
    where: /missing required argument.*pipelines/,
  },
  {
    name: "unknown pipeline name",
    kind: "cli",
    args: ["run", "no-such-pipeline"],
    where: /pipeline argument.*no-such-pipeline/,
  },
  {
    name: "pipeline name with traversal",
    kind: "cli",
    args: ["run", "../../../../etc/passwd"],
    where: /passwd/,
  },
  {
    name: "pipeline file not YAML",
    kind: "cli",
    args: ["run", "$DIR/notes.yaml"],
    where: /pipeline file .*notes\.yaml/,
    files: { "notes.yaml": "{{{ not yaml" },
  },
  { name: "unknown command", kind: "cli", args: ["frobnicate"], where: /unknown command/, noDb: true },
  {
    name: "call: body is bad JSON",
    kind: "cli",
    args: ["call", "websearch-patent-search", "--body", '{"q": }'],
    where: /--body:1:\d+: not valid JSON/,
    noDb: true,
  },
  {
    name: "call: body is an array",
    kind: "cli",
    args: ["call", "websearch-patent-search", "--body", "[1,2]"],
    where: /must be a JSON object/,
    noDb: true,
  },
  {
    name: "call: slug with spaces",
    kind: "cli",
    args: ["call", "Patent Search", "--body", "{}"],
    where: /slug/,
    noDb: true,
  },
  {
    name: "call: empty q",
    kind: "cli",
    args: ["call", "websearch-patent-search", "--body", '{"q":""}'],
    where: /\bq\b/,
    noDb: true,
  },
  {
    name: "call: q of 1001 characters",
    kind: "cli",
    args: ["call", "websearch-patent-search", "--body", JSON.stringify({ q: "x".repeat(1001) })],
    where: /\bq\b/,
    noDb: true,
  },
  {
    name: "call: num of 1000",
    kind: "cli",
    args: ["call", "websearch-patent-search", "--body", '{"q":"x","num":1000}'],
    where: /num/,
    noDb: true,
  },
  {
    name: "call: unknown member",
    kind: "cli",
    args: ["call", "websearch-patent-search", "--body", '{"q":"x","qq":1}'],
    where: /qq|unrecognized/i,
    noDb: true,
  },
  {
    name: "call: 101 identifiers",
    kind: "cli",
    args: ["call", "patent-claims", "--body", JSON.stringify({ patentNumber: ids(101) })],
    where: /patentNumber/,
    noDb: true,
  },
  {
    name: "call: identifiers over 60000 characters",
    kind: "cli",
    args: ["call", "patent-claims", "--body", JSON.stringify({ patentNumber: `US1,${"9".repeat(60_000)}` })],
    where: /patentNumber/,
    noDb: true,
  },
  {
    name: "call: no identifier at all",
    kind: "cli",
    args: ["call", "patent-claims", "--body", "{}"],
    where: /patent(Id|Number)/,
    noDb: true,
  },
  {
    name: "call: identifier of the wrong type",
    kind: "cli",
    args: ["call", "patent-claims", "--body", '{"patentNumber": 12345}'],
    where: /patentNumber/,
    noDb: true,
  },
  {
    name: "call: report connection 0",
    kind: "cli",
    args: [
      "call",
      "marketplace-ads-sp-insights-report-status",
      "--body",
      '{"connectionId":0,"reportId":"r"}',
    ],
    where: /connectionId/,
    noDb: true,
  },
  {
    name: "call: both --body and --body-file",
    kind: "cli",
    args: ["call", "websearch-patent-search", "--body", "{}", "--body-file", "$DIR/b.json"],
    where: /exactly one of --body/,
    noDb: true,
  },
  {
    name: "call: --body-file missing",
    kind: "cli",
    args: ["call", "websearch-patent-search", "--body-file", "$DIR/none.json"],
    where: /--body-file .*none\.json/,
    noDb: true,
  },
  {
    name: "call: --body-file with bad JSON",
    kind: "cli",
    args: ["call", "websearch-patent-search", "--body-file", "$DIR/b.json"],
    where: /b\.json:2:\d+: not valid JSON/,
    files: { "b.json": '{"q": "x",\n "num": ,}' },
    noDb: true,
  },
  {
    name: "call: base URL not a URL",
    kind: "cli",
    args: ["call", "websearch-patent-search", "--body", '{"q":"x"}', "--base-url", "not a url"],
    where: /baseUrl/,
    noDb: true,
  },
  {
    name: "call: base URL with ftp",
    kind: "cli",
    args: ["call", "websearch-patent-search", "--body", '{"q":"x"}', "--base-url", "ftp://127.0.0.1/"],
    where: /baseUrl.*http/,
    noDb: true,
  },
  { name: "budget: daily not a number", kind: "cli", args: ["budget", "--daily", "abc"], where: /--daily/ },
  { name: "budget: daily negative", kind: "cli", args: ["budget", "--daily", "-5"], where: /--daily/ },
  {
    name: "--db with an unknown scheme",
    kind: "cli",
    args: [...run("marketplace-search", "keyword=a"), "--db", "ftp://127.0.0.1/w"],
    where: /database URL.*ftp/,
    noDb: true,
  },
  {
    name: "--db schema with SQL",
    kind: "cli",
    args: [
      ...run("marketplace-search", "keyword=a"),
      "--db",
      "postgres://127.0.0.1:1/x?schema=a;drop%20table%20x",
    ],
    where: /database URL.*schema/,
    noDb: true,
  },
  {
    name: "sql: a write",
    kind: "cli",
    args: ["sql", "delete from skillsync_runs"],
    where: /read-only|readonly|query_only|attempt to write/i,
  },
  { name: "sql: not SQL", kind: "cli", args: ["sql", "this is not sql"], where: /syntax|sql/i },
  { name: "serve: no secret", kind: "cli", args: ["serve", "--port", "0"], where: /SKILLSYNC_SERVER_SECRET/ },
  {
    name: "serve: port not a number",
    kind: "cli",
    args: ["serve", "--port", "http"],
    where: /SKILLSYNC_SERVER_SECRET|--port/,
  },
  { name: "mcp: no server ceiling", kind: "cli", args: ["mcp"], where: /--max-credits/ },
  {
    name: "mcp: ceiling not a number",
    kind: "cli",
    args: ["mcp", "--max-credits", "lots"],
    where: /--max-credits/,
  },
  {
    name: "mcp: concurrency zero",
    kind: "cli",
    args: ["mcp", "--max-credits", "5", "--concurrency", "0"],
    where: /--concurrency/,
  },
  { name: "reports retry: no such job", kind: "cli", args: ["reports", "retry", "999999"], where: /999999/ },
  {
    name: "plan: unknown param",
    kind: "cli",
    args: ["plan", "marketplace-search", "--param", "keyword=a", "--param", "x=1"],
    where: /--param.*\bx\b/,
  },
];
