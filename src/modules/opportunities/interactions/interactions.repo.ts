import { sql, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { InteractionsTable, InteractionType } from '../../../platform/db/schema.opportunities.ts';
import { defineList } from '../../../platform/http/list.ts';

export type InteractionRow = Selectable<InteractionsTable> & {
  client_name: string;
  contact_name: string | null;
  opportunity_number: string | null;
  user_name: string | null;
};

/** "First Last", or the username when the user has neither. */
const userName = (alias: string) =>
  sql<string | null>`coalesce(nullif(trim(concat_ws(' ', ${sql.ref(`${alias}.first_name`)}, ${sql.ref(`${alias}.last_name`)})), ''), ${sql.ref(`${alias}.username`)})`;

function interactionView(db: Executor, tenant: string) {
  return db
    .selectFrom('interactions as i')
    .innerJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'i.tenant').onRef('cl.client_id', '=', 'i.client_id'))
    .leftJoin('contacts as ct', (j) => j.onRef('ct.tenant', '=', 'i.tenant').onRef('ct.contact_id', '=', 'i.contact_id'))
    .leftJoin('opportunities as o', (j) => j.onRef('o.tenant', '=', 'i.tenant').onRef('o.opportunity_id', '=', 'i.opportunity_id'))
    .leftJoin('users as u', (j) => j.onRef('u.tenant', '=', 'i.tenant').onRef('u.user_id', '=', 'i.user_id'))
    .where('i.tenant', '=', tenant)
    .selectAll('i')
    .select(['cl.client_name', 'ct.full_name as contact_name', 'o.opportunity_number', userName('u').as('user_name')]);
}

/** The interaction with the names it shows; `lock` holds the interaction row FOR UPDATE. */
export async function findInteraction(db: Executor, tenant: string, id: string, lock = false): Promise<InteractionRow | undefined> {
  let q = interactionView(db, tenant).where('i.interaction_id', '=', id);
  if (lock) q = q.forUpdate('i');
  return q.executeTakeFirst();
}

export interface InteractionFilter {
  clientId?: string;
  /** Client-portal scope. */
  onlyClientId?: string;
  contactId?: string;
  opportunityId?: string;
  type?: InteractionType;
  userId?: string;
  from?: Date;
  to?: Date;
  search?: string;
}

export function interactionList(db: Executor, tenant: string, f: InteractionFilter) {
  const bare = (d: Executor) => d.selectFrom('interactions as i').where('i.tenant', '=', tenant);
  const filtered = <Q extends ReturnType<typeof interactionView> | ReturnType<typeof bare>>(q: Q): Q => {
    let r = q as ReturnType<typeof bare>;
    if (f.clientId) r = r.where('i.client_id', '=', f.clientId);
    if (f.onlyClientId) r = r.where('i.client_id', '=', f.onlyClientId);
    if (f.contactId) r = r.where('i.contact_id', '=', f.contactId);
    if (f.opportunityId) r = r.where('i.opportunity_id', '=', f.opportunityId);
    if (f.type) r = r.where('i.interaction_type', '=', f.type);
    if (f.userId) r = r.where('i.user_id', '=', f.userId);
    if (f.from) r = r.where('i.interaction_date', '>=', f.from);
    if (f.to) r = r.where('i.interaction_date', '<=', f.to);
    if (f.search) {
      const p = likePattern(f.search);
      r = r.where((eb) => eb.or([eb('i.title', 'ilike', p), eb('i.notes', 'ilike', p)]));
    }
    return r as Q;
  };
  return defineList({
    from: filtered(bare(db)),
    page: filtered(interactionView(db, tenant)),
    sorts: {
      interaction_date: ['i.interaction_date'],
      created_at: ['i.created_at'],
      updated_at: ['i.updated_at'],
      title: [sql`lower(i.title)`, 'i.interaction_date'],
    },
    defaultSort: 'interaction_date',
    defaultOrder: 'desc',
    tieBreaker: 'i.interaction_id',
    updatedAt: 'i.updated_at',
  });
}

/** A deal's interactions, newest first (the timeline). */
export function timelineList(db: Executor, tenant: string, opportunityId: string) {
  const base = (d: Executor) => d.selectFrom('interactions as i').where('i.tenant', '=', tenant).where('i.opportunity_id', '=', opportunityId);
  return defineList({
    from: base(db),
    page: base(db)
      .leftJoin('users as u', (j) => j.onRef('u.tenant', '=', 'i.tenant').onRef('u.user_id', '=', 'i.user_id'))
      .select(['i.interaction_id', 'i.interaction_type', 'i.title', 'i.notes', 'i.interaction_date', 'i.user_id', userName('u').as('user_name')]),
    sorts: { interaction_date: ['i.interaction_date'] },
    defaultSort: 'interaction_date',
    defaultOrder: 'desc',
    tieBreaker: 'i.interaction_id',
    updatedAt: 'i.updated_at',
  });
}

export async function updateInteraction(db: Executor, tenant: string, id: string, set: Updateable<InteractionsTable>): Promise<void> {
  await db.updateTable('interactions').set(set).where('tenant', '=', tenant).where('interaction_id', '=', id).execute();
}

export async function deleteInteraction(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('interactions').where('tenant', '=', tenant).where('interaction_id', '=', id).execute();
}

/** The opportunity an interaction names: its number and client, or undefined when the tenant has none with the id. */
export async function opportunityRef(db: Executor, tenant: string, id: string): Promise<{ opportunity_id: string; opportunity_number: string; client_id: string } | undefined> {
  return db
    .selectFrom('opportunities')
    .select(['opportunity_id', 'opportunity_number', 'client_id'])
    .where('tenant', '=', tenant)
    .where('opportunity_id', '=', id)
    .executeTakeFirst();
}
