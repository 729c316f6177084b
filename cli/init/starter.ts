import { dirname, join, relative, sep } from "node:path";
import { Document, isMap, isScalar, isSeq, type YAMLMap } from "yaml";
import { ExitCode, SkillsyncError } from "../../core/errors.js";
import { builtinPipelineDir, parsePipeline } from "../../engine/define/pipeline-file.js";
import { getOperation, type Operation } from "../../schema/catalog.js";
import { dataJsonSchema, requestJsonSchema } from "../../schema/documents/json-schema.js";
import { type RecordsPart, recordsPart, tableName } from "./records-part.js";
import { type RequestPart, requestPart } from "./request-params.js";

/** A file's text: its leading comment lines, its members, and a comment above some of its members. */
interface Draft {
  header: string[];
  body: Record<string, unknown>;
  notes: Record<string, string[]>;
}

/**
 * The text of a starting pipeline file for `slug`, to be written at `file`, naming the pipeline
 * `name` and its table after it: typed from the catalog for a documented operation, the generic
 * form (inferred columns, request to fill in) for any other slug. Checked as `plan` reads it
 * before it is returned.
 *
 * @example starterText("marketplace-search", "/tmp/my-search.yaml", "my-search") // "# yaml-language-server: …"
 */
export function starterText(slug: string, file: string, name = slug): string {
  const op = getOperation(slug);
  if (op?.reportRole) {
    throw new SkillsyncError(
      "USAGE",
      `${slug} is part of an asynchronous report (create, poll, download): start from a built-in report pipeline, e.g. ads-sp-audience (\`skillsync pipelines\`, docs/reports.md)`,
      ExitCode.usage,
    );
  }
  const draft = op?.recordsPath ? documented(op, op.recordsPath, file, name) : generic(slug, file, name);
  const text = render(draft, file);
  parsePipeline(text, file);
  return text;
}

function documented(op: Operation, recordsPath: string, file: string, name: string): Draft {
  const req = requestPart(op.slug, requestJsonSchema(op));
  const members = [...Object.keys(req.request), ...(req.batch ? [req.batch.member] : [])];
  const records = {
    ...recordsPart(op.slug, recordsPath, dataJsonSchema(op), members),
    table: tableName(name),
  };
  const required = Object.entries(req.params).filter(([, p]) => p.required);
  const args = required.map(([name]) => ` --param ${name}=…`).join("");
  return {
    header: [
      `A starting pipeline for ${op.slug} (${op.title}),`,
      "written by `skillsync init` from the catalog. Edit what you need (params, columns, key), then:",
      `  skillsync plan ${file}${args}   (sends nothing)`,
      `  skillsync run ${file}${args}`,
    ],
    body: {
      name,
      description: op.description,
      skill: op.slug,
      params: req.params,
      ...(req.input ? { input: req.input } : {}),
      request: req.request,
      ...(req.batch ? { batch: req.batch } : {}),
      ...(req.paginate ? { paginate: req.paginate } : {}),
      freshness: "24h",
      records,
    },
    notes: { ...requestNotes(req), ...recordsNotes(records) },
  };
}

function requestNotes(req: RequestPart): Record<string, string[]> {
  const skipped = req.skipped.length
    ? [`Not offered as params (no param kind holds them): ${req.skipped.join(", ")}; write them in request.`]
    : [];
  return {
    params: [
      "--param values, typed from the contract's request: its required members are required,",
      "enums and defaults as it has them. Rename, drop or give defaults as you like.",
    ],
    ...(req.input ? { input: ["Each value is one call (or, with batch, one identifier of a call)."] } : {}),
    ...(req.batch ? { batch: ["Identifiers go up to 100 a call, joined by commas in this member."] } : {}),
    request: [
      'Request members: "{{param}}" keeps the param\'s type; a member whose param is unset is left out.',
      ...skipped,
    ],
    ...(req.paginate
      ? { paginate: ["The next page is asked while answers bring records, up to `pages`."] }
      : {}),
    freshness: ["A stored answer this young is reused for 0 credits instead of paying again."],
  };
}

function recordsNotes(records: RecordsPart): Record<string, string[]> {
  const columns = records.inferColumns
    ? "The contract does not describe these records: inferColumns makes a column of each member."
    : "A column per documented record field (text, integer, number, boolean; json: objects, lists).";
  const key = records.key
    ? "key identifies a record: a run upserts on it (mode: merge)."
    : "No member surely identifies a record, so rows are appended; name one in key: and set mode: merge.";
  return {
    records: [
      "path: where the records are in the answer's data.",
      columns,
      "Members no column reads land in the extra JSON column (docs/pipeline-files.md).",
      key,
    ],
  };
}

function generic(slug: string, file: string, name: string): Draft {
  return {
    header: [
      `A starting pipeline for ${slug}, written by \`skillsync init\`. The contract does not detail this`,
      "operation: nothing is known of its request or its answer. Fill in:",
      `  1. See one answer: skillsync call ${slug} --body '{"keyword":"desk lamp"}' (one paid call).`,
      "  2. params and request: the members it takes, with {{param}} templates (docs/pipeline-files.md,",
      '     "Operations beyond the documented 23"), e.g. params: { keyword: { required: true } } and',
      '     request: { keyword: "{{keyword}}" }. As written, every run sends an empty request {}.',
      "  3. records.path: where the answer's data holds its records (here: data).",
      "  4. records.key: the member that identifies a record, with mode: merge (rows are appended until then).",
      `Then: skillsync plan ${file}   and   skillsync run ${file}`,
    ],
    body: {
      name,
      skill: slug,
      params: {},
      request: {},
      freshness: "24h",
      records: { path: "data", table: tableName(name), mode: "append", inferColumns: true },
    },
    notes: {
      records: ["inferColumns: a column for every member the answers bring, typed from their values."],
    },
  };
}

function render(draft: Draft, file: string): string {
  const doc = new Document(draft.body);
  const top = doc.contents as YAMLMap;
  for (const pair of top.items) {
    const name = isScalar(pair.key) ? String(pair.key.value) : "";
    const note = draft.notes[name];
    if (note && isScalar(pair.key)) pair.key.commentBefore = note.map((l) => ` ${l}`).join("\n");
  }
  // One line per param and per column, as the built-in files write them.
  for (const path of [["params"], ["records", "columns"]]) {
    const map = doc.getIn(path, true);
    if (!isMap(map)) continue;
    for (const pair of map.items) if (isMap(pair.value)) pair.value.flow = true;
  }
  for (const path of [["input"], ["batch"], ["paginate"], ["records", "key"]]) {
    const node = doc.getIn(path, true);
    if (isMap(node) || isSeq(node)) node.flow = true;
  }
  const schema = relative(
    dirname(file),
    join(dirname(builtinPipelineDir()), "schema", "pipeline.schema.json"),
  );
  const header = [`yaml-language-server: $schema=${schema.split(sep).join("/")}`, "", ...draft.header];
  const comments = header.map((l) => (l ? `# ${l}` : "#")).join("\n");
  return `${comments}\n${doc.toString({ lineWidth: 0 })}`;
}
