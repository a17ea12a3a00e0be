import { createHash } from 'node:crypto';
import { openToken, signToken, type CursorMac } from '../crypto/signed-token.ts';
import { AppError } from './errors.ts';

/**
 * The keyset cursor of the list use case (`sort=updated_at&cursor=…`): the position after which the next
 * page starts (the last row's exact `updated_at`, microseconds included, and its tie-breaker id), bound
 * to the list it was issued for and MACed with the app's key. Anything altered, truncated, forged or
 * replayed on another list, tenant or filter is a 400, never a 500.
 */
export interface KeysetPosition {
  /** The last row's updated_at as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds). */
  u: string;
  /** The last row's tie-breaker as text. */
  id: string;
}

let signer: CursorMac | undefined;

/**
 * Installs the app's key (buildApp passes its SecretBox). Module state rather than a parameter: the
 * list use case is called by ~60 services that have no other reason to know the key, and a process
 * holds one key (PSA_SECRET_KEY, shared by every process so a cursor verifies wherever the next page lands).
 */
export function installListCursorKey(mac: CursorMac): void {
  signer = mac;
}

function key(): CursorMac {
  if (!signer) throw new Error('list cursors are signed with the app key: buildApp installs it (installListCursorKey)');
  return signer;
}

/** A short digest of what a cursor is bound to (the list's filtered row set, as its caller describes it). */
export function listBinding(parts: unknown): string {
  const text = JSON.stringify(parts, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

export function encodeListCursor(binding: string, at: KeysetPosition): string {
  return signToken(key(), { v: 1, b: binding, k: [at.u, at.id] });
}

const invalid = (message = 'invalid cursor; pass pagination.nextCursor from the previous page of the same list unchanged') =>
  new AppError('VALIDATION_ERROR', message, [{ path: 'querystring.cursor', message }]);
const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** Tie-breakers are uuids, integers or short text ids. */
const ID = /^[0-9A-Za-z_:.-]{1,100}$/;

/** The position of a cursor issued for this binding; anything else → 400. */
export function decodeListCursor(binding: string, cursor: string): KeysetPosition {
  const raw = openToken(key(), cursor);
  if (raw === undefined || typeof raw !== 'object' || raw === null) throw invalid();
  const o = raw as { v?: unknown; b?: unknown; k?: unknown };
  if (o.v !== 1 || !Array.isArray(o.k) || o.k.length !== 2) throw invalid();
  if (o.b !== binding) throw invalid('cursor belongs to another list (another tenant, route or filters); keep the query of the first page and pass only its nextCursor');
  const [u, id] = o.k as unknown[];
  if (typeof u !== 'string' || !MICROS.test(u) || Number.isNaN(Date.parse(u)) || typeof id !== 'string' || !ID.test(id)) throw invalid();
  return { u, id };
}
