/**
 * Calendar buckets for the revenue report: pure date arithmetic on 'YYYY-MM-DD' strings (no clock, no
 * time zone). A bucket is a calendar month, quarter or year, clipped to [from, to]; its key is the
 * unclipped calendar start, which is what the SQL `date_trunc(interval, day)::date` gives for any day in it.
 */

export const INTERVALS = ['month', 'quarter', 'year'] as const;
export type Interval = (typeof INTERVALS)[number];

/** The most buckets one request may span. */
export const MAX_BUCKETS = 120;

const MONTHS_PER_BUCKET: Record<Interval, number> = { month: 1, quarter: 3, year: 12 };

export interface Bucket {
  /** The calendar start of the bucket (before clipping): the key the SQL groups by. */
  key: string;
  period_start: string;
  period_end: string;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const format = (year: number, month: number, day: number) => `${pad(year, 4)}-${pad(month)}-${pad(day)}`;

/** Months since year 0 of a 'YYYY-MM-DD' day (January of year 0 is 0). */
function monthIndex(date: string): number {
  const [year, month] = date.split('-').map(Number) as [number, number];
  return year * 12 + (month - 1);
}

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (year: number, month: number) => (month === 2 && isLeap(year) ? 29 : DAYS[month - 1]!);

const firstOfMonth = (index: number) => format(Math.floor(index / 12), (index % 12) + 1, 1);
const lastOfMonth = (index: number) => {
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return format(year, month, daysIn(year, month));
};

const bucketIndex = (date: string, interval: Interval) => Math.floor(monthIndex(date) / MONTHS_PER_BUCKET[interval]);

/** The calendar start of the bucket holding `date` (e.g. quarter of 2024-05-17 → 2024-04-01). */
export function bucketStart(date: string, interval: Interval): string {
  return firstOfMonth(bucketIndex(date, interval) * MONTHS_PER_BUCKET[interval]);
}

/** How many buckets [from, to] touches (from <= to). */
export function bucketCount(from: string, to: string, interval: Interval): number {
  return bucketIndex(to, interval) - bucketIndex(from, interval) + 1;
}

/** Every bucket [from, to] touches, in order, the first and last clipped to from and to. */
export function buckets(from: string, to: string, interval: Interval): Bucket[] {
  const step = MONTHS_PER_BUCKET[interval];
  const out: Bucket[] = [];
  for (let b = bucketIndex(from, interval); b <= bucketIndex(to, interval); b++) {
    const key = firstOfMonth(b * step);
    const end = lastOfMonth(b * step + step - 1);
    out.push({ key, period_start: key < from ? from : key, period_end: end > to ? to : end });
  }
  return out;
}

/** The first day of the month `months` before the month of `date` (11 before 2026-11-24 → 2025-12-01). */
export function firstOfMonthBefore(date: string, months: number): string {
  return firstOfMonth(monthIndex(date) - months);
}
