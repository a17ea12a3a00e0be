import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { SecretBox } from '../../../platform/crypto/secret-box.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { RuleStatus } from '../../../platform/db/schema.automation.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import { nextRunAt, requiredPermissions, validateRuleShape, type RuleDefinition, type ScheduleConfig } from '../automation.catalog.ts';
import {
  activeUserPermissions,
  deleteRule,
  findInboundWebhookHandler,
  findRule,
  findRules,
  insertRule,
  ruleList,
  updateRule,
  type RuleRow,
} from './rules.repo.ts';
import type { BulkStatusBody, CreateRuleBody, ListRulesQuery, Rule, RuleWithSecret, UpdateRuleBody } from './rules.schemas.ts';

/** A rule's signing secret: `asec_` + 32 random bytes, base64url. */
export const newRuleSigningSecret = (): string => `asec_${randomBytes(32).toString('base64url')}`;

export function toRule(r: RuleRow): Rule {
  return {
    rule_id: r.rule_id,
    name: r.name,
    description: r.description,
    status: r.status,
    priority: r.priority,
    trigger_type: r.trigger_type,
    trigger_config: r.trigger_config,
    event_type: r.event_type,
    conditions: r.conditions as Rule['conditions'],
    condition_logic: r.condition_logic,
    actions: r.actions,
    max_concurrent_executions: r.max_concurrent_executions,
    execution_timeout_minutes: r.execution_timeout_minutes,
    retry_failed_executions: r.retry_failed_executions,
    tags: r.tags,
    next_run_at: iso(r.next_run_at),
    last_run_at: iso(r.last_run_at),
    last_error: r.last_error,
    created_by: r.created_by,
    updated_by: r.updated_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

async function view(db: Executor, tenant: string, id: string, lock = false): Promise<RuleRow> {
  const row = await findRule(db, tenant, id, lock);
  if (!row) throw notFound('Automation rule', id);
  return row;
}

const plural = (n: number, word: string) => (n === 1 ? word : `${word}s`);

/**
 * What the database must confirm about a rule: an inbound-webhook trigger names an inbound webhook of the
 * tenant whose handler hands its deliveries to automation (the `workflow` handler).
 */
async function assertTriggerReferences(trx: Transaction<DB>, tenant: string, def: Pick<RuleDefinition, 'trigger_type' | 'trigger_config'>, path: string): Promise<void> {
  if (def.trigger_type !== 'inbound_webhook') return;
  const id = String(def.trigger_config.inbound_webhook_id);
  const hook = await findInboundWebhookHandler(trx, tenant, id);
  if (!hook) throw validation(`${path}.inbound_webhook_id`, `inbound webhook '${id}' does not exist`);
  if (hook.handler_type !== 'workflow') {
    throw unprocessable(`Inbound webhook '${hook.name}' uses the ${hook.handler_type} handler; only an inbound webhook with the workflow handler hands its deliveries to automation rules`, {
      rule: 'inbound_webhook_not_workflow',
      inbound_webhook_id: id,
      handler_type: hook.handler_type,
    });
  }
}

/**
 * Who a rule runs as after this write: its owner (`created_by`) with their roles' permissions; when the
 * owner is gone or deactivated the caller takes the rule over (it could not run otherwise).
 */
async function resolveOwner(trx: Transaction<DB>, actor: Actor, ownerId: string | null): Promise<{ ownerId: string; permissions: ReadonlySet<string> }> {
  if (ownerId !== null && ownerId !== actor.userId) {
    const permissions = await activeUserPermissions(trx, actor.tenant, ownerId);
    if (permissions) return { ownerId, permissions };
  }
  return { ownerId: actor.userId, permissions: actor.permissions };
}

/**
 * The actions run as the rule's owner, so the owner must hold every permission they need; and whoever saves
 * the rule must hold them too (a key cannot make a rule do what it may not do itself). 422 naming them.
 */
function assertMayRun(actor: Actor, owner: { ownerId: string; permissions: ReadonlySet<string> }, actions: readonly { type: string }[], ruleId?: string): void {
  const required = requiredPermissions(actions);
  const callerMissing = required.filter((p) => !actor.permissions.has(p));
  if (callerMissing.length > 0) {
    throw unprocessable(
      `The rule's actions need the ${plural(callerMissing.length, 'permission')} ${callerMissing.join(', ')}, which the caller lacks (actions run with their owner's permissions; a rule cannot do what its author may not)`,
      { rule: 'actions_need_permissions', missing_permissions: callerMissing, ...(ruleId ? { rule_id: ruleId } : {}) },
    );
  }
  const ownerMissing = required.filter((p) => !owner.permissions.has(p));
  if (ownerMissing.length > 0) {
    throw unprocessable(
      `The rule's owner lacks the ${plural(ownerMissing.length, 'permission')} ${ownerMissing.join(', ')} its actions need (actions run as the owner)`,
      { rule: 'owner_lacks_permissions', owner_id: owner.ownerId, missing_permissions: ownerMissing, ...(ruleId ? { rule_id: ruleId } : {}) },
    );
  }
}

/** The next due time of an active schedule rule; null for every other rule. */
function nextRunOf(def: Pick<RuleDefinition, 'trigger_type' | 'trigger_config'>, status: RuleStatus, now: Date): Date | null {
  return def.trigger_type === 'schedule' && status === 'active' ? nextRunAt(def.trigger_config as unknown as ScheduleConfig, now) : null;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The columns a rule definition sets, as a create and an update both write them. */
function ruleColumns(def: RuleDefinition, status: RuleStatus) {
  return {
    name: def.name,
    description: def.description,
    status,
    priority: def.priority,
    trigger_type: def.trigger_type,
    trigger_config: JSON.stringify(def.trigger_config),
    conditions: JSON.stringify(def.conditions),
    condition_logic: def.condition_logic,
    actions: JSON.stringify(def.actions),
    max_concurrent_executions: def.max_concurrent_executions,
    execution_timeout_minutes: def.execution_timeout_minutes,
    retry_failed_executions: def.retry_failed_executions,
    tags: def.tags,
  };
}

/**
 * Saves a validated rule owned by the caller (a create, or a template's `use`) with a new signing secret,
 * stored sealed and returned once.
 */
export async function insertOwnedRule(trx: Transaction<DB>, secretBox: SecretBox, actor: Actor, def: RuleDefinition, base = 'body'): Promise<RuleWithSecret> {
  await assertTriggerReferences(trx, actor.tenant, def, `${base}.trigger_config`);
  assertMayRun(actor, { ownerId: actor.userId, permissions: actor.permissions }, def.actions);
  const status = def.status ?? 'draft';
  const secret = newRuleSigningSecret();
  const row = await insertRule(trx, {
    tenant: actor.tenant,
    rule_id: newId(),
    ...ruleColumns(def, status),
    next_run_at: nextRunOf(def, status, new Date()),
    signing_secret_enc: secretBox.encrypt(secret),
    created_by: actor.userId,
    updated_by: actor.userId,
  });
  return { ...toRule(row), signing_secret: secret };
}

/** The definition fields of a stored rule, in the shape validateRuleShape reads. */
export function definitionOf(r: RuleRow): Omit<RuleDefinition, 'status'> {
  return {
    name: r.name,
    description: r.description,
    priority: r.priority,
    trigger_type: r.trigger_type,
    trigger_config: r.trigger_config,
    conditions: r.conditions,
    condition_logic: r.condition_logic,
    actions: r.actions,
    max_concurrent_executions: r.max_concurrent_executions,
    execution_timeout_minutes: r.execution_timeout_minutes,
    retry_failed_executions: r.retry_failed_executions,
    tags: r.tags,
  };
}

export function createRulesService(deps: { db: Kysely<DB>; secretBox: SecretBox }) {
  const { db, secretBox } = deps;
  return {
    list(actor: Actor, query: ListRulesQuery) {
      const list = ruleList(db, actor.tenant, {
        status: query.status,
        triggerType: query.trigger_type,
        eventType: query.event_type,
        tag: query.tag,
        search: query.search?.trim() || undefined,
      });
      return listPage(query, list, (rows) => rows.map(toRule));
    },

    async get(actor: Actor, id: string): Promise<Rule> {
      return toRule(await view(db, actor.tenant, id));
    },

    /** 201 with the signing secret, the only time it is shown. */
    async create(actor: Actor, body: CreateRuleBody): Promise<RuleWithSecret> {
      const def = validateRuleShape(body);
      return withTransaction(db, (trx) => insertOwnedRule(trx, secretBox, actor, def));
    },

    /** Partial: the fields sent replace the rule's, and the result is validated as a whole rule. */
    async update(actor: Actor, id: string, body: UpdateRuleBody, ifMatch?: string): Promise<Rule> {
      return withTransaction(db, async (trx) => {
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toRule(current));
        const base = definitionOf(current);
        const typeChanged = body.trigger_type !== undefined && body.trigger_type !== current.trigger_type;
        const { status: requested, ...fields } = body;
        const merged: Record<string, unknown> = { ...base, ...fields };
        // A new trigger type takes its own config: the old type's settings never carry over.
        if (typeChanged && body.trigger_config === undefined) delete merged.trigger_config;
        const def = validateRuleShape(merged);
        await assertTriggerReferences(trx, actor.tenant, def, 'body.trigger_config');
        const owner = await resolveOwner(trx, actor, current.created_by);
        assertMayRun(actor, owner, def.actions);

        const status: RuleStatus = requested ?? current.status;
        const scheduleChanged = def.trigger_type !== current.trigger_type || !sameJson(def.trigger_config, current.trigger_config);
        const becameActive = status === 'active' && current.status !== 'active';
        const now = new Date();
        const next_run_at = def.trigger_type === 'schedule' && status === 'active' && !scheduleChanged && !becameActive && current.next_run_at !== null
          ? current.next_run_at
          : nextRunOf(def, status, now);
        const row = await updateRule(trx, actor.tenant, id, {
          ...ruleColumns(def, status),
          next_run_at,
          ...(requested !== undefined ? { last_error: null } : {}),
          created_by: owner.ownerId,
          updated_by: actor.userId,
          updated_at: now,
        });
        return toRule(row);
      });
    },

    /** Deletes the rule with its execution history. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toRule(current));
        await deleteRule(trx, actor.tenant, id);
      });
    },

    /**
     * Sets the status of 1–100 rules, all or nothing. Activating checks each rule as a save does (its
     * inbound webhook, its owner's permissions) and schedules it; deactivating clears the schedule.
     */
    async bulkStatus(actor: Actor, body: BulkStatusBody): Promise<{ data: Rule[]; meta: { updated: number } }> {
      return withTransaction(db, async (trx) => {
        const rows = new Map((await findRules(trx, actor.tenant, body.ids, true)).map((r) => [r.rule_id, r]));
        const missing = body.ids.find((id) => !rows.has(id));
        if (missing) throw notFound('Automation rule', missing);
        const now = new Date();
        let updated = 0;
        const out: Rule[] = [];
        for (const id of body.ids) {
          const current = rows.get(id)!;
          if (current.status === body.status) {
            out.push(toRule(current));
            continue;
          }
          let createdBy = current.created_by;
          if (body.status === 'active') {
            await assertTriggerReferences(trx, actor.tenant, current, `rules.${id}.trigger_config`).catch((err: unknown) => {
              if (err instanceof Error && 'statusCode' in err && err.statusCode === 400) {
                throw unprocessable(`Automation rule '${current.name}' cannot be activated: its inbound webhook no longer exists`, { rule: 'inbound_webhook_missing', rule_id: id });
              }
              throw err;
            });
            const owner = await resolveOwner(trx, actor, current.created_by);
            assertMayRun(actor, owner, current.actions, id);
            createdBy = owner.ownerId;
          }
          const row = await updateRule(trx, actor.tenant, id, {
            status: body.status,
            next_run_at: nextRunOf(current, body.status, now),
            last_error: null,
            created_by: createdBy,
            updated_by: actor.userId,
            updated_at: now,
          });
          updated++;
          out.push(toRule(row));
        }
        return { data: out, meta: { updated } };
      });
    },

    /** A new signing secret, returned once; the old one stops at once. */
    async rotateSecret(actor: Actor, id: string): Promise<RuleWithSecret> {
      return withTransaction(db, async (trx) => {
        await view(trx, actor.tenant, id, true);
        const secret = newRuleSigningSecret();
        const row = await updateRule(trx, actor.tenant, id, { signing_secret_enc: secretBox.encrypt(secret), updated_by: actor.userId, updated_at: new Date() });
        return { ...toRule(row), signing_secret: secret };
      });
    },
  };
}

export type RulesService = ReturnType<typeof createRulesService>;
