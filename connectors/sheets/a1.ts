/** A1 notation, as the Sheets API reads it: quoted tab names, column letters, 1-based rows. */

/**
 * Column letters of a 1-based column number.
 *
 * @example columnLetters(1) // "A"; columnLetters(27) // "AA"; columnLetters(18278) // "ZZZ"
 */
function columnLetters(column: number): string {
  if (!Number.isInteger(column) || column < 1)
    throw new RangeError(`column ${column} is not a 1-based number`);
  let n = column;
  let out = "";
  while (n > 0) {
    const r = (n - 1) % 26;
    out = String.fromCharCode(65 + r) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

/** A tab name quoted for a range: `'My tab'` (quotes inside doubled), always quoted so no name is mistaken for a cell. */
export function quoteTab(tab: string): string {
  return `'${tab.replaceAll("'", "''")}'`;
}

/**
 * A rectangle of a tab: rows and columns are 1-based and inclusive.
 *
 * @example a1Range("Results", 2, 1, 501, 6) // "'Results'!A2:F501"
 */
export function a1Range(
  tab: string,
  firstRow: number,
  firstColumn: number,
  lastRow: number,
  lastColumn: number,
): string {
  return `${quoteTab(tab)}!${columnLetters(firstColumn)}${firstRow}:${columnLetters(lastColumn)}${lastRow}`;
}
