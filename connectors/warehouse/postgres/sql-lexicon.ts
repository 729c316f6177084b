import type { SqlLexicon } from "../adapter.js";

/** Postgres's SQL text: nested block comments, `E'…'` escapes, dollar quotes, no pragmas. */
export const POSTGRES_LEXICON: SqlLexicon = {
  nestedComments: true,
  escapeStrings: true,
  identifierQuotes: new Map([['"', '"']]),
  dollarQuotes: true,
  readPragmas: undefined,
};
