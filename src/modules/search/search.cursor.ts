import { createHash } from 'node:crypto';
import { openToken, signToken, type CursorMac } from '../../platform/crypto/signed-token.ts';
import { AppError } from '../../platform/http/errors.ts';

/**
 * The keyset cursor. It carries the sort key of the last row returned, the snapshot time of the
 * first page and, when the search fell back to a typo correction, the corrected query (so every page
 * uses the same correction, whatever the dictionary learns meanwhile), bound to the tenant, the query, the
 * requested types and the sort, and MACed with the app's secret: anything altered, truncated,
 * forged or reused with another search is a 400 `invalid cursor`.
 */
export interface CursorState {
  sort: 'relevance' | 'recent';
  /** The typo-corrected query the first page ran, or null when it ran the query as typed. */
  corrected: string | null;
  /** Rows whose content changed after this instant are left out of every page of the search. */
  asOf: Date;
  /** The last row returned: score, updated_at (ISO), object_type and object_id. */
  score: number;
  updatedAt: string;
  type: string;
  id: string;
}

/** What the cursor is bound to: a cursor from another search never continues this one. */
export function searchBinding(tenant: string, query: string, types: readonly string[] | null, sort: string): string {
  const key = JSON.stringify([tenant, query, types === null ? null : [...types].sort(), sort]);
  return createHash('sha256').update(key).digest('base64url').slice(0, 22);
}

export function encodeCursor(box: CursorMac, binding: string, s: CursorState): string {
  return signToken(box, {
    v: 1, b: binding, s: s.sort, f: s.corrected === null ? 0 : 1, ...(s.corrected === null ? {} : { c: s.corrected }), a: s.asOf.toISOString(), k: [s.score, s.updatedAt, s.type, s.id],
  });
}

const invalid = () => new AppError('VALIDATION_ERROR', 'invalid cursor', [{ path: 'querystring.cursor', message: 'invalid cursor' }]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A corrected query is at most 8 words of at most 64 characters (search.parse.ts), each with a `*` and a space. */
const MAX_CORRECTED = 8 * 66;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isoDate(v: unknown): Date | undefined {
  if (typeof v !== 'string' || !ISO.test(v)) return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) || d.toISOString() !== v ? undefined : d;
}

/** The state of a cursor this search issued; anything else → 400. */
export function decodeCursor(box: CursorMac, binding: string, cursor: string): CursorState {
  const raw = openToken(box, cursor);
  const o = raw as { v?: unknown; b?: unknown; s?: unknown; f?: unknown; c?: unknown; a?: unknown; k?: unknown };
  if (raw === undefined || typeof o !== 'object' || o === null || o.v !== 1 || o.b !== binding) throw invalid();
  if ((o.s !== 'relevance' && o.s !== 'recent') || (o.f !== 0 && o.f !== 1) || !Array.isArray(o.k) || o.k.length !== 4) throw invalid();
  const corrected = o.f === 1 && typeof o.c === 'string' && o.c.length > 0 && o.c.length <= MAX_CORRECTED ? o.c : null;
  if ((o.f === 1) !== (corrected !== null) || (o.f === 0 && o.c !== undefined)) throw invalid();
  const [score, updatedAt, type, id] = o.k as unknown[];
  const asOf = isoDate(o.a);
  if (!asOf || !Number.isSafeInteger(score) || !isoDate(updatedAt) || typeof type !== 'string' || type.length > 40
    || typeof id !== 'string' || !UUID.test(id)) throw invalid();
  return { sort: o.s, corrected, asOf, score: score as number, updatedAt: updatedAt as string, type, id };
}
