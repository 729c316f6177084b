import type { ColumnSpec } from "../../schema/pipeline.js";
import type { ColumnType } from "../../schema/table.js";
import { compilePath } from "../define/member-path.js";
import { applyTransform, ConversionError, camelCase, toColumn } from "./convert.js";
import type { RecordContext } from "./row.js";

/** How one declared column of a `records` block reads its value: compiled once, per pipeline. */

type Getter = (record: unknown, index: number, ctx: RecordContext) => unknown;

export interface CompiledColumn {
  name: string;
  type: ColumnType;
  description: string | undefined;
  get: Getter;
  /** The top-level member this column consumes (so it is not repeated in the extra JSON). */
  consumes: string | undefined;
  /** The value depends on the response's context alone ($request, $param, $observedAt…): typed once per batch. */
  perBatch: boolean;
  /** A plain read of the record (no transform): members to read, and the member tried when the first is absent. */
  member?: { parts: string[]; alt: string | undefined } | undefined;
}

type Typed = (v: unknown) => unknown;

export function compileColumn(name: string, spec: ColumnSpec): CompiledColumn {
  const when = typeof spec === "string" ? undefined : spec.when;
  return when ? onlyWhen(compileRead(name, spec), when) : compileRead(name, spec);
}

/** `when:` — the column's value for records whose member matches the pattern; null for the others. */
function onlyWhen(c: CompiledColumn, when: { member: string; matches: string }): CompiledColumn {
  const read = compilePath(when.member);
  const pattern = new RegExp(when.matches);
  const matches = (r: unknown) => {
    const v = read(r);
    if (v === null || v === undefined) return false;
    return pattern.test(typeof v === "object" ? JSON.stringify(v) : String(v));
  };
  const get: Getter = (r, i, ctx) => (matches(r) ? c.get(r, i, ctx) : null);
  return { ...c, get, perBatch: false, member: undefined };
}

function compileRead(name: string, spec: ColumnSpec): CompiledColumn {
  const s = typeof spec === "string" ? { type: spec } : spec;
  const type = s.type ?? "text";
  const transform = typeof spec === "string" ? undefined : spec.transform;
  const description = typeof spec === "string" ? undefined : spec.description;
  if (typeof spec !== "string" && spec.value !== undefined) {
    const constant = spec.value;
    return { name, type, description, get: () => constant, consumes: undefined, perBatch: true };
  }
  const from = (typeof spec === "string" ? undefined : spec.from) ?? camelCase(name);
  const typed: Typed =
    transform === undefined
      ? (v: unknown) => toColumn(v, type)
      : (v: unknown) => toColumn(applyTransform(v, transform, type), type);
  if (from.startsWith("$")) return { name, type, description, ...contextRead(name, from, typed) };
  return {
    name,
    type,
    description,
    ...memberRead(name, from, typed),
    // A path through lists (`a[].b`) is read by compilePath only, not by the generated builder.
    member:
      transform === undefined && !from.includes("[]")
        ? { parts: from.split("."), alt: memberAlt(name, from) }
        : undefined,
  };
}

type Read = Pick<CompiledColumn, "get" | "consumes" | "perBatch">;

/** `$index`, `$input`, `$request.x`…: a value of the response's context, not of the record. */
function contextRead(name: string, from: string, typed: Typed): Read {
  const [head, ...rest] = from.slice(1).split(".");
  const get = contextGetter(from, head, rest.join("."));
  // A record member of the column's own name is the same value seen from the record: not extra.
  return { get: (r, i, c) => typed(get(r, i, c)), consumes: camelCase(name), perBatch: head !== "index" };
}

function contextGetter(from: string, head: string | undefined, path: string): Getter {
  const sub = compilePath(path);
  switch (head) {
    case "index":
      return (_r, i) => i + 1;
    case "input":
      return (_r, _i, c) => c.input;
    case "observedAt":
      return (_r, _i, c) => c.observedAt;
    case "skill":
      return (_r, _i, c) => c.skill;
    case "request":
      return (_r, _i, c) => sub(c.request);
    case "param":
      return (_r, _i, c) => c.params[path];
    case "data":
      return (_r, _i, c) => sub(c.data);
    default:
      return () => {
        throw new ConversionError(`unknown context value ${from}`);
      };
  }
}

/** Members are camelCase by default; a source that already uses the column's own name still maps. */
function memberAlt(name: string, from: string): string | undefined {
  return from === camelCase(name) && from !== name ? name : undefined;
}

/** A member of the record (`a.b`, `a[].b`), or the column-spelt member when the camelCase one is absent. */
function memberRead(name: string, from: string, typed: Typed): Read {
  const alt = memberAlt(name, from);
  const read = compilePath(from);
  const readAlt = alt === undefined ? undefined : compilePath(alt);
  const get: Getter = readAlt
    ? (r) => {
        const v = read(r);
        return typed(v === undefined ? readAlt(r) : v);
      }
    : (r) => typed(read(r));
  const top = from.split(".")[0];
  return { get, consumes: from.includes(".") || from.includes("[]") ? undefined : top, perBatch: false };
}
