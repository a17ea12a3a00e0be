import { describe, expect, it } from 'vitest';
import { assertIfMatch, etagOf, withVersionedEtag } from './etag.ts';

const handle = () => ({ isTransaction: false });

describe('withVersionedEtag', () => {
  it('gives the resource the ETag etagOf computes, and the same ETag to a later read of the same version', () => {
    const db = handle();
    const first = withVersionedEtag(db, 't1/ticket/100|3', { title: 'Printer' });
    const tag = etagOf(first);
    expect(tag).toBe(etagOf({ title: 'Printer' }));
    // Remembered by version, not computed again: a same-version read (the same representation) gets it as is.
    const again = withVersionedEtag(db, 't1/ticket/100|3', { title: 'what the version would not allow' });
    expect(etagOf(again)).toBe(tag);
    expect(() => assertIfMatch(tag, first)).not.toThrow();
  });

  it('computes another ETag for another version, and keeps versions apart per database handle', () => {
    const db = handle();
    const a = etagOf(withVersionedEtag(db, 'v1', { n: 1 }));
    expect(etagOf(withVersionedEtag(db, 'v2', { n: 2 }))).toBe(etagOf({ n: 2 }));
    expect(etagOf(withVersionedEtag(handle(), 'v1', { n: 3 }))).toBe(etagOf({ n: 3 }));
    expect(etagOf(withVersionedEtag(db, 'v1', { n: 4 }))).toBe(a);
  });

  it('remembers nothing inside a transaction (it can see its own writes under one version)', () => {
    const trx = { isTransaction: true };
    expect(etagOf(withVersionedEtag(trx, 'v', { n: 1 }))).toBe(etagOf({ n: 1 }));
    expect(etagOf(withVersionedEtag(trx, 'v', { n: 2 }))).toBe(etagOf({ n: 2 }));
  });

  it('remembers nothing for a resource read without a version', () => {
    const db = handle();
    expect(etagOf(withVersionedEtag(db, undefined, { n: 1 }))).toBe(etagOf({ n: 1 }));
    expect(etagOf(withVersionedEtag(db, undefined, { n: 2 }))).toBe(etagOf({ n: 2 }));
  });

  it('leaves every other resource to the hash of its representation', () => {
    expect(etagOf({ a: 1 })).toMatch(/^"[\w-]{27}"$/);
    expect(etagOf({ a: 1 })).not.toBe(etagOf({ a: 2 }));
    expect(etagOf(['x'])).toBe(etagOf(['x']));
    expect(etagOf(null)).toBe(etagOf(null));
  });
});
