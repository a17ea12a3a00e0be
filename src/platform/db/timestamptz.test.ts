import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parseTimestamptz } from './timestamptz.ts';

const pgParse = createRequire(import.meta.url)('postgres-date') as (text: string) => Date | number | string;

describe('parseTimestamptz', () => {
  it('gives the same instant as pg’s own parser for every form PostgreSQL prints', () => {
    const samples = [
      '2026-11-25 12:34:56.123456+00',
      '2026-11-25 12:34:56+00',
      '2026-11-25 12:34:56.9999+05:30',
      '2026-11-25 12:34:56.5-08',
      '2026-11-25 12:34:56.1-03:30',
      '1999-12-31 23:59:59.999999+00',
      '2000-02-29 00:00:00.000001+14',
      '0044-03-15 12:00:00+00',
      '0044-03-15 12:00:00+00 BC',
      '1900-01-01 00:00:00+00:19:32',
      'infinity',
      '-infinity',
    ];
    for (const text of samples) {
      const ours = parseTimestamptz(text, pgParse);
      const theirs = pgParse(text);
      expect(ours instanceof Date ? ours.getTime() : ours, text).toEqual(theirs instanceof Date ? theirs.getTime() : theirs);
    }
  });

  it('agrees with pg’s parser on random instants across offsets and precisions', () => {
    for (let k = 0; k < 2_000; k++) {
      const ms = Math.floor(Math.random() * 4_000_000_000_000);
      const micros = String(Math.floor(Math.random() * 1_000_000)).padStart(6, '0').slice(0, 1 + (k % 6));
      const offset = [`+00`, `-08`, `+05:30`, `+14`, `-09:30`][k % 5]!;
      const base = new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
      const text = `${base}.${micros}${offset}`;
      expect((parseTimestamptz(text, pgParse) as Date).getTime(), text).toBe((pgParse(text) as Date).getTime());
    }
  });
});
