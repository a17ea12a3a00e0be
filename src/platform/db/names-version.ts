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
}

/** What a database handle keeps: per tenant, the names of its current version. */
export interface KeptNames {
  /** The tenant's names at `version` (an empty set the first time, and for a read older than the newest seen). */
  at(tenant: string, version: string): NameSet;
}

/** About this many names per handle, in all (each an id and a short string: a few MB). */
const KEPT_NAMES = 20_000;

const newer = (a: string, b: string) => a.length > b.length || (a.length === b.length && a > b);

/**
 * Tenants by recency (a Map iterates in insertion order), each with its names by kind and id: one lookup per
 * name, no key strings built per read. Past the budget, the least recently read tenants are dropped whole.
 */
class KeptNamesByTenant implements KeptNames {
  private readonly tenants = new Map<string, { version: string; kinds: Map<string, Map<string, string | null>> }>();
  private size = 0;

  at(tenant: string, version: string): NameSet {
    let entry = this.tenants.get(tenant);
    if (entry && entry.version !== version) {
      // Versions only grow: an older read (one that began before a rename) keeps nothing and drops nothing.
      if (!newer(version, entry.version)) return this.detached();
      this.drop(tenant);
      entry = undefined;
    }
    if (entry) {
      this.tenants.delete(tenant); // most recently read last
    } else {
      entry = { version, kinds: new Map() };
    }
    this.tenants.set(tenant, entry);
    const { kinds } = entry;
    return {
      get: (kind, id) => kinds.get(kind)?.get(id),
      set: (kind, id, name) => {
        let names = kinds.get(kind);
        if (!names) kinds.set(kind, (names = new Map()));
        if (!names.has(id)) this.size += 1;
        names.set(id, name);
        this.trim(tenant);
      },
    };
  }

  private detached(): NameSet {
    return { get: () => undefined, set: () => undefined };
  }

  private drop(tenant: string): void {
    const entry = this.tenants.get(tenant);
    if (!entry) return;
    for (const names of entry.kinds.values()) this.size -= names.size;
    this.tenants.delete(tenant);
  }

  /** Drops the least recently read tenants while over budget, then, if `tenant` alone is, its names. */
  private trim(tenant: string): void {
    for (const oldest of this.tenants.keys()) {
      if (this.size <= KEPT_NAMES || oldest === tenant) break;
      this.drop(oldest);
    }
    const entry = this.tenants.get(tenant);
    if (this.size > KEPT_NAMES && entry) {
      for (const names of entry.kinds.values()) this.size -= names.size;
      entry.kinds.clear();
    }
  }
}

const stores = new WeakMap<object, KeptNames>();

/** The names this database handle keeps; undefined inside a transaction (see namesVersion). */
export function keptNamesOf(db: { readonly isTransaction: boolean }): KeptNames | undefined {
  if (db.isTransaction) return undefined;
  let store = stores.get(db);
  if (!store) stores.set(db, (store = new KeptNamesByTenant()));
  return store;
}
