import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from './schema.ts';

/**
 * A tenant's names version: how many times a name that other records show has changed (migration 0030's
 * triggers add a row per change; compaction folds them). A read that selects it next to a record's ids can
 * take the names those ids show from the process's memory (keptNamesOf) instead of joining the tables that
 * hold them — the ticket read joined ten tables for its names, which cost PostgreSQL more than the rest of the
 * read.
 *
 * Why a sum is an exact version: it only grows, every committed change adds to it, and a snapshot sees the
 * changes committed before it was taken, a prefix of their commit order. Two snapshots that read the same
 * sum therefore see the same names. The rules that keep that true:
 *  - names are kept only from a statement that also read the version, and under that version;
 *  - never inside a transaction (keptNamesOf returns undefined there): its own uncommitted changes count in
 *    its sum, and a rollback would leave names kept under a sum that another change may reach later;
 *  - every column whose value is kept is one the migration watches (a new shown name needs its trigger).
 */
export const namesVersion = (tenant: string): RawBuilder<string> =>
  sql<string>`(select coalesce(sum(nc.changes), 0)::text from name_changes nc where nc.tenant = ${sql.ref(tenant)})`;

/**
 * Folds every tenant's change rows into one, in one statement: the sums stay what they were in every
 * snapshot (rows written meanwhile are not in this statement's snapshot and stay for the next run).
 */
export async function compactNameChanges(db: Kysely<DB>): Promise<void> {
  await sql`
    with tenants as (select tenant from name_changes group by tenant having count(*) > 1 limit 10000),
    gone as (delete from name_changes c using tenants t where c.tenant = t.tenant returning c.tenant, c.changes)
    insert into name_changes (tenant, changes) select tenant, sum(changes) from gone group by tenant
  `.execute(db);
}

/** The names kept for one tenant at one names version, by kind of record (which table) and id; null is a kept "no name". */
export interface NameSet {
  get(kind: string, id: string): string | null | undefined;
  set(kind: string, id: string, name: string | null): void;
  /**
   * Called for a name of `kind` that was not kept. Once `fillAfter` names of the kind were missed at this version,
   * `read` runs once (callers meanwhile share it): every name of the kind, at most `limit` + 1, with the names
   * version its statement read; they are kept when they are all of them and of this version. A kind with more is not
   * read whole again, at this version or the tenant's next ones. Returns the read to await when one is due or
   * running, so the caller can look the name up again; undefined otherwise.
   */
  missed(kind: string, read: (limit: number) => Promise<KindNames>): Promise<void> | undefined;
}

/** Every name of one kind as one statement read them, with the names version it read. */
export interface KindNames {
  version: string;
  names: readonly { id: string; name: string | null }[];
}

/** What a database handle keeps: per tenant, the names of its current version. */
export interface KeptNames {
  /** The tenant's names at `version` (an empty set the first time, and for a read older than the newest seen). */
  at(tenant: string, version: string): NameSet;
}

/** How much a handle keeps, and when a kind is read whole. */
export interface KeptNamesLimits {
  /** About this many names per handle, in all (each an id and a short string: 20,000 are a few MB). */
  names: number;
  /** Names of a kind missed at one version before the kind is read whole (a kind read once is not read whole). */
  fillAfter: number;
}

const DEFAULT_LIMITS: KeptNamesLimits = { names: 20_000, fillAfter: 8 };

const newer = (a: string, b: string) => a.length > b.length || (a.length === b.length && a > b);

/** One tenant's names at one version, by kind and id: one Map lookup per name, no key strings built per read. */
class TenantNames implements NameSet {
  readonly kinds = new Map<string, Map<string, string | null>>();
  size = 0;
  /** Per kind: names missed at this version, then the read of the whole kind (running or done). */
  private readonly misses = new Map<string, number | Promise<void>>();

  constructor(
    readonly tenant: string,
    readonly version: string,
    private readonly limits: KeptNamesLimits,
    private readonly grown: (names: TenantNames) => void,
    /** The kinds found to have too many names to read whole: carried to the tenant's next versions, not read again. */
    readonly tooMany = new Set<string>(),
  ) {}

  missed(kind: string, read: (limit: number) => Promise<KindNames>): Promise<void> | undefined {
    if (this.tooMany.has(kind)) return undefined;
    const seen = this.misses.get(kind) ?? 0;
    if (typeof seen !== 'number') return seen;
    if (seen + 1 < this.limits.fillAfter) {
      this.misses.set(kind, seen + 1);
      return undefined;
    }
    // Half the budget at most: one kind read whole must not push every other name out.
    const limit = Math.floor(this.limits.names / 2);
    const filling = read(limit).then(
      ({ version, names }) => {
        if (names.length > limit) this.tooMany.add(kind);
        if (version !== this.version || names.length > limit) return;
        for (const { id, name } of names) this.set(kind, id, name);
      },
      () => undefined, // the caller reads its one name on its own, and reports that read's failure
    );
    this.misses.set(kind, filling);
    return filling;
  }

  get(kind: string, id: string): string | null | undefined {
    return this.kinds.get(kind)?.get(id);
  }

  set(kind: string, id: string, name: string | null): void {
    let names = this.kinds.get(kind);
    if (!names) this.kinds.set(kind, (names = new Map()));
    const added = !names.has(id);
    names.set(id, name);
    if (added) {
      this.size += 1;
      this.grown(this);
    }
  }

  clear(): void {
    this.kinds.clear();
    this.size = 0;
  }
}

/** Kept by nothing: what a read older than the newest version seen gets. */
const DETACHED: NameSet = { get: () => undefined, set: () => undefined, missed: () => undefined };

/** Tenants by recency (a Map iterates in insertion order); past the budget the least recently read go whole. */
class KeptNamesByTenant implements KeptNames {
  private readonly tenants = new Map<string, TenantNames>();
  private size = 0;
  constructor(private readonly limits: KeptNamesLimits) {}

  /** Counts a name added to a tenant's set, unless that set was replaced or dropped meanwhile (a read still held it). */
  private readonly grown = (names: TenantNames) => {
    if (this.tenants.get(names.tenant) !== names) return;
    this.size += 1;
    if (this.size > this.limits.names) this.trim();
  };

  at(tenant: string, version: string): NameSet {
    const kept = this.tenants.get(tenant);
    let names = kept;
    if (names && names.version !== version) {
      // Versions only grow: an older read (one that began before a rename) keeps nothing and drops nothing.
      if (!newer(version, names.version)) return DETACHED;
      this.size -= names.size;
      names = undefined;
    }
    this.tenants.delete(tenant); // most recently read last
    this.tenants.set(tenant, (names ??= new TenantNames(tenant, version, this.limits, this.grown, kept?.tooMany)));
    return names;
  }

  /** Drops the least recently read tenants until within budget; the one read last only if it alone is over. */
  private trim(): void {
    for (const [tenant, names] of this.tenants) {
      if (this.size <= this.limits.names) return;
      this.size -= names.size;
      if (this.tenants.size > 1) this.tenants.delete(tenant);
      else names.clear();
    }
  }
}

const stores = new WeakMap<object, KeptNames>();

/** The names this database handle keeps; undefined inside a transaction (see namesVersion). */
export function keptNamesOf(db: { readonly isTransaction: boolean }): KeptNames | undefined {
  if (db.isTransaction) return undefined;
  let store = stores.get(db);
  if (!store) stores.set(db, (store = new KeptNamesByTenant(DEFAULT_LIMITS)));
  return store;
}

/** Starts the handle's kept names over with other limits (tests: a budget small enough to reach). */
export function keepNamesWithin(db: object, limits: Partial<KeptNamesLimits>): void {
  stores.set(db, new KeptNamesByTenant({ ...DEFAULT_LIMITS, ...limits }));
}
