import { requestHash } from "../../core/hash.js";
import {
  IDENTIFIER_MEMBERS,
  identifierKey,
  isPatentIdentifierSlug,
  RECORD_IDENTIFIER_MEMBERS,
} from "../../schema/patent-identifier.js";
import type { LoadedPipeline } from "../define/pipeline-file.js";

/** How a pipeline's batches split into items: the request member listing them, the answer member holding the records. */
export interface ItemSplit {
  member: string;
  recordsPath: string;
}

/** The items of one batch call and the key each item's part is stored under. */
export interface ItemKeys {
  items: string[];
  hashes: string[];
}

type Data = Record<string, unknown>;

/**
 * Whether a pipeline's answers split per item, so each item is paid once within its freshness:
 * a batched patent-identifier operation whose records each name the patent they answer. Not when
 * the template also sets the other identifier member (`patentId` wins over `patentNumber`: the
 * items would be other ones), when pages follow, or when a column reads the record's position or
 * the batch itself (`$index`, `$request.patentNumber`): those depend on how items were packed.
 */
export function itemSplitOf(p: LoadedPipeline): ItemSplit | undefined {
  if (!splits.has(p)) splits.set(p, splitOf(p));
  return splits.get(p);
}

const splits = new WeakMap<LoadedPipeline, ItemSplit | undefined>();

function splitOf(p: LoadedPipeline): ItemSplit | undefined {
  const batch = p.batch;
  if (!batch || p.paginate || p.report || !isPatentIdentifierSlug(p.skill)) return undefined;
  const members: readonly string[] = IDENTIFIER_MEMBERS;
  if (!members.includes(batch.member)) return undefined;
  if (members.some((m) => m !== batch.member && m in p.request)) return undefined;
  const path = p.records.path;
  if (!path || path.includes(".")) return undefined;
  const mapping = JSON.stringify(p.records);
  if (mapping.includes("$index") || mapping.includes(`$request.${batch.member}`)) return undefined;
  return { member: batch.member, recordsPath: path };
}

/**
 * The key an item's part is stored under: the hash of the request asking for that item alone
 * (the batch's other members kept), so a call of that very request finds it too.
 */
export function itemKeys(skill: string, split: ItemSplit, body: Data, items: string[]): ItemKeys {
  return { items, hashes: items.map((item) => requestHash(skill, { ...body, [split.member]: item })) };
}

/**
 * Each item's part of a batch's answer: the answer with only the records naming that item
 * (none: the service did not know it, remembered as such). Undefined when the answer has no
 * record list or a record names no item asked for (the service matched identifiers in a way this
 * cannot follow): then nothing is split, and the answer is kept whole only.
 *
 * @example splitAnswer(split, { total: 1, data: [{ pn: "US1A" }] }, ["US1A", "US2B"]) // [{ total: 1, data: [{ pn: "US1A" }] }, { total: 0, data: [] }]
 */
export function splitAnswer(split: ItemSplit, data: unknown, items: string[]): Data[] | undefined {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  const records = (data as Data)[split.recordsPath];
  if (!Array.isArray(records)) return undefined;
  const byKey = new Map<string, number[]>();
  for (const [i, item] of items.entries()) {
    const key = identifierKey(item);
    byKey.set(key, [...(byKey.get(key) ?? []), i]);
  }
  const parts: unknown[][] = items.map(() => []);
  for (const record of records) {
    const named = new Set<number>();
    if (record !== null && typeof record === "object") {
      for (const m of RECORD_IDENTIFIER_MEMBERS) {
        const v = (record as Data)[m];
        if (typeof v === "string") for (const i of byKey.get(identifierKey(v)) ?? []) named.add(i);
      }
    }
    if (!named.size) return undefined;
    for (const i of named) parts[i]!.push(record);
  }
  return parts.map((list) => withRecords(split, data as Data, list));
}

/** Parts of several items as one answer, loaded as the batch asking for them would have been. */
export function joinParts(split: ItemSplit, parts: Data[]): Data {
  return withRecords(
    split,
    parts[0] ?? {},
    parts.flatMap((part) => {
      const list = part[split.recordsPath];
      return Array.isArray(list) ? list : [];
    }),
  );
}

/** `data` with `records` at the records member; a numeric `total` counts them. */
function withRecords(split: ItemSplit, data: Data, records: unknown[]): Data {
  const out: Data = { ...data, [split.recordsPath]: records };
  if (typeof data["total"] === "number") out["total"] = records.length;
  return out;
}

/**
 * The parts of a paid batch's answer to store beside it, each under its item's key with the
 * request asking for that item alone. None when the answer does not split (splitAnswer).
 */
export function partsToStore(
  p: LoadedPipeline,
  call: { hash: string; body: Data; parts?: ItemKeys | undefined },
  data: unknown,
): { hash: string; request: Data; data: Data }[] {
  const split = itemSplitOf(p);
  if (!split || !call.parts) return [];
  const { items, hashes } = call.parts;
  const parts = splitAnswer(split, data, items);
  if (!parts) return [];
  return parts.flatMap((part, i) =>
    // A batch of one is its item's own request: stored once, whole.
    hashes[i] === call.hash
      ? []
      : [{ hash: hashes[i]!, request: { ...call.body, [split.member]: items[i]! }, data: part }],
  );
}
