/** What normalising an answer produces: rows per table, and the records it had to reject. */
export type Row = Record<string, unknown>;

/** What a record's columns may read besides the record itself. */
export interface RecordContext {
  input: unknown;
  request: Record<string, unknown>;
  params: Record<string, unknown>;
  observedAt: string;
  runId: string;
  /** The load (skillsync_loads) the rows belong to; none outside a run (tests, the benchmark). */
  loadId?: number | null | undefined;
  skill: string;
  /** The whole answer's `data`, for columns reading a member beside the records (`$data.total`). */
  data?: unknown;
}

export interface Reject {
  table: string;
  reason: string;
  record: unknown;
}

export interface Normalised {
  /** Rows per table name, parent first. */
  rows: Map<string, Row[]>;
  rejects: Reject[];
}
