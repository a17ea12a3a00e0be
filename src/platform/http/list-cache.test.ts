import { describe, expect, it } from 'vitest';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Type } from 'typebox';
import { keepRow, Lru } from './list-cache.ts';
import { isListEnvelope, listEnvelopeSerializer } from './list-serializer.ts';
import { listOf, Nullable } from './schemas.ts';

describe('Lru', () => {
  it('keeps at most its capacity, dropping the least recently used first', () => {
    const lru = new Lru<number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.size).toBe(2);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
  });
});

describe('keepRow', () => {
  it('freezes nested values too, so no page can change a row every later page shares', () => {
    const row = keepRow({ tags: ['x'], nested: { a: 1 } });
    expect(Object.isFrozen(row) && Object.isFrozen(row.tags) && Object.isFrozen(row.nested)).toBe(true);
    expect(() => row.tags.push('y')).toThrow(TypeError);
  });
});

describe('listEnvelopeSerializer', () => {
  const Item = Type.Object({ id: Type.String(), name: Nullable(Type.String()), tags: Type.Array(Type.String()) });
  const schema = listOf(Item);
  const compile = (s: unknown) => SerializerSelector()({}, {})({ schema: s as object, method: 'GET', url: '/x', httpStatus: '200' }) as (d: unknown) => string;

  it('recognises exactly the list envelope', () => {
    expect(isListEnvelope(schema)).toBe(true);
    expect(isListEnvelope(Item)).toBe(false);
    expect(isListEnvelope(Type.Object({ data: Item, pagination: Type.Object({}) }))).toBe(false);
    expect(isListEnvelope(Type.Object({ data: Type.Array(Item), pagination: Type.Object({}), extra: Type.String() }))).toBe(false);
  });

  it('writes what the envelope serializer writes, kept rows reused and others serialized each time', () => {
    const whole = compile(schema);
    const serialize = listEnvelopeSerializer(schema as never, compile);
    const keptRow = keepRow({ id: 'a', name: 'quote " and \u2028', tags: ['t'], ignored: 1 });
    const fresh: { id: string; name: string | null; tags: string[] } = { id: 'b', name: null, tags: [] };
    const pagination = { page: 1, limit: 25, total: 2, totalPages: 1, hasNext: false, hasPrev: false };
    const payload = { data: [keptRow, fresh], pagination };
    expect(serialize(payload)).toBe(whole(payload));
    expect(JSON.parse(serialize(payload))).toEqual({ data: [{ id: 'a', name: 'quote " and \u2028', tags: ['t'] }, { id: 'b', name: null, tags: [] }], pagination });
    fresh.name = 'changed';
    expect(serialize(payload)).toBe(whole(payload)); // a row not kept is never served from memory
    const shallow = Object.freeze({ id: 'c', name: null, tags: ['x'] });
    const once = serialize({ data: [keptRow, shallow], pagination });
    shallow.tags.push('y'); // keptRow, but not kept: its JSON is not reused
    expect(serialize({ data: [keptRow, shallow], pagination })).not.toBe(once);
    expect(serialize({ data: [keptRow, shallow], pagination })).toBe(whole({ data: [keptRow, shallow], pagination }));
    expect(serialize({ data: [], pagination })).toBe(whole({ data: [], pagination }));
  });
});
