import { DEMO_KEY, type Emulator, type EmulatorOptions, startEmulator } from "../../emulator/index.js";
import { operationPath } from "../../schema/catalog.js";

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them
  json: any;
}

/** POSTs a skill call with plain fetch; `key: null` sends no Authorization header. */
export async function post(
  emu: Emulator,
  slug: string,
  body: unknown,
  opts: { key?: string | null; raw?: string; method?: string; signal?: AbortSignal } = {},
): Promise<Answer> {
  const key = opts.key === undefined ? DEMO_KEY : opts.key;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== null) headers["authorization"] = `Bearer ${key}`;
  const method = opts.method ?? "POST";
  const res = await fetch(`${emu.url}${operationPath(slug)}`, {
    method,
    headers,
    ...(method === "GET" || method === "HEAD" ? {} : { body: opts.raw ?? JSON.stringify(body) }),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Starts emulators and stops them all after each test. */
export function emulators() {
  const running: Emulator[] = [];
  return {
    async start(options: EmulatorOptions = {}): Promise<Emulator> {
      const emu = await startEmulator({ port: 0, ...options });
      running.push(emu);
      return emu;
    },
    async stopAll(): Promise<void> {
      await Promise.all(running.splice(0).map((e) => e.stop()));
    },
  };
}

/** A known-good request for each of the 23 documented operations (reports need a created report first). */
export const VALID_REQUESTS: Record<string, Record<string, unknown>> = {
  "marketplace-search": { keyword: "desk lamp", page: 1 },
  "websearch-patent-search": { q: "wireless charging", num: 10, page: 1 },
  "patent-abstract-image-data": { patentNumber: "US11234567B2,EP3456789A1" },
  "patent-cited-by": { patentNumber: "US11234567B2" },
  "patent-claims": { patentNumber: "US11234567B2", replaceByRelated: "1" },
  "patent-claims-translation": { patentNumber: "CN112345678A", lang: "cn" },
  "patent-core-bibliography": { patentNumber: "US11234567B2,JP2020123456A" },
  "patent-description-data": { patentNumber: "EP3456789A1" },
  "patent-description-data-translation": { patentNumber: "EP3456789A1", lang: "jp" },
  "patent-detailed-bibliography": { patentNumber: "US11234567B2" },
  "patent-fulltext-images": { patentNumber: "US11234567B2", limit: "5" },
  "patent-family-data": { patentNumber: "US11234567B2" },
  "patent-legal-status-data": { patentNumber: "US11234567B2" },
  "patent-references": { patentNumber: "US11234567B2" },
  "patent-title-abstract-translation": { patentNumber: "US11234567B2", lang: "cn" },
  "vendora-product-tro-detection": { mainProductImage: "https://img.example/p.jpg", language: "en" },
  "vendorb-copyright-detection": { imageUrl: "https://img.example/p.jpg", topNumber: 20, enableRadar: true },
  "vendorb-detection-patent-design": {
    imageUrl: "https://img.example/p.jpg",
    queryMode: "physical",
    topNumber: 10,
  },
  "vendorb-gun-parts-search": { imageUrl: "https://img.example/p.jpg" },
  "marketplace-ads-sp-search-impression-share-report": {
    connectionId: 1,
    startDate: "2025-01-01",
    endDate: "2025-01-07",
  },
  "marketplace-ads-sp-audience-report": {
    connectionId: 1,
    startDate: "2025-01-01",
    endDate: "2025-01-03",
    detailLevel: "AD_GROUP",
  },
};

/** Minimal RFC 4180 reader (quoted fields, doubled quotes, line breaks inside quotes), independent of the emulator's writer. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      // CRLF ends a row; handled on the \n.
    } else if (c === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
