import { sql, type CompiledQuery, type RawBuilder } from 'kysely';

/**
 * What a kept list (keptListPage in list.ts) keeps per database handle: its compiled statements per input
 * and page shape, and its mapped rows by version. A repeated page then costs no query building and one
 * narrow statement — each row's id and version, and the total — instead of PostgreSQL producing, and Node
 * decoding and mapping, every column of every row again (measured on the ticket list's 37 columns: most
 * of a page's cost). The page is answered from the kept rows only when every one of them is kept under
 * the version the statement just read; otherwise it is read whole as before and its rows are kept. Either
 * way the answer is one statement's snapshot.
 *
 * A version is the `xmin` of the row and of each row joined onto it (rowVersion), plus by value what the
 * row shows from no such row (counts of child rows, or the tenant's names version in place of the rows it
 * shows names of: src/platform/db/names-version.ts): PostgreSQL gives every committed row version the id
 * of the transaction that wrote it, so any change to anything the row shows — its own columns, a joined
 * name — yields another version. Three rules keep that exact:
 *  - the list's mapping is a pure function of the row (the list's name carries anything else it depends
 *    on, such as the day), and everything the row shows comes from the tables or values in its version;
 *  - the statements depend on nothing but the list's input and the page's parameters (no clock);
 *  - never inside a transaction (keptStoreOf returns undefined there): a transaction that writes a row
 *    twice leaves both versions with its own id, and it could see the first.
 */
export class Lru<V> {
  private readonly entries = new Map<string, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key); // most recently used last
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** A kept list's statements for one input and page shape. */
export interface KeptStatements {
  /** Whether the next page of this shape starts with `keys` (see keptListPage). */
  tryKeys: boolean;
  /** Each row's id (KEY_ID) and version (KEY_VERSION), with the total. */
  keys: CompiledQuery;
  /** The page whole, with the same two columns and the total. */
  page: CompiledQuery;
  /** Counts the rows the total counts, for a page past the end (which has no row to carry it). */
  count: CompiledQuery<{ n: number | string }>;
}

export interface KeptStore {
  statements: Lru<KeptStatements>;
  /** Mapped rows, deeply frozen (keepRow): every later page shares them, so nothing may change them. */
  rows: Lru<object>;
  /** Point reads' ETags by their representation's version (withVersionedEtag in etag.ts). */
  etags: Lru<string>;
}

/** Per database handle: a few thousand first pages' worth of rows (a mapped row is ~1–2 KB with its JSON). */
const KEPT_ROWS = 5_000;
const KEPT_STATEMENTS = 1_000;
/** ~200 bytes each, about 4 MB in all. */
const KEPT_ETAGS = 20_000;

const stores = new WeakMap<object, KeptStore>();

/** What this handle keeps; undefined inside a transaction (see above). */
export function keptStoreOf(db: { readonly isTransaction: boolean }): KeptStore | undefined {
  if (db.isTransaction) return undefined;
  let store = stores.get(db);
  if (!store) stores.set(db, (store = { statements: new Lru(KEPT_STATEMENTS), rows: new Lru(KEPT_ROWS), etags: new Lru(KEPT_ETAGS) }));
  return store;
}

/** The column a kept list's statements carry each row's version in. */
export const KEY_VERSION = '__row_version';

/** A kept row's key: the list, the row's unique id and its version (which starts with the tenant). */
export const keyOfRow = (list: string, id: string, version: string): string => `${list}\u0000${id}\u0000${version}`;

/**
 * A row's version: the tenant, then the `xmin` of each table alias whose columns the row shows, the
 * list's own table first, then the values the row shows that no such table holds (counts and sums of
 * child rows), compared by value. A left join that found nothing leaves an empty place, so places never
 * shift.
 */
export function rowVersion(tenant: string, aliases: readonly string[], values: readonly RawBuilder<unknown>[] = []): RawBuilder<string> {
  const places = [...aliases.map((a) => sql.ref(`${a}.xmin`)), ...values];
  return sql<string>`format(${sql.lit(`%s/${aliases.map(() => '%s').join('.')}${values.map(() => '|%s').join('')}`)}, ${sql.ref(tenant)}, ${sql.join(places)})`;
}

const keptRows = new WeakSet<object>();

/** Freezes a mapped row deeply, as every later page shares it, and marks it kept. */
export function keepRow<T extends object>(row: T): T {
  keptRows.add(deepFreeze(row));
  return row;
}

/** Whether `row` is a kept row: its JSON never changes (list-serializer.ts reuses it). */
export const isKeptRow = (row: unknown): row is object => typeof row === 'object' && row !== null && keptRows.has(row);

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
