/** The run the crash tests kill and resume: several pipelines, pages, batches and a chain. */
export const CRASH_PIPELINES = [
  "marketplace-search",
  "patent-search",
  "patent-bibliography",
  "patent-legal-status",
];
export const CRASH_PARAMS = {
  keyword: ["usb hub", "desk lamp", "yoga mat", "phone stand"],
  pages: ["3"],
  q: ["solid state battery", "drone propeller"],
};
