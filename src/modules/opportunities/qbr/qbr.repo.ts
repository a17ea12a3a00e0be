import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { QbrTriggerKind } from '../../../platform/db/schema.opportunities.ts';

export interface TriggerRow {
  trigger_key: string;
  client_id: string;
  kind: QbrTriggerKind;
  opportunity_id: string | null;
}

/** The recorded triggers of a client (fired, and the deal made from each when acted on). */
export async function triggersOfClient(db: Executor, tenant: string, clientId: string): Promise<TriggerRow[]> {
  return db
    .selectFrom('opportunity_qbr_triggers')
    .select(['trigger_key', 'client_id', 'kind', 'opportunity_id'])
    .where('tenant', '=', tenant)
    .where('client_id', '=', clientId)
    .execute();
}

/** Records the trigger as fired if it is not yet, then holds its row FOR UPDATE (concurrent acts on one trigger queue here). */
export async function lockTrigger(db: Executor, tenant: string, t: { trigger_key: string; client_id: string; kind: QbrTriggerKind }, now: Date): Promise<TriggerRow> {
  await db
    .insertInto('opportunity_qbr_triggers')
    .values({ tenant, trigger_key: t.trigger_key, client_id: t.client_id, kind: t.kind, fired_at: now })
    .onConflict((oc) => oc.columns(['tenant', 'trigger_key']).doNothing())
    .execute();
  return db
    .selectFrom('opportunity_qbr_triggers')
    .select(['trigger_key', 'client_id', 'kind', 'opportunity_id'])
    .where('tenant', '=', tenant)
    .where('trigger_key', '=', t.trigger_key)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

export async function setTriggerOpportunity(db: Executor, tenant: string, key: string, opportunityId: string): Promise<void> {
  await db.updateTable('opportunity_qbr_triggers').set({ opportunity_id: opportunityId }).where('tenant', '=', tenant).where('trigger_key', '=', key).execute();
}

export interface YieldFilter {
  clientId?: string;
  limit: number;
  offset: number;
}

/** Per client: triggers fired, deals made from them (still existing), and deals won; ordered by client name. */
export async function qbrYield(db: Executor, tenant: string, f: YieldFilter) {
  let base = db.selectFrom('opportunity_qbr_triggers as t').where('t.tenant', '=', tenant);
  if (f.clientId) base = base.where('t.client_id', '=', f.clientId);
  const [rows, total] = await Promise.all([
    base
      .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 't.tenant').onRef('cl.client_id', '=', 't.client_id'))
      .leftJoin('opportunities as o', (j) => j.onRef('o.tenant', '=', 't.tenant').onRef('o.opportunity_id', '=', 't.opportunity_id'))
      .select(['t.client_id', 'cl.client_name'])
      .select([
        sql<number | string>`count(*)`.as('triggers_fired'),
        sql<number | string>`count(o.opportunity_id)`.as('opportunities_created'),
        sql<number | string>`count(*) filter (where o.status = 'won')`.as('opportunities_won'),
      ])
      .groupBy(['t.client_id', 'cl.client_name'])
      .orderBy(sql`lower(cl.client_name)`)
      .orderBy('t.client_id')
      .limit(f.limit)
      .offset(f.offset)
      .execute(),
    base.select(sql<number | string>`count(distinct t.client_id)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((r) => ({
      client_id: r.client_id,
      client_name: r.client_name,
      triggers_fired: Number(r.triggers_fired),
      opportunities_created: Number(r.opportunities_created),
      opportunities_won: Number(r.opportunities_won),
    })),
    total: Number(total.n),
  };
}
