import { dayOf } from "./dates.js";

/**
 * When a number was published, from its series: offices number their publications in sequence,
 * so EP4… is from 2022 on, CN116… from 2023, US11… from 2021–2024. A number between two anchors
 * is dated between them; one past the last anchor is dated at it, one before the first by the
 * first segment's pace (never before 1990). Numbers that carry their year (US2021…A1, JP, WO, DE)
 * are dated in that year by the profile.
 */

type Anchor = readonly [number, string];

// biome-ignore format: one series a line
const SERIES: Record<string, readonly Anchor[]> = {
  // US grants (utility, 8 digits), e.g. US 10,000,000 issued 2018-06-19.
  US: [[9_000_000, "2015-04-14"], [10_000_000, "2018-06-19"], [11_000_000, "2021-05-11"], [12_000_000, "2024-06-04"], [12_700_000, "2026-07-28"]],
  USD: [[750_000, "2015-10-06"], [900_000, "2020-10-27"], [1_000_000, "2023-09-26"], [1_100_000, "2026-07-28"]],
  // EP publication numbers (the application's A1 and its grant's B1 share it).
  EP: [[1_000_000, "2000-07-05"], [2_000_000, "2008-12-24"], [3_000_000, "2016-03-30"], [4_000_000, "2022-06-08"], [4_700_000, "2026-08-05"]],
  // CN invention publications (9 digits) and designs (CN30…S).
  CN: [[105_000_000, "2015-10-07"], [110_000_000, "2019-07-26"], [115_000_000, "2022-10-28"], [116_000_000, "2023-04-11"], [117_000_000, "2023-11-17"], [118_000_000, "2024-05-28"], [119_000_000, "2024-11-26"], [121_000_000, "2026-07-03"]],
  CNS: [[303_000_000, "2015-01-07"], [306_000_000, "2020-11-17"], [308_000_000, "2023-03-21"], [309_600_000, "2026-07-03"]],
  JPS: [[1_500_000, "2014-06-02"], [1_680_000, "2021-03-15"], [1_780_000, "2024-09-02"], [1_820_000, "2026-07-01"]],
  // KR registrations and publications after the 10- prefix (7 digits).
  KR: [[1_000_000, "2010-10-13"], [2_000_000, "2019-06-28"], [2_900_000, "2026-07-15"]],
};

const FLOOR = dayOf("1990-01-01");

/** The series a number belongs to and its serial within it; null for numbers that carry a year. */
function seriesOf(pn: string): { series: string; serial: number } | null {
  const m =
    /^(USD)(\d{6,7})S\d?$/.exec(pn) ??
    /^(US)(\d{7,8})B\d?$/.exec(pn) ??
    /^(EP)(\d{7})[AB]\d?$/.exec(pn) ??
    /^(KR)10(\d{7})(?:A|B\d?)$/.exec(pn) ??
    /^(CN)(\d{9})[AB]$/.exec(pn);
  if (m) return { series: m[1] as string, serial: Number(m[2]) };
  const design = /^(CN|JP)(\d{7,9})S$/.exec(pn);
  return design ? { series: `${design[1]}S`, serial: Number(design[2]) } : null;
}

/** The day a number of a series was first published (its application's, for EP and CN grants), or null. */
export function seriesDay(pn: string): number | null {
  const found = seriesOf(pn);
  const anchors = found && SERIES[found.series];
  if (!found || !anchors) return null;
  const { serial } = found;
  const at = anchors.map(([n, d]) => [n, dayOf(d)] as const);
  const last = at[at.length - 1] as readonly [number, number];
  if (serial >= last[0]) return last[1];
  let i = at.findIndex(([n]) => n > serial);
  if (i <= 0) i = 1;
  const [n0, d0] = at[i - 1] as readonly [number, number];
  const [n1, d1] = at[i] as readonly [number, number];
  return Math.max(FLOOR, Math.round(d0 + ((serial - n0) * (d1 - d0)) / (n1 - n0)));
}

/** Grants published under the application's number (EP B1, CN B) come out a while after it. */
export function grantSharesApplicationNumber(pn: string): boolean {
  return /^EP\d+B\d?$/.test(pn) || /^CN\d+B$/.test(pn);
}
