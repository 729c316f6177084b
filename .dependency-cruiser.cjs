// The folder tree is the architecture: each source folder may import only the folders named in
// `may` (its own included). `npm run lint:imports` checks it; docs/architecture.md explains it.
const ENGINE_STAGES = [
  "define",
  "extract",
  "normalize",
  "load",
  "publish",
  "watch",
  "reports",
  "run",
  "distribute",
  "start",
];
const BELOW_ENGINE = ["core", "schema", "connectors", "migrations", "store"];

/** Each engine stage imports only the stages before it. */
const stageRules = ENGINE_STAGES.map((stage, i) => ({
  folder: `engine/${stage}`,
  may: [...BELOW_ENGINE, ...ENGINE_STAGES.slice(0, i + 1).map((s) => `engine/${s}`)],
}));
// Notifications stand beside the stages: the outbox (store) and a webhook POST (connectors), no
// stage; the run's stages hand webhooks to the store by their hashes and never import it.
stageRules.push({ folder: "engine/notify", may: [...BELOW_ENGINE, "engine/notify"] });
// Starting a run (every front door's one use-case) ends with the run's events delivered: it takes notify too.
stageRules.find((r) => r.folder === "engine/start").may.push("engine/notify");

const layers = [
  { folder: "core", may: ["core"] },
  { folder: "schema", may: ["core", "schema"] },
  { folder: "connectors/skill-api", may: ["core", "schema", "connectors/skill-api"] },
  // Sheets shares only the skill API's retry timing (full-jitter backoff), nothing of its HTTP.
  {
    folder: "connectors/sheets",
    may: ["core", "schema", "connectors/sheets", "connectors/skill-api/retry\\.ts"],
  },
  { folder: "connectors/warehouse", may: ["core", "schema", "connectors/warehouse"] },
  // Files of rows (`skillsync export`): Parquet through DuckDB, CSV, JSON Lines; nothing of ours but core.
  { folder: "connectors/files", may: ["core", "connectors/files"] },
  // A webhook is one POST: nothing of ours but core.
  { folder: "connectors/webhook", may: ["core", "connectors/webhook"] },
  // An e-mail is one SMTP conversation (nodemailer): nothing of ours but core.
  { folder: "connectors/mail", may: ["core", "connectors/mail"] },
  // The queue (pg-boss) lives in the warehouse's Postgres: it reads the warehouse's URL and errors, nothing else.
  {
    folder: "connectors/queue",
    may: ["core", "connectors/warehouse/(url|driver-errors)\\.ts", "connectors/queue"],
  },
  { folder: "migrations", may: ["core", "connectors/warehouse", "migrations"] },
  { folder: "store", may: ["core", "schema", "connectors/warehouse", "migrations", "store"] },
  ...stageRules,
  { folder: "server", may: [...BELOW_ENGINE, "engine", "server"] },
  { folder: "scheduler", may: [...BELOW_ENGINE, "engine", "scheduler"] },
  // The MCP server shares pieces with server/ only through engine/ and store/.
  { folder: "mcp", may: [...BELOW_ENGINE, "engine", "mcp"] },
  { folder: "cli", may: [...BELOW_ENGINE, "engine", "server", "scheduler", "mcp", "emulator", "cli"] },
  { folder: "emulator", may: ["core", "schema", "emulator"] },
  { folder: "pipelines", may: [] },
  // The console's browser code is bundled on its own (scripts/build-web.mjs): uPlot and nothing of ours.
  { folder: "web", may: ["web"] },
];

const ours =
  "^(core|schema|connectors|migrations|store|engine|server|scheduler|mcp|cli|emulator|pipelines|web|bench|scripts|test)/";
const under = (folders) => `^(${folders.join("|")})(/|$)`;

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import circle means a type or function lives in the wrong file: move it down a layer.",
      from: {},
      to: { circular: true },
    },
    ...layers.map(({ folder, may }) => ({
      name: `layer:${folder}`,
      severity: "error",
      comment: `${folder}/ may import only ${may.length ? may.join(", ") : "nothing of ours"} (docs/architecture.md).`,
      from: { path: `^${folder}/` },
      to: may.length ? { path: ours, pathNot: under(may) } : { path: ours },
    })),
    {
      name: "no-test-code-in-source",
      severity: "error",
      comment: "Source never imports tests, benchmarks or scripts.",
      from: { pathNot: "^(test|bench|scripts)/|\\.test\\.ts$|^vitest" },
      to: { path: "^(test|bench|scripts)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist|apps-script)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
  },
};
