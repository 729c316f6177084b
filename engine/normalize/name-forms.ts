/**
 * Forms other sources join on, derived from one value: publication numbers in the DOCDB form
 * (`docdb` transform) and company names without case, punctuation or legal form (`company_name`).
 */

/** Country, serial (letters of series such as RE, D, PP, H0 allowed) and kind code, once cleaned. */
const PUBLICATION_NUMBER = /^([A-Z]{2})([A-Z]{0,2}\d+)([A-Z]\d?)?$/;

/**
 * A publication number in the DOCDB form: `US11234567B2` → `US-11234567-B2`, `EP3123456` →
 * `EP-3123456`. Google Patents' forms are taken too (`patent/US11234567B2/en`, `US 11,234,567 B2`,
 * `US-11234567-B2`). US pre-grant publications drop the serial's leading zero, as DOCDB does
 * (`US20210123456A1` → `US-2021123456-A1`). Null for text that is no publication number.
 */
export function docdbNumber(value: unknown): string | null {
  const cleaned = String(value)
    .trim()
    .toUpperCase()
    .replace(/^PATENT\//, "")
    .replace(/\/[A-Z]{2}$/, "")
    .replace(/[\s,./-]+/g, "");
  const m = PUBLICATION_NUMBER.exec(cleaned);
  if (!m) return null;
  const [, country, serial, kind] = m as unknown as [string, string, string, string | undefined];
  // US applications: year + 7 digits in Google Patents' and the USPTO's form, year + 6 in DOCDB.
  const number =
    country === "US" && /^20\d{2}0\d{6}$/.test(serial) ? serial.slice(0, 4) + serial.slice(5) : serial;
  return kind ? `${country}-${number}-${kind}` : `${country}-${number}`;
}

/**
 * Legal forms, as words once punctuation is gone ("Co., Ltd." → CO LTD, "S.A." → SA): dropped from
 * the end of a name, several in turn ("GmbH & Co. KG"). The first that fits is dropped: AND CO before CO.
 */
// biome-ignore format: one line per family of legal forms reads better than one per line
const LEGAL_FORMS = [
  "GESELLSCHAFT MIT BESCHRANKTER HAFTUNG", "KOMMANDITGESELLSCHAFT AUF AKTIEN", "KABUSHIKI KAISHA", "KABUSHIKI GAISHA",
  "AKTIENGESELLSCHAFT", "AKTIEBOLAG", "AKTIESELSKAB", "KOMMANDITGESELLSCHAFT", "AND CO", "SDN BHD",
  "INCORPORATED", "INC", "CORPORATION", "CORP", "COMPANY", "CO", "LIMITED", "LTD", "LTDA", "PLC", "LLC", "L L C", "LLP", "LP",
  "AG", "GMBH", "MBH", "KGAA", "KG", "OHG", "EV", "SE", "SA", "S A", "SAS", "SARL", "SPA", "S P A", "SRL", "SL", "SLU",
  "NV", "N V", "BV", "B V", "AB", "PUBL", "AS", "A S", "ASA", "OY", "OYJ", "KK", "PTY", "PTE", "BHD",
].map((form) => form.split(" "));

/** Legal forms that open a name (Japanese companies: "Kabushiki Kaisha Toshiba"), and an article. */
const LEADING = [["KABUSHIKI", "KAISHA"], ["KABUSHIKI", "GAISHA"], ["THE"]];

/** Legal forms written without spaces (Chinese and Japanese names), at either end. */
const CJK_FORMS = /^株式会社|(?:股份有限公司|有限责任公司|有限公司|株式会社)$/u;

const endsWith = (words: string[], form: string[]) =>
  words.length > form.length && form.every((w, i) => words[words.length - form.length + i] === w);
const startsWith = (words: string[], form: string[]) =>
  words.length > form.length && form.every((w, i) => words[i] === w);

/** Drops legal forms from the end while a word of the name itself remains. */
function withoutLegalForms(words: string[]): string[] {
  let rest = words;
  let form = LEGAL_FORMS.find((f) => endsWith(rest, f));
  while (form) {
    rest = rest.slice(0, rest.length - form.length);
    form = LEGAL_FORMS.find((f) => endsWith(rest, f));
  }
  const lead = LEADING.find((f) => startsWith(rest, f));
  return lead ? rest.slice(lead.length) : rest;
}

/**
 * A company name in one form for every way it is written: upper case, accents and punctuation
 * gone (`&` read as AND; dots and apostrophes close up: "S.A." → SA, "O'Brien" → OBRIEN), legal forms dropped ("Apple, Inc." and "APPLE INC" → APPLE; "Samsung
 * Electronics Co., Ltd." → SAMSUNG ELECTRONICS; "Siemens Aktiengesellschaft" → SIEMENS). A name
 * that is a legal form alone keeps it. Null for a blank name.
 */
export function companyName(value: unknown): string | null {
  const folded = String(value)
    // Accents off Latin letters only: a kana's voicing mark is part of the letter.
    .normalize("NFKD")
    .replace(/(\p{Script=Latin})\p{M}+/gu, "$1")
    .normalize("NFC")
    .toUpperCase()
    .replace(/&/g, " AND ")
    .replace(/[.'’]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  if (folded === "") return null;
  const words = withoutLegalForms(folded.split(" "));
  const name = words.join(" ").replace(CJK_FORMS, "").trim();
  return name === "" ? words.join(" ") : name;
}
