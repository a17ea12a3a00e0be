/**
 * A timestamp as the API shows it (ISO 8601, UTC, milliseconds). Rows may carry Date (pg) or string
 * (json aggregates) values; null and undefined stay null.
 */
export function iso(d: Date | string): string;
export function iso(d: Date | string | null | undefined): string | null;
export function iso(d: Date | string | null | undefined): string | null {
  if (d === null || d === undefined) return null;
  return (d instanceof Date ? d : new Date(d)).toISOString();
}

/** A calendar day as the API shows DATE values ('YYYY-MM-DD'), in UTC; today by default. */
export const utcDate = (d: Date = new Date()): string => d.toISOString().slice(0, 10);

/** The calendar day `days` after (or before, when negative) a 'YYYY-MM-DD' day. */
export const addDays = (date: string, days: number): string => utcDate(new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000));
