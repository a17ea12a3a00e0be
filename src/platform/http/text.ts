import { validation } from './errors.ts';

/** A required name: trimmed, and blank (only spaces) is a 400 naming the field. */
export function requiredText(value: string, path: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw validation(path, 'must not be blank');
  return trimmed;
}

/** Optional free text: trimmed, blank means none (null); undefined stays "not sent". */
export const optionalText = (s: string | null | undefined): string | null | undefined =>
  s === undefined ? undefined : s === null || s.trim() === '' ? null : s.trim();
