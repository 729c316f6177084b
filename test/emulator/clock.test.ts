import { afterEach, describe, expect, it } from "vitest";
import { ValidationError } from "../../core/errors.js";
import {
  answerAt,
  DEFAULT_EMULATOR_DATE,
  type Emulator,
  legalStatusAt,
  startEmulator,
} from "../../emulator/index.js";
import { emulators, post } from "./helpers.js";

const emus = emulators();
afterEach(() => emus.stopAll());

// biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
type Json = any;

async function clock(emu: Emulator, body?: unknown, raw?: string): Promise<{ status: number; json: Json }> {
  const init =
    body === undefined && raw === undefined
      ? {}
      : {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: raw ?? JSON.stringify(body),
        };
  const res = await fetch(`${emu.url}/__emulator/clock`, init);
  return { status: res.status, json: await res.json() };
}

async function moveClock(emu: Emulator, date: string): Promise<void> {
  const res = await clock(emu, { date });
  expect(res).toEqual({ status: 200, json: { date } });
}

/** ~600 well-formed numbers of several offices and kinds, of which the emulator knows about nine in ten. */
function candidateNumbers(): string[] {
  const six = (n: number) => String(n).padStart(6, "0");
  return Array.from({ length: 600 }, (_, i) => {
    switch (i % 5) {
      case 0:
        return `US${10_000_000 + i * 7919}B2`;
      case 1:
        return `US${2015 + (i % 9)}0${six(100_000 + i * 37)}A1`;
      case 2:
        return `EP${3_000_000 + i * 1013}A1`;
      case 3:
        return `CN${110_000_000 + i * 4409}A`;
      default:
        return `JP${2016 + (i % 8)}${six(200_000 + i * 53)}A`;
    }
  });
}

/** Legal status records by publication number, asked in batches of 100 over HTTP. */
async function legalStatuses(emu: Emulator, pns: string[]): Promise<Map<string, Json>> {
  const out = new Map<string, Json>();
  for (let i = 0; i < pns.length; i += 100) {
    const res = await post(emu, "patent-legal-status-data", {
      patentNumber: pns.slice(i, i + 100).join(","),
    });
    for (const r of res.json.data.data) out.set(r.pn, r);
  }
  return out;
}

const ymd = (iso: string) => Number(iso.replaceAll("-", ""));

function expectDatedBy(record: Json, date: string): void {
  const dates: string[] = record.eventStatus.map((e: { eventDate: string }) => e.eventDate);
  expect(dates.length).toBeGreaterThanOrEqual(2);
  for (const d of dates) expect(d <= date, `${record.pn}: event of ${d} after ${date}`).toBe(true);
  expect([...dates].sort()).toEqual(dates);
  expect(record.legalDate).toBe(ymd(dates[dates.length - 1] as string));
  expect(["Pending", "Active", "Inactive"]).toContain(record.simpleLegalStatus[0]);
}

describe("the emulator's clock", () => {
  it("starts at the fixed default date; GET shows it, POST moves it either way, reset keeps it", async () => {
    const emu = await emus.start();
    expect(emu.date()).toBe(DEFAULT_EMULATOR_DATE);
    expect(await clock(emu)).toEqual({ status: 200, json: { date: DEFAULT_EMULATOR_DATE } });
    await moveClock(emu, "2027-03-15");
    expect(emu.date()).toBe("2027-03-15");
    await moveClock(emu, "2026-01-02");
    await fetch(`${emu.url}/__emulator/reset`, { method: "POST" });
    expect(await clock(emu)).toEqual({ status: 200, json: { date: "2026-01-02" } });
    expect(emu.setDate("2026-12-24")).toBe("2026-12-24");
    expect((await clock(emu)).json.date).toBe("2026-12-24");
  });

  it('moves by {"advance":"7d"} from the emulated date, by days or weeks, either way', async () => {
    const emu = await emus.start({ date: "2026-12-28" });
    expect(await clock(emu, { advance: "7d" })).toEqual({ status: 200, json: { date: "2027-01-04" } });
    expect(await clock(emu, { advance: "2w" })).toEqual({ status: 200, json: { date: "2027-01-18" } });
    expect(await clock(emu, { advance: "-18d" })).toEqual({ status: 200, json: { date: "2026-12-31" } });
    expect(await clock(emu, { advance: "+0d" })).toEqual({ status: 200, json: { date: "2026-12-31" } });
    expect(emu.date()).toBe("2026-12-31");
    const bad: [unknown, RegExp][] = [
      [{ advance: "7" }, /advance: must be a number of days or weeks, like "7d"/],
      [{ advance: "a week" }, /advance: must be a number of days or weeks/],
      [{ advance: 7 }, /advance/],
      [{ advance: "7d", date: "2027-01-01" }, /either "date" \(yyyy-mm-dd\) or "advance"/],
      [
        { advance: "99999d" },
        /advance: would move the clock to 2300-\d\d-\d\d, outside 2000-01-01 to 2099-12-31/,
      ],
    ];
    for (const [body, message] of bad) {
      const res = await clock(emu, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toMatch(message);
    }
    expect(await clock(emu)).toEqual({ status: 200, json: { date: "2026-12-31" } });
  });

  it("answers 400 with a clear message to a bad clock body and keeps the date", async () => {
    const emu = await emus.start({ date: "2026-11-08" });
    const bad: [unknown, string | undefined, RegExp][] = [
      [{ date: "2026-02-30" }, undefined, /date: must be a calendar date yyyy-mm-dd/],
      [{ date: "tomorrow" }, undefined, /date: must be a calendar date/],
      [{ date: "1999-12-31" }, undefined, /between 2000-01-01 and 2099-12-31/],
      [{ date: 20261120 }, undefined, /date/],
      [{}, undefined, /date/],
      [{ date: "2026-11-20", days: 3 }, undefined, /days/],
      [undefined, "not json", /JSON object like \{"date":"2026-11-08"\} or \{"advance":"7d"\}/],
      [undefined, "[]", /emulator clock/],
    ];
    for (const [body, raw, message] of bad) {
      const res = await clock(emu, body, raw);
      expect(res.status, JSON.stringify(body ?? raw)).toBe(400);
      expect(res.json.error).toMatch(message);
    }
    expect(await clock(emu)).toEqual({ status: 200, json: { date: "2026-11-08" } });
    expect(() => emu.setDate("2026-11-31")).toThrow(ValidationError);
    expect(emu.date()).toBe("2026-11-08");
    await expect(startEmulator({ port: 0, date: "08/11/2026" })).rejects.toThrow(
      /date: must be a calendar date/,
    );
  });

  it("gives the same answers at the same date, in another emulator and from answerAt", async () => {
    const date = "2027-01-20";
    const a = await emus.start({ date });
    const b = await emus.start();
    await moveClock(b, date);
    const search = { q: "drone battery cooling", num: 50 };
    const found = (answerAt("websearch-patent-search", search, date)["results"] as Json[]).map(
      (r) => r.publicationNumber,
    );
    const requests: [string, Record<string, unknown>][] = [
      ["marketplace-search", { keyword: "desk lamp", page: 2 }],
      ["websearch-patent-search", search],
      ["patent-legal-status-data", { patentNumber: candidateNumbers().slice(0, 100).join(",") }],
      ["patent-cited-by", { patentNumber: found.join(",") }],
      ["patent-references", { patentNumber: found.join(",") }],
    ];
    for (const [slug, body] of requests) {
      const [x, y] = [await post(a, slug, body), await post(b, slug, body)];
      expect(x.json.data, slug).toEqual(y.json.data);
      expect(x.json.data, slug).toEqual(JSON.parse(JSON.stringify(answerAt(slug, body, date))));
    }
    expect(() => answerAt("marketplace-ads-sp-audience-report", {}, date)).toThrow(/running emulator/);
    expect(() => answerAt("marketplace-search", {}, date)).toThrow(/keyword/);
  });
});

describe("legal status with the date", () => {
  it("changes for a partial share of 500 patents in a week, never dating an event after the clock", async () => {
    const emu = await emus.start({ date: "2026-11-01" });
    const pns = [...(await legalStatuses(emu, candidateNumbers())).keys()].slice(0, 500);
    expect(pns).toHaveLength(500);
    const before = await legalStatuses(emu, pns);
    await moveClock(emu, "2026-11-08");
    const after = await legalStatuses(emu, pns);
    const changed = pns.filter((pn) => JSON.stringify(before.get(pn)) !== JSON.stringify(after.get(pn)));
    expect(changed.length).toBeGreaterThanOrEqual(25);
    expect(changed.length).toBeLessThanOrEqual(100);
    const statusChanged = pns.filter(
      (pn) => before.get(pn).legalStatus.join() !== after.get(pn).legalStatus.join(),
    );
    expect(statusChanged.length).toBeGreaterThan(0);
    for (const pn of pns) {
      expectDatedBy(before.get(pn), "2026-11-01");
      expectDatedBy(after.get(pn), "2026-11-08");
      // A later date only adds events: the earlier ones stay as they were.
      expect(after.get(pn).eventStatus.slice(0, before.get(pn).eventStatus.length)).toEqual(
        before.get(pn).eventStatus,
      );
      expect(after.get(pn)).toEqual(legalStatusAt(pn, "2026-11-08"));
    }
    for (const pn of changed) {
      const added = after.get(pn).eventStatus.slice(before.get(pn).eventStatus.length);
      expect(added.length).toBeGreaterThan(0);
      for (const e of added) expect(e.eventDate > "2026-11-01" && e.eventDate <= "2026-11-08").toBe(true);
    }
  });

  it("advances along the life cycle (pending → active → inactive, never back) and answers only published patents", () => {
    const pns = candidateNumbers().filter((pn) => legalStatusAt(pn, "2024-01-01") !== null);
    const order = { Pending: 0, Active: 1, Inactive: 2 } as Record<string, number>;
    const transitions = new Set<string>();
    for (const pn of pns) {
      let previous = "Pending";
      for (const date of ["2024-01-01", "2025-06-01", "2026-11-01", "2028-01-01", "2030-06-01"]) {
        const record = legalStatusAt(pn, date) as Json;
        expectDatedBy(record, date);
        const simple = record.simpleLegalStatus[0];
        expect(order[simple]).toBeGreaterThanOrEqual(order[previous] as number);
        if (simple !== previous) transitions.add(`${previous}→${simple}`);
        previous = simple;
      }
    }
    expect(transitions).toEqual(new Set(["Pending→Active", "Pending→Inactive", "Active→Inactive"]));
    // A number that carries a later publication day is unknown until that day.
    const future = Array.from({ length: 20 }, (_, i) => `US20270150${String(i).padStart(3, "0")}A1`).find(
      (pn) => legalStatusAt(pn, "2027-05-30") !== null,
    ) as string;
    expect(legalStatusAt(future, "2027-05-29")).toBeNull();
    expect(legalStatusAt("NOT-A-PATENT", "2026-12-01")).toBeNull();
    expect(() => legalStatusAt("US11234567B2", "2026-12-32")).toThrow(ValidationError);
  });
});

interface Product {
  asin: string;
  sponsored: boolean;
  extractedPrice: number | null;
  page: number;
}

async function organic(emu: Emulator, keyword: string): Promise<Map<string, Product>> {
  const out = new Map<string, Product>();
  for (let page = 1; page <= 7; page++) {
    const products: Product[] = (await post(emu, "marketplace-search", { keyword, page })).json.data.products;
    for (const p of products) if (!p.sponsored) out.set(p.asin, { ...p, page });
  }
  return out;
}

describe("marketplace search with the date", () => {
  const keywords = ["desk lamp", "standing desk", "usb c hub", "yoga mat"];

  it("drifts prices both ways by more than 10 % in a week and moves products between pages", async () => {
    const emu = await emus.start({ date: "2026-11-01" });
    const before = await Promise.all(keywords.map((k) => organic(emu, k)));
    await moveClock(emu, "2026-11-08");
    const after = await Promise.all(keywords.map((k) => organic(emu, k)));
    let drops = 0;
    let rises = 0;
    let moved = 0;
    keywords.forEach((_, i) => {
      for (const [asin, now] of after[i] ?? []) {
        // A sponsored copy hides the product in its slot that day, so a product may be missing once.
        const then = before[i]?.get(asin);
        if (!then) continue;
        if (then.page !== now.page) moved++;
        if (then.extractedPrice === null || now.extractedPrice === null) continue;
        if (now.extractedPrice < then.extractedPrice * 0.9) drops++;
        if (now.extractedPrice > then.extractedPrice * 1.1) rises++;
      }
    });
    expect(drops).toBeGreaterThan(0);
    expect(rises).toBeGreaterThan(0);
    expect(moved).toBeGreaterThan(0);
  });

  it("lists the same product (asin, price) under keywords that share a word", async () => {
    const emu = await emus.start({ date: "2026-11-20" });
    const [lamp, desk] = [await organic(emu, "desk lamp"), await organic(emu, "standing desk")];
    const shared = [...lamp.keys()].filter((asin) => desk.has(asin));
    expect(shared.length).toBeGreaterThan(0);
    for (const asin of shared) expect(lamp.get(asin)?.extractedPrice).toBe(desk.get(asin)?.extractedPrice);
  });
});

describe("patent search with the date", () => {
  async function results(emu: Emulator, q: string): Promise<Json[]> {
    const out: Json[] = [];
    for (let page = 1; page <= 10; page++) {
      const data = (await post(emu, "websearch-patent-search", { q, num: 100, page })).json.data;
      out.push(...data.results);
      if (out.length >= data.total) return out;
    }
    return out;
  }

  it("grows with new publications, finds nothing published after the clock, and its results cite each other", async () => {
    const q = "drone battery cooling";
    const emu = await emus.start({ date: "2026-11-15" });
    const first = await results(emu, q);
    await moveClock(emu, "2026-12-31");
    const later = await results(emu, q);
    expect(later.length).toBeGreaterThan(first.length);
    const earlier = new Set(first.map((r) => r.publicationNumber));
    const all = new Set(later.map((r) => r.publicationNumber));
    for (const pn of earlier) expect(all.has(pn)).toBe(true);
    for (const r of first) expect(r.publicationDate <= "2026-11-15").toBe(true);
    const added = later.filter((r) => !earlier.has(r.publicationNumber));
    for (const r of added)
      expect(r.publicationDate > "2026-11-15" && r.publicationDate <= "2026-12-31").toBe(true);

    // A new publication is unknown to the identifier operations before its day.
    const newest = [...added].sort((x, y) => (x.publicationDate < y.publicationDate ? 1 : -1))[0]
      .publicationNumber;
    await moveClock(emu, "2026-11-15");
    expect((await post(emu, "patent-legal-status-data", { patentNumber: newest })).json.data.total).toBe(0);
    await moveClock(emu, "2026-12-31");
    expect((await post(emu, "patent-legal-status-data", { patentNumber: newest })).json.data.total).toBe(1);

    const refs = (await post(emu, "patent-references", { patentNumber: [...all].slice(0, 100).join(",") }))
      .json.data.data;
    const pairs = refs.flatMap((r: Json) =>
      r.citedPatents.filter((c: Json) => all.has(c.pn)).map((c: Json) => [r.pn, c.pn] as [string, string]),
    );
    expect(pairs.length).toBeGreaterThan(0);
    for (const [citing, cited] of pairs) {
      const citedBy = (await post(emu, "patent-cited-by", { patentNumber: cited })).json.data.data[0];
      expect(citedBy.citedByPatents.map((c: Json) => c.pn)).toContain(citing);
      expect(citedBy.citedBy5y).toBeGreaterThanOrEqual(citedBy.citedByPatents.length);
    }
  });
});
