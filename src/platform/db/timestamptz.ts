/**
 * PostgreSQL's text form of a `timestamptz` (`2026-11-25 12:34:56.123456+00`, DateStyle ISO) as a Date,
 * read digit by digit. pg's own parser (postgres-date, regular expressions and a Date per field) was
 * about 5 % of a list page's CPU; this one is three times quicker. Anything it does not expect — BC dates,
 * years before 100 (Date.UTC would read them as 19xx), `infinity`, offsets with seconds — goes to the
 * parser pg would have used, so the result is always the same Date.
 */
export function parseTimestamptz(text: string, fallback: (text: string) => Date | string | number): Date | string | number {
  const n = text.length;
  if (n < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(10) !== 32) return fallback(text);
  const year = digits(text, 0, 4);
  if (year < 100) return fallback(text);
  let i = 19;
  let ms = 0;
  if (text.charCodeAt(i) === 46) {
    // Milliseconds are the first three fraction digits (microseconds are truncated, as pg's parser does).
    let scale = 100;
    for (i = 20; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 48 || c > 57) break;
      ms += (c - 48) * scale;
      scale /= 10;
    }
  }
  const sign = text.charCodeAt(i);
  if (sign !== 43 && sign !== 45) return fallback(text);
  let offsetMinutes = digits(text, i + 1, 2) * 60;
  if (n === i + 6 && text.charCodeAt(i + 3) === 58) offsetMinutes += digits(text, i + 4, 2);
  else if (n !== i + 3) return fallback(text);
  const utc = Date.UTC(year, digits(text, 5, 2) - 1, digits(text, 8, 2), digits(text, 11, 2), digits(text, 14, 2), digits(text, 17, 2), Math.floor(ms));
  return new Date(utc - (sign === 43 ? 1 : -1) * offsetMinutes * 60_000);
}

function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let k = from; k < from + count; k++) value = value * 10 + text.charCodeAt(k) - 48;
  return value;
}
