import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { likePattern } from '../../platform/db/like.ts';
import type { OpportunitiesTable, OpportunityStage, OpportunityType } from '../../platform/db/schema.opportunities.ts';
import { defineList } from '../../platform/http/list.ts';

export type OpportunityViewRow = Selectable<OpportunitiesTable> & {
  client_name: string;
  contact_name: string | null;
  owner_name: string | null;
};

/** A deal with the names it shows (client, contact, owner). */
export function opportunityView(db: Executor, tenant: string) {
  return db
    .selectFrom('opportunities as o')
    .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'o.tenant').onRef('cl.client_id', '=', 'o.client_id'))
    .leftJoin('contacts as ct', (j) => j.onRef('ct.tenant', '=', 'o.tenant').onRef('ct.contact_id', '=', 'o.contact_id'))
    .leftJoin('users as u', (j) => j.onRef('u.tenant', '=', 'o.tenant').onRef('u.user_id', '=', 'o.owner_id'))
    .where('o.tenant', '=', tenant)
    .selectAll('o')
    .select([
      'cl.client_name',
      'ct.full_name as contact_name',
      sql<string | null>`nullif(trim(concat_ws(' ', u.first_name, u.last_name)), '')`.as('owner_name'),
    ]);
}

export function findOpportunityView(db: Executor, tenant: string, id: string): Promise<OpportunityViewRow | undefined> {
  return opportunityView(db, tenant).where('o.opportunity_id', '=', id).executeTakeFirst();
}

export interface OpportunityFilter {
  status?: 'open' | 'won' | 'lost';
  stage?: OpportunityStage;
  ownerId?: string;
  clientId?: string;
  /** Client-portal scope (portal roles hold no opportunity permission today; kept so a grant never leaks). */
  onlyClientId?: string;
  type?: OpportunityType;
  currency?: string;
  /** Open deals whose last activity is before this instant. */
  stalledBefore?: Date;
  search?: string;
}

export function opportunityList(db: Executor, tenant: string, f: OpportunityFilter) {
  const filtered = <Q extends ReturnType<typeof opportunityView> | ReturnType<typeof bare>>(q: Q): Q => {
    let r = q as ReturnType<typeof bare>;
    if (f.status) r = r.where('o.status', '=', f.status);
    if (f.stage) r = r.where('o.stage', '=', f.stage);
    if (f.ownerId) r = r.where('o.owner_id', '=', f.ownerId);
    if (f.clientId) r = r.where('o.client_id', '=', f.clientId);
    if (f.onlyClientId) r = r.where('o.client_id', '=', f.onlyClientId);
    if (f.type) r = r.where('o.opportunity_type', '=', f.type);
    if (f.currency) r = r.where('o.currency_code', '=', f.currency);
    if (f.stalledBefore) r = r.where('o.status', '=', 'open').where('o.last_activity_at', '<', f.stalledBefore);
    if (f.search) {
      const pattern = likePattern(f.search);
      r = r.where((eb) =>
        eb.or([
          eb('o.title', 'ilike', pattern),
          eb('o.opportunity_number', 'ilike', pattern),
          eb.exists(eb.selectFrom('clients as sc').select(sql`1`.as('one')).whereRef('sc.tenant', '=', 'o.tenant').whereRef('sc.client_id', '=', 'o.client_id').where('sc.client_name', 'ilike', pattern)),
        ]),
      );
    }
    return r as Q;
  };
  const bare = (d: Executor) => d.selectFrom('opportunities as o').where('o.tenant', '=', tenant);
  return defineList({
    from: filtered(bare(db)),
    page: filtered(opportunityView(db, tenant)),
    sorts: {
      next_action_due: [{ by: 'o.next_action_due', nullsLast: true }],
      expected_close_date: [{ by: 'o.expected_close_date', nullsLast: true }],
      mrr_cents: ['o.mrr_cents'],
      last_activity_at: ['o.last_activity_at'],
      created_at: ['o.created_at'],
      updated_at: ['o.updated_at'],
      // 'OPP-1000000' after 'OPP-999999': shorter numbers first, then by text.
      opportunity_number: [sql`length(o.opportunity_number)`, 'o.opportunity_number'],
    },
    defaultSort: 'next_action_due',
    defaultOrder: 'asc',
    tieBreaker: 'o.opportunity_id',
    updatedAt: 'o.updated_at',
  });
}

export async function evidenceOf(db: Executor, tenant: string, opportunityId: string) {
  return db.selectFrom('opportunity_evidence').selectAll().where('tenant', '=', tenant).where('opportunity_id', '=', opportunityId).orderBy('recorded_at').orderBy('evidence_id').execute();
}

export async function stepsOf(db: Executor, tenant: string, opportunityId: string) {
  return db.selectFrom('opportunity_steps').selectAll().where('tenant', '=', tenant).where('opportunity_id', '=', opportunityId).orderBy('sort_order').orderBy('step_id').execute();
}

export async function linkedQuoteIds(db: Executor, tenant: string, opportunityId: string): Promise<{ quote_id: string; linked_at: Date }[]> {
  return db.selectFrom('opportunity_quotes').select(['quote_id', 'linked_at']).where('tenant', '=', tenant).where('opportunity_id', '=', opportunityId).orderBy('linked_at').execute();
}
