import type { ChildSpec, ColumnSpec, RecordsSpec } from "../../schema/pipeline.js";
import { compilePath } from "../define/member-path.js";
import { camelCase } from "./convert.js";

/** An object's members, lists first (what records.path most likely meant), for the message. */
function membersOf(v: unknown): string {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "no members";
  const entries = Object.entries(v);
  const names = [
    ...entries.filter(([, m]) => Array.isArray(m)).map(([k]) => `\`${k}\` (a list)`),
    ...entries.filter(([, m]) => !Array.isArray(m)).map(([k]) => `\`${k}\``),
  ];
  if (names.length === 0) return "no members";
  return `${names.slice(0, 8).join(", ")}${names.length > 8 ? ` and ${names.length - 8} more` : ""}`;
}

/**
 * Why an answer cannot give records: its `records.path` names a member the answer does not have.
 * A present member that is null or empty is an answer without records, not a mistake.
 *
 * @example missingRecordsPath("items", { data: [], total: 0 }) // "the answer has no member `items`; it has `data`, `total`"
 */
export function missingRecordsPath(path: string, data: unknown): string | undefined {
  if (path === "." || path === "") return undefined;
  const parts = path.split(".");
  let cur = data;
  for (let i = 0; i < parts.length; i++) {
    const has = cur !== null && typeof cur === "object" && Object.hasOwn(cur, parts[i]!);
    if (!has) {
      const where = i === 0 ? "the answer" : `\`${parts.slice(0, i).join(".")}\``;
      return `${where} has no member \`${parts[i]}\` (records.path: ${path}); it has ${membersOf(cur)}`;
    }
    cur = (cur as Record<string, unknown>)[parts[i]!];
  }
  return undefined;
}

interface Source {
  column: string;
  from: string;
  read: (record: unknown) => unknown;
}

/** What a pipeline's answers showed about its mapping so far. */
export interface MappingQuality {
  /** `column (from member)` for each column no record had a value source for. */
  emptyColumns: string[];
  /** Record members that no column reads (kept in the extra JSON, or dropped). */
  unmappedMembers: string[];
  /** Records seen: with none, no column counts as empty. */
  records: number;
}

/** The record member a column reads, or undefined for context values and constants. */
function sourceOf(name: string, spec: ColumnSpec): string | undefined {
  if (typeof spec !== "string" && spec.value !== undefined) return undefined;
  const from = (typeof spec === "string" ? undefined : spec.from) ?? camelCase(name);
  return from.startsWith("$") ? undefined : from;
}

/**
 * Reads a member for the watch: undefined only when the answer lacks it. A member the answer gives
 * as null — itself or an object on its path (`radarResult: null` for `radarResult.same`) — is there:
 * the service said "none", which is no typo in `from:`.
 */
function presence(path: string): (value: unknown) => unknown {
  if (path.includes("[]")) return compilePath(path);
  const parts = path.split(".");
  return (v) => {
    let cur = v;
    for (const part of parts) {
      if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, part)) return undefined;
      cur = (cur as Record<string, unknown>)[part];
      if (cur === null) return null;
    }
    return cur;
  };
}

/** The columns that read a member of a record (or of a child's element), each with its reader. */
function memberSources(columns: Record<string, ColumnSpec>, skip?: string): Source[] {
  return Object.entries(columns).flatMap(([column, s]) => {
    const from = column === skip ? undefined : sourceOf(column, s);
    if (!from) return [];
    // A member spelt as the column itself is read too (column-read.ts does the same).
    const alt = from === camelCase(column) && from !== column ? presence(column) : undefined;
    const read = presence(from);
    const either = (r: unknown) => {
      const v = read(r);
      return v === undefined ? alt?.(r) : v;
    };
    return [{ column, from, read: alt ? either : read }];
  });
}

/**
 * A child table's columns as empty columns name them: `table.column (from path[].member)`, read
 * from the elements of its path(s) in each record. Its value column takes scalar elements whole.
 */
function childSources(child: ChildSpec) {
  const paths = typeof child.path === "string" ? [child.path] : child.path.map((p) => p.path);
  const lists = paths.map((path) => compilePath(path));
  const sources = memberSources(child.columns, child.valueColumn).map((src) => ({
    ...src,
    column: `${child.table}.${src.column}`,
    from: paths.map((path) => `${path}[].${src.from}`).join(" or "),
  }));
  return { sources, elements: (record: unknown) => lists.flatMap((read) => asList(read(record))) };
}

const asList = (v: unknown): unknown[] => (v == null ? [] : Array.isArray(v) ? v : [v]);

/** The members a record may have without a column losing them: read by a column, or a child's path. */
function mappedMembers(spec: RecordsSpec): Set<string> {
  return new Set<string>([
    ...Object.entries(spec.columns).flatMap(([column, s]) => {
      const from = sourceOf(column, s);
      return [column, camelCase(column), ...(from ? [from.split(".")[0]!] : [])];
    }),
    ...spec.children.flatMap((c) =>
      (typeof c.path === "string" ? [c.path] : c.path.map((p) => p.path)).map((p) => p.split(".")[0]!),
    ),
  ]);
}

/** The `$data.x` columns: a member of the answer beside its records. */
function dataMemberSources(columns: Record<string, ColumnSpec>): Source[] {
  return Object.entries(columns).flatMap(([column, s]) => {
    const from = typeof s === "string" || s.value !== undefined ? undefined : s.from;
    return from?.startsWith("$data.") ? [{ column, from, read: compilePath(from.slice(6)) }] : [];
  });
}

type ChildSources = ReturnType<typeof childSources>;

/** What the records so far showed. */
interface Seen {
  /** Columns some record (or element) had a value source for. */
  found: Set<string>;
  /** Child columns whose table had rows: elements of objects. */
  childElements: Set<string>;
  unmapped: Set<string>;
  records: number;
}

function observeChild(seen: Seen, child: ChildSources, record: object): void {
  for (const element of child.elements(record)) {
    if (element === null || typeof element !== "object") continue;
    for (const s of child.sources) {
      seen.childElements.add(s.column);
      if (!seen.found.has(s.column) && s.read(element) !== undefined) seen.found.add(s.column);
    }
  }
}

/**
 * Watches a pipeline's records for a mapping that silently loses data: a column whose member no
 * record has (a typo in `from:` gives null in every row) — a child table's column too, once its
 * path gave elements — and members no column reads (new in the answers, or never mapped). Off
 * for `inferColumns`, where new members become columns.
 */
export function mappingWatch(spec: RecordsSpec) {
  const readRecords = compilePath(spec.path);
  const sources = memberSources(spec.columns);
  const children = spec.children.map(childSources);
  const mapped = mappedMembers(spec);
  const dataSources = dataMemberSources(spec.columns);
  const seen: Seen = { found: new Set(), childElements: new Set(), unmapped: new Set(), records: 0 };
  const { found } = seen;
  return {
    /** Looks at one answer's records. */
    observe(data: unknown): void {
      if (spec.inferColumns) return;
      const raw = readRecords(data);
      const list = Array.isArray(raw) ? raw : raw == null ? [] : [raw];
      // A `$data.x` column is filled on this answer's rows when its data has the member.
      if (list.length) for (const s of dataSources) if (s.read(data) !== undefined) found.add(s.column);
      for (const record of list) {
        if (record === null || typeof record !== "object") continue;
        seen.records++;
        for (const k of Object.keys(record)) if (!mapped.has(k)) seen.unmapped.add(k);
        for (const s of sources)
          if (!found.has(s.column) && s.read(record) !== undefined) found.add(s.column);
        for (const child of children) observeChild(seen, child, record);
      }
    },
    /** What was seen; columns count as empty only once some record was seen. */
    quality(): MappingQuality {
      const empty = [
        ...[...sources, ...dataSources].filter((s) => !found.has(s.column)),
        // A child's column counts once its table had rows: elements of objects.
        ...children.flatMap((c) =>
          c.sources.filter((s) => seen.childElements.has(s.column) && !found.has(s.column)),
        ),
      ];
      return {
        emptyColumns: seen.records === 0 ? [] : empty.map((s) => `${s.column} (from ${s.from})`),
        unmappedMembers: [...seen.unmapped],
        records: seen.records,
      };
    },
  };
}

export type MappingWatch = ReturnType<typeof mappingWatch>;
