import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, engine } from '../../../test/harness.ts';
import type { Database } from './database.ts';
import { buildRowShapesDirectly } from './pg-row-shape.ts';

// pg's own Result next to one with the replacement (on its own prototype: pg.Result stays as published here).
class DirectResult extends pg.Result {}
buildRowShapesDirectly(DirectResult, pg.types);

type Internals = { addFields(fields: Partial<pg.FieldDef>[]): void; parseRow(values: (string | null)[]): Record<string, unknown> };
const asInternals = (result: pg.Result) => result as unknown as Internals;
/** A Result as pg's Query makes one: object rows (no row mode), with the given type parsers. */
const resultOf = (R: typeof pg.Result, types: unknown = pg.types) => new R(undefined as unknown as string, types as typeof pg.types);

const field = (name: string, dataTypeID: number): Partial<pg.FieldDef> => ({ name, dataTypeID, format: 'text' });
const FIELDS = [
  field('ticket_id', 25), field('count', 23), field('is_closed', 16), field('__proto__', 25), field('constructor', 25),
  field('7', 23), field('toString', 25), field('a', 25), field('a', 23), field('', 25),
];
const VALUES = ['t-1', '42', 't', '{"polluted":true}', 'c', '7', 's', 'first', '9', 'empty'];

function parse(result: pg.Result, fields = FIELDS, values: (string | null)[] = VALUES) {
  const r = asInternals(result);
  r.addFields(fields);
  return r.parseRow(values);
}

describe('buildRowShapesDirectly (pg result rows)', () => {
  it('builds the same rows as pg: keys in the same order, the same parsed values, the same JSON', () => {
    const upstream = parse(resultOf(pg.Result));
    const direct = parse(resultOf(DirectResult));
    expect(Object.keys(direct)).toEqual(Object.keys(upstream));
    expect(direct).toStrictEqual(upstream);
    expect(JSON.stringify(direct)).toBe(JSON.stringify(upstream));
    expect(direct.count).toBe(42);
    expect(direct.is_closed).toBe(true);
    expect(direct.a).toBe(9); // a repeated column: the last one wins, as in pg
  });

  it('keeps a column named __proto__ as an own property, never as the prototype', () => {
    const row = parse(resultOf(DirectResult));
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.hasOwn(row, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('{"polluted":true}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('leaves nulls as null and starts over with each row description (several statements in one query)', () => {
    const result = resultOf(DirectResult);
    expect(parse(result, [field('x', 23), field('y', 25)], [null, 'b'])).toStrictEqual({ x: null, y: 'b' });
    expect(parse(result, [field('z', 16)], ['f'])).toStrictEqual({ z: false });
  });

  it('uses the type parsers of the query when it has its own', () => {
    const types = new pg.TypeOverrides(pg.types);
    types.setTypeParser(23, 'text', (v: string) => `int ${v}`);
    const result = resultOf(DirectResult, types);
    expect(parse(result, [field('n', 23)], ['5'])).toStrictEqual({ n: 'int 5' });
  });
});

describe(`rows read through the database (${engine})`, () => {
  let database: Database;
  beforeAll(async () => { database = await createTestDatabase(); });
  afterAll(async () => database.close());

  it.runIf(engine === 'pg')('come back as plain objects, __proto__ included, through the pool openPostgres makes', async () => {
    const { rows } = await sql<Record<string, unknown>>`select 1::int as n, 'x' as "__proto__", null::text as missing`.execute(database.db);
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!)).toEqual(['n', '__proto__', 'missing']);
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(rows[0], '__proto__')?.value).toBe('x');
    expect(rows[0]!.n).toBe(1);
    expect(rows[0]!.missing).toBeNull();
  });
});
