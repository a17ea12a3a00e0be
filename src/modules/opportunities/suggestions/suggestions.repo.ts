import type { Selectable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { GeneratorKey, OpportunitySuggestionsTable, SuggestionStatus } from '../../../platform/db/schema.opportunities.ts';
import { defineList } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';
import type { SuggestionCandidate } from './generators/common.ts';

export type SuggestionRow = Selectable<OpportunitySuggestionsTable> & { client_name: string };

export interface SuggestionFilter {
  /** pending (default) includes snoozed rows whose snooze ended at `now`; snoozed only those still running. */
  status: SuggestionStatus;
  now: Date;
  clientId?: string;
  generatorKey?: GeneratorKey;
}

export function suggestionList(db: Executor, tenant: string, f: SuggestionFilter) {
  const bare = () => {
    let q = db.selectFrom('opportunity_suggestions as s').where('s.tenant', '=', tenant);
    if (f.status === 'pending') q = q.where((eb) => eb.or([eb('s.status', '=', 'pending'), eb.and([eb('s.status', '=', 'snoozed'), eb('s.snoozed_until', '<=', f.now)])]));
    else if (f.status === 'snoozed') q = q.where('s.status', '=', 'snoozed').where('s.snoozed_until', '>', f.now);
    else q = q.where('s.status', '=', f.status);
    if (f.clientId) q = q.where('s.client_id', '=', f.clientId);
    if (f.generatorKey) q = q.where('s.generator_key', '=', f.generatorKey);
    return q;
  };
  return defineList({
    from: bare(),
    page: bare()
      .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 's.tenant').onRef('cl.client_id', '=', 's.client_id'))
      .selectAll('s')
      .select('cl.client_name'),
    sorts: { created_at: ['s.created_at'] },
    defaultSort: 'created_at',
    defaultOrder: 'desc',
    tieBreaker: 's.suggestion_id',
    updatedAt: 's.updated_at',
  });
}

export async function findSuggestion(db: Executor, tenant: string, id: string, lock = false): Promise<SuggestionRow | undefined> {
  let q = db
    .selectFrom('opportunity_suggestions as s')
    .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 's.tenant').onRef('cl.client_id', '=', 's.client_id'))
    .selectAll('s')
    .select('cl.client_name')
    .where('s.tenant', '=', tenant)
    .where('s.suggestion_id', '=', id);
  if (lock) q = q.forUpdate('s');
  return q.executeTakeFirst();
}

export async function setSuggestionStatus(
  db: Executor,
  tenant: string,
  id: string,
  set: { status: SuggestionStatus; snoozed_until: Date | null; created_opportunity_id?: string; updated_at: Date },
): Promise<void> {
  await db.updateTable('opportunity_suggestions').set(set).where('tenant', '=', tenant).where('suggestion_id', '=', id).execute();
}

/**
 * Inserts the candidates, skipping every dedupe key the tenant already has (whatever its status: a
 * dismissed key never comes back). Returns the generator of each row actually inserted.
 */
export async function insertSuggestions(db: Executor, tenant: string, candidates: readonly SuggestionCandidate[], now: Date): Promise<GeneratorKey[]> {
  const created: GeneratorKey[] = [];
  for (let i = 0; i < candidates.length; i += 500) {
    const rows = await db
      .insertInto('opportunity_suggestions')
      .values(candidates.slice(i, i + 500).map((c) => ({
        tenant,
        suggestion_id: newId(),
        generator_key: c.generator_key,
        client_id: c.client_id,
        title: c.title,
        evidence: JSON.stringify(c.evidence),
        mrr_cents: c.mrr_cents,
        nrr_cents: c.nrr_cents,
        currency_code: c.currency_code,
        dedupe_key: c.dedupe_key,
        created_at: now,
        updated_at: now,
      })))
      .onConflict((oc) => oc.columns(['tenant', 'dedupe_key']).doNothing())
      .returning('generator_key')
      .execute();
    created.push(...rows.map((r) => r.generator_key));
  }
  return created;
}

/** Every tenant, for the scheduled run. */
export async function allTenantIds(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('tenants').select('tenant_id').orderBy('tenant_id').execute();
  return rows.map((r) => r.tenant_id);
}

export const jsonObject = (v: unknown): Record<string, unknown> =>
  (typeof v === 'string' ? (JSON.parse(v) as Record<string, unknown>) : ((v ?? {}) as Record<string, unknown>));
