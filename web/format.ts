import { browserLocales, numberFormat } from "./locale.js";

/**
 * `<data class="num" value="1234.5" data-unit="%">` shown in the reader's locale. The raw value
 * stays in `value`; a value that is not a number keeps the server's text.
 */
export function formatNumbers(root: ParentNode): void {
  const plain = numberFormat();
  const percent = new Intl.NumberFormat(browserLocales(), {
    style: "unit",
    unit: "percent",
    maximumFractionDigits: 2,
  });
  for (const el of root.querySelectorAll<HTMLDataElement>("data.num")) {
    const value = el.value.trim() === "" ? Number.NaN : Number(el.value);
    if (!Number.isFinite(value)) continue;
    const unit = el.dataset["unit"];
    if (unit === "%") el.textContent = percent.format(value);
    else el.textContent = unit ? `${plain.format(value)}\u00a0${unit}` : plain.format(value);
  }
}

/**
 * `<time datetime="…">` in the reader's locale and time zone; `data-day` means a date only, and a
 * day is a UTC day (the server's), so it is not shifted into the reader's zone. The server's text
 * stays as the element's title.
 */
export function formatTimes(root: ParentNode): void {
  const locales = browserLocales();
  const moment = new Intl.DateTimeFormat(locales, { dateStyle: "medium", timeStyle: "short" });
  const day = new Intl.DateTimeFormat(locales, { dateStyle: "medium", timeZone: "UTC" });
  for (const el of root.querySelectorAll<HTMLTimeElement>("time[datetime]")) {
    const at = new Date(el.dateTime);
    if (Number.isNaN(at.getTime())) continue;
    if (!el.title) el.title = el.textContent ?? "";
    el.textContent = ("day" in el.dataset ? day : moment).format(at);
  }
}
