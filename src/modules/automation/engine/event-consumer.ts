import { sql, type Kysely } from 'kysely';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { RuleAction, RuleCondition } from '../../../platform/db/schema.automation.ts';
import type { Consumer, OutboxEvent } from '../../../platform/events/relay.ts';
import type { WorkerLog } from '../../../platform/events/worker.ts';
import type { TriggerEnvelope } from '../automation.types.ts';
import { conditionsLog, evaluateConditions } from './conditions.ts';
import { startExecutions, type StartExecutionInput } from './execute.ts';
import { getPath, readsCurrent } from './paths.ts';

/**
 * The event trigger: an outbox consumer that starts an execution of every active `event` rule of the
 * event's tenant and type whose filters and conditions match, with the event id as the trigger key (a
 * redelivered event starts nothing new).
 *
 * Loop guard: an event an automation action caused (`event.cause`) never triggers a rule of the chain that
 * caused it (`cause.rule_ids`), and an event at depth MAX_CHAIN_DEPTH or more triggers no rule at all — a
 * chain of rules triggering each other runs at most MAX_CHAIN_DEPTH executions deep (the user's change, then
 * rule A, rule B, rule C: C's events trigger nothing).
 *
 * `trigger_config.delay_minutes` starts the execution that long after the event; conditions on `current.*`
 * (the event's record as it is then, engine/current.ts) are checked when it runs.
 *
 * A batch (the relay's claimed events) costs one query for the rules of all its (tenant, type) pairs and one
 * statement for all its executions and their jobs.
 */

export const MAX_CHAIN_DEPTH = 3;
export const EVENT_CONSUMER = 'automation-triggers';

interface EventRule {
  tenant: string;
  rule_id: string;
  event_type: string;
  trigger_config: Record<string, unknown>;
  conditions: RuleCondition[];
  condition_logic: string;
  actions: RuleAction[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An event as a rule sees it: `data` = the payload's data (or the payload), `changes` when it has them. */
export function eventEnvelope(event: Pick<OutboxEvent, 'event_id' | 'event_type' | 'payload' | 'occurred_at' | 'aggregate_id' | 'aggregate_type'>): TriggerEnvelope {
  const payload = isRecord(event.payload) ? event.payload : {};
  const data = isRecord(payload.data) ? payload.data : payload;
  return {
    event_type: event.event_type,
    data,
    ...(isRecord(payload.changes) ? { changes: payload.changes } : {}),
    trigger: {
      type: 'event',
      event_id: event.event_id,
      aggregate_type: event.aggregate_type,
      aggregate_id: event.aggregate_id,
      occurred_at: event.occurred_at instanceof Date ? event.occurred_at.toISOString() : event.occurred_at,
    },
  };
}

/**
 * `trigger_config.filters`: either conditions (`[{field, operator, value}]`, all must pass) or a map of
 * path → expected value (equality as the `equals` operator; a path without an envelope root reads `data.`).
 */
export function filtersMatch(filters: unknown, envelope: TriggerEnvelope): boolean {
  if (filters === undefined || filters === null) return true;
  if (Array.isArray(filters)) return evaluateConditions(filters as RuleCondition[], 'and', envelope).matched;
  if (!isRecord(filters)) return true;
  const conditions = Object.entries(filters).map(([field, value]) => {
    const path = /^(event_type|data|changes|headers|trigger)(\.|$)/.test(field) ? field : `data.${field}`;
    return Array.isArray(value) ? { field: path, operator: 'in', value } : { field: path, operator: 'equals', value };
  });
  return evaluateConditions(conditions, 'and', envelope).matched;
}

export function automationEventConsumer(deps: { db: Kysely<DB>; log?: Pick<WorkerLog, 'info'> }): Consumer {
  const { db } = deps;

  async function handleBatch(events: readonly OutboxEvent[]): Promise<void> {
    const live = events.filter((e) => {
      if (e.cause && e.cause.depth >= MAX_CHAIN_DEPTH) {
        deps.log?.info({ event_id: e.event_id, event_type: e.event_type, cause: e.cause }, `automation chain reached depth ${MAX_CHAIN_DEPTH}; the event triggers no rule`);
        return false;
      }
      return true;
    });
    if (live.length === 0) return;
    const pairs = [...new Map(live.map((e) => [`${e.tenant}|${e.event_type}`, e])).values()];
    const { rows: rules } = await sql<EventRule>`
      select r.tenant, r.rule_id, r.event_type, r.trigger_config, r.conditions, r.condition_logic, r.actions
      from automation_rules r
      join unnest(${pairs.map((e) => e.tenant)}::uuid[], ${pairs.map((e) => e.event_type)}::text[]) as p(tenant, event_type)
        on r.tenant = p.tenant and r.event_type = p.event_type
      where r.status = 'active' and r.trigger_type = 'event'
      order by r.tenant, r.rule_id`.execute(db);
    if (rules.length === 0) return;
    const byKey = new Map<string, EventRule[]>();
    for (const rule of rules) {
      const key = `${rule.tenant}|${rule.event_type}`;
      byKey.set(key, [...(byKey.get(key) ?? []), rule]);
    }
    const starts: StartExecutionInput[] = [];
    for (const event of live) {
      const candidates = byKey.get(`${event.tenant}|${event.event_type}`);
      if (!candidates) continue;
      const envelope = eventEnvelope(event);
      for (const rule of candidates) {
        if (event.cause?.rule_ids.includes(rule.rule_id)) continue;
        if (!filtersMatch(getPath(rule, 'trigger_config.filters'), envelope)) continue;
        const conditions = rule.conditions ?? [];
        // Conditions on current.* are decided when the execution runs; the others, under `and`, already rule
        // events out now (under `or` any of them may still pass then, so all wait).
        const later = conditions.some(readsCurrent);
        const now = !later ? conditions : rule.condition_logic === 'and' ? conditions.filter((c) => !readsCurrent(c)) : [];
        const outcome = evaluateConditions(now, rule.condition_logic, envelope);
        if (!outcome.matched) continue;
        const delay = Number(getPath(rule, 'trigger_config.delay_minutes') ?? 0);
        const occurred = new Date(event.occurred_at).getTime();
        starts.push({
          tenant: event.tenant, rule, triggerType: 'event', triggerKey: event.event_id, envelope, cause: event.cause,
          ...(delay > 0 ? { runAt: new Date(occurred + delay * 60_000) } : {}),
          log: conditionsLog(
            `Triggered by ${event.event_type} (event ${event.event_id})${delay > 0 ? `; runs ${delay} minute${delay === 1 ? '' : 's'} after it` : ''}${later ? '; the conditions on current.* are checked when it runs' : ''}`,
            outcome.results, rule.condition_logic,
          ),
        });
      }
    }
    if (starts.length === 0) return;
    await withTransaction(db, (trx) => startExecutions(trx, starts));
  }

  return {
    name: EVENT_CONSUMER,
    handle: (event) => handleBatch([event]),
    handleBatch,
  };
}
