import type { RecordsSpec } from "../../schema/pipeline.js";

/**
 * The comments of what the toolkit adds to a pipeline's tables (columns no pipeline file
 * declares) and the sentences that say how a table's rows relate, by mode: a BI tool or an
 * analyst reading the catalog learns what each table and column is without the pipeline file.
 */

type Mode = RecordsSpec["mode"];

const list = (columns: readonly string[]) => columns.join(", ");

export const TOOLKIT_COLUMNS = {
  run_id: "The skillsync run that wrote or last updated this row (skillsync runs lists them).",
  loaded_at: "When the answer this row comes from arrived (UTC).",
  load_id:
    "The load (a pipeline's part of a run) that wrote or last updated this row; higher ids are later loads (export --since-last reads it).",
  extra: "Members of the record that no column reads, as JSON (null when there are none).",
  parentValidFrom: (parent: string) =>
    `Start of the ${parent} version this row belongs to (that version's valid_from).`,
  parentValidTo: (parent: string) => `End of the ${parent} version this row belongs to (null: current).`,
  valid_from: "When this version became current: the arrival of the answer that first showed it (UTC).",
  valid_to: "When a newer version replaced this one (UTC); null while this is the current version.",
  version_hash: "Fingerprint of this version's content and its child rows: a change makes a new version.",
  children_hash: "Fingerprint of this version's child rows alone (the _changes view compares it).",
  position: "Place of the element in the parent record's list, from 1 (the order the answer gave).",
  value: "The list element itself, when it is a plain value (text or number).",
  set: (column: string, sources: readonly { path: string; set?: Record<string, unknown> | undefined }[]) => {
    const values = sources.flatMap((s) =>
      s.set?.[column] === undefined ? [] : [`${s.set[column]} (${s.path})`],
    );
    return `Which list of the parent record the row came from: ${values.join(", ")}.`;
  },
  inferred:
    "A member of the records no column declares, added when an answer first brought it (inferColumns); its type is inferred from the values.",
  reportColumn: (header: string) =>
    `The report's "${header}" column, added when a part first brought it (inferColumns); its type is inferred from the values.`,
  reportId: "The report (its id at the API) this row comes from.",
  reportPart: "The part (downloaded file) of the report this row comes from, from 1.",
  reportRow: "The row's number in its part.",
  parentKey: (parent: string, column: string) => `The ${parent} row this row belongs to: its ${column}.`,
};

/** The sentence that says what a pipeline's own table holds per key in its mode. */
export function parentRelation(table: string, mode: Mode, key: readonly string[]): string {
  const k = list(key);
  switch (mode) {
    case "merge":
      return `One row per ${k} (primary key); a later load updates it.`;
    case "replace":
      return key.length
        ? `One row per ${k} (primary key), from the last complete run.`
        : "The rows of the last complete run.";
    case "append":
      return key.length
        ? `Every load adds its rows, so ${k} repeats (no primary key); load_id says which load.`
        : "Every load adds its rows; load_id says which load.";
    case "history":
      return (
        `One row per version of each ${k} (primary key: ${k}, valid_from), current from valid_from ` +
        `until valid_to (null: the current version). ${table}_current shows current versions, ` +
        `${table}_changes what changed.`
      );
  }
}

/** The sentence that says which parent row a child table's row belongs to. */
export function childRelation(parent: string, mode: Mode, key: readonly string[]): string {
  const k = list(key);
  switch (mode) {
    case "merge":
    case "replace":
      return `Each row belongs to the ${parent} row with the same ${k} (foreign key); position orders them.`;
    case "history":
      return (
        `Each row belongs to one version of a ${parent} row: the one with the same ${k} and ` +
        `valid_from (foreign key); position orders them.`
      );
    case "append":
      return (
        `Each row came with the ${parent} row of the same ${k}, load_id and loaded_at (one answer); ` +
        `append keeps every row, so neither table has a unique key to refer to (no foreign key).`
      );
  }
}

/** A table's comment: what one row is (when the pipeline says), then how its rows relate. */
export function tableComment(description: string | undefined, relation: string): string {
  const what = description?.trim().replace(/\s+/g, " ");
  return what ? `${what}${/[.!?]$/.test(what) ? "" : "."} ${relation}` : relation;
}
