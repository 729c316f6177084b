import type { SqlLexicon } from "../adapter.js";

/** SQLite's SQL text: names quoted three ways, flat block comments, and pragmas that only report. */
export const SQLITE_LEXICON: SqlLexicon = {
  nestedComments: false,
  escapeStrings: false,
  identifierQuotes: new Map([
    ['"', '"'],
    ["`", "`"],
    ["[", "]"],
  ]),
  dollarQuotes: false,
  // Asked without `=`, these only report.
  readPragmas: new Set([
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "database_list",
    "collation_list",
    "function_list",
    "compile_options",
  ]),
};
