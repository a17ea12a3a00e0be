import type { MaintenanceFrequency } from '../../../platform/db/schema.assets.ts';
import { addDays } from '../assets.warranty.ts';

/** The date `n` periods after `date`; month steps clamp to the month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addPeriods(date: string, frequency: MaintenanceFrequency, interval: number, n = 1): string {
  const steps = interval * n;
  if (frequency === 'daily' || frequency === 'custom') return addDays(date, steps);
  if (frequency === 'weekly') return addDays(date, 7 * steps);
  const months = frequency === 'monthly' ? steps : frequency === 'quarterly' ? 3 * steps : 12 * steps;
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const total = m - 1 + months;
  const year = y + Math.floor(total / 12);
  const month = total % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(d, last))).toISOString().slice(0, 10);
}

/**
 * The first occurrence (start_date + k periods, k ≥ 0) strictly after `after`, or start_date itself
 * when `after` is before it. Keeps the schedule on its own cadence: late or early work never shifts it,
 * and missed occurrences are skipped rather than piling up.
 */
export function nextOccurrence(start: string, frequency: MaintenanceFrequency, interval: number, after: string | null): string {
  if (after === null || after < start) return start;
  let k = 1;
  // Jump close first (periods are at least a day), then step.
  const approxDays = (Date.parse(after) - Date.parse(start)) / 86_400_000;
  const periodDays = frequency === 'daily' || frequency === 'custom' ? interval : frequency === 'weekly' ? 7 * interval : frequency === 'monthly' ? 31 * interval : frequency === 'quarterly' ? 92 * interval : 366 * interval;
  k = Math.max(1, Math.floor(approxDays / periodDays));
  let next = addPeriods(start, frequency, interval, k);
  while (next > after && k > 1 && addPeriods(start, frequency, interval, k - 1) > after) next = addPeriods(start, frequency, interval, --k);
  while (next <= after) next = addPeriods(start, frequency, interval, ++k);
  return next;
}
