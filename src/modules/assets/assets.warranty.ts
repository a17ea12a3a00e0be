import type { WarrantyStatus } from './assets.schemas.ts';

/**
 * The one definition of "expiring soon": a warranty ending between today and this many days ahead
 * (inclusive). The list filter, the asset's `warranty_status`, the summary and the stats all use it.
 */
export const WARRANTY_EXPIRING_SOON_DAYS = 30;

const DAY_MS = 86_400_000;

/** Today's date (UTC) as YYYY-MM-DD; the boundary of every warranty computation. */
export const todayUtc = (now = new Date()): string => now.toISOString().slice(0, 10);

export const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Whole days from today to the warranty's end (negative once it has ended); null without one. */
export function warrantyDaysRemaining(end: string | null, today = todayUtc()): number | null {
  if (end === null) return null;
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS);
}

export function warrantyStatusOf(end: string | null, today = todayUtc()): WarrantyStatus {
  const days = warrantyDaysRemaining(end, today);
  if (days === null) return 'none';
  if (days < 0) return 'expired';
  if (days <= WARRANTY_EXPIRING_SOON_DAYS) return 'expiring_soon';
  return 'active';
}
