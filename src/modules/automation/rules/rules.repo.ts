import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { permissionsOfUser } from '../../../platform/auth/key-cache.ts';
import type { Executor } from '../../../platform/db/executor.ts';
import { likePattern } from '../../../platform/db/like.ts';
import type { AutomationRulesTable, RuleStatus, TriggerType } from '../../../platform/db/schema.automation.ts';
import { defineList } from '../../../platform/http/list.ts';

export type RuleRow = Selectable<AutomationRulesTable>;

export async function findRule(db: Executor, tenant: string, id: string, lock = false): Promise<RuleRow | undefined> {
  let q = db.selectFrom('automation_rules').selectAll().where('tenant', '=', tenant).where('rule_id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findRules(db: Executor, tenant: string, ids: readonly string[], lock = false): Promise<RuleRow[]> {
  if (ids.length === 0) return [];
  let q = db.selectFrom('automation_rules').selectAll().where('tenant', '=', tenant).where('rule_id', 'in', ids).orderBy('rule_id');
  if (lock) q = q.forUpdate();
  return q.execute();
}

export async function insertRule(db: Executor, row: Insertable<AutomationRulesTable>): Promise<RuleRow> {
  return db.insertInto('automation_rules').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateRule(db: Executor, tenant: string, id: string, set: Updateable<AutomationRulesTable>): Promise<RuleRow> {
  return db.updateTable('automation_rules').set(set).where('tenant', '=', tenant).where('rule_id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteRule(db: Executor, tenant: string, id: string): Promise<void> {
  await db.deleteFrom('automation_rules').where('tenant', '=', tenant).where('rule_id', '=', id).execute();
}

/** An inbound webhook of the tenant with its handler type (read only: the inbound-webhooks area owns the table). */
export async function findInboundWebhookHandler(db: Executor, tenant: string, id: string): Promise<{ handler_type: string; name: string } | undefined> {
  return db
    .selectFrom('inbound_webhooks')
    .select(['handler_type', 'name'])
    .where('tenant', '=', tenant)
    .where('inbound_webhook_id', '=', id)
    .executeTakeFirst();
}

/**
 * The permissions a user's roles grant (what the rule's actions run with), or undefined when the user is
 * gone, deactivated, or a portal account without a client (such a user cannot own a rule).
 */
export async function activeUserPermissions(db: Executor, tenant: string, userId: string): Promise<Set<string> | undefined> {
  const row = await db
    .selectFrom('users as u')
    .select([permissionsOfUser('u.tenant', 'u.user_id').as('permissions')])
    .where('u.tenant', '=', tenant)
    .where('u.user_id', '=', userId)
    .where('u.is_inactive', '=', false)
    .where((eb) => eb.or([eb('u.user_type', '<>', 'client'), eb('u.client_id', 'is not', null)]))
    .executeTakeFirst();
  return row ? new Set(row.permissions) : undefined;
}

export interface RuleListFilter {
  status?: RuleStatus;
  triggerType?: TriggerType;
  eventType?: string;
  tag?: string;
  search?: string;
}

const priorityRank = sql<number>`case r.priority when 'low' then 0 when 'normal' then 1 when 'high' then 2 else 3 end`;

export function ruleList(db: Executor, tenant: string, f: RuleListFilter) {
  let from = db.selectFrom('automation_rules as r').where('r.tenant', '=', tenant);
  let page = db.selectFrom('automation_rules as r').selectAll('r').where('r.tenant', '=', tenant);
  if (f.status) {
    from = from.where('r.status', '=', f.status);
    page = page.where('r.status', '=', f.status);
  }
  if (f.triggerType) {
    from = from.where('r.trigger_type', '=', f.triggerType);
    page = page.where('r.trigger_type', '=', f.triggerType);
  }
  if (f.eventType) {
    from = from.where('r.event_type', '=', f.eventType);
    page = page.where('r.event_type', '=', f.eventType);
  }
  if (f.tag) {
    const tagged = sql<boolean>`${f.tag} = any(r.tags)`;
    from = from.where(tagged);
    page = page.where(tagged);
  }
  if (f.search) {
    const pattern = likePattern(f.search);
    from = from.where((eb) => eb.or([eb('r.name', 'ilike', pattern), eb('r.description', 'ilike', pattern)]));
    page = page.where((eb) => eb.or([eb('r.name', 'ilike', pattern), eb('r.description', 'ilike', pattern)]));
  }
  return defineList({
    from,
    page,
    sorts: {
      name: [sql`lower(r.name)`],
      created_at: ['r.created_at'],
      updated_at: ['r.updated_at'],
      priority: [priorityRank, sql`lower(r.name)`],
    },
    defaultSort: 'created_at',
    defaultOrder: 'desc',
    tieBreaker: 'r.rule_id',
    updatedAt: 'r.updated_at',
  });
}
