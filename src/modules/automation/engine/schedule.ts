import { CronExpressionParser } from 'cron-parser';
import type { Kysely } from 'kysely';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { RuleAction, RuleCondition } from '../../../platform/db/schema.automation.ts';
import type { RunSchedule } from '../../../platform/jobs/types.ts';
import type { TriggerEnvelope } from '../automation.types.ts';
import { conditionsLog, evaluateConditions } from './conditions.ts';
import { startExecution } from './execute.ts';

/**
 * The schedule trigger. Active `schedule` rules carry `next_run_at`; a platform schedule ticks every minute
 * (`automation-schedule-tick`), claims the due rules (`for update skip locked`: two workers ticking at once
 * share them, never both take one), starts one execution per rule with the trigger key
 * `schedule:<due time ISO>` — unique per rule, so even a tick that somehow ran twice for the same due time
 * starts one execution — and moves `next_run_at` to the cron's next time after now, in the rule's time zone.
 * Due times missed while no worker ran collapse into one run (the latest missed slot is not replayed once
 * per slot). A rule whose cron or time zone no longer parses is set to `error` with `last_error`.
 *
 * `trigger_config`: `{cron_expression | cron, timezone?}` (five fields, or six with seconds; time zone an IANA
 * name, default UTC). The rules API sets `next_run_at` with nextScheduleTime when a schedule rule is saved
 * active; a rule found active without one gets it at the next tick.
 */

export const SCHEDULE_TICK = 'automation-schedule-tick';
const CLAIM_BATCH = 100;

export function scheduleOf(triggerConfig: Record<string, unknown>): { cron: string; timezone: string } {
  const cron = triggerConfig.cron_expression ?? triggerConfig.cron;
  if (typeof cron !== 'string' || cron.trim() === '') throw new Error('trigger_config.cron_expression is missing');
  const tz = triggerConfig.timezone ?? triggerConfig.time_zone ?? 'UTC';
  return { cron, timezone: typeof tz === 'string' && tz !== '' ? tz : 'UTC' };
}

/** The first due time strictly after `after` of a schedule rule's trigger config; throws if it does not parse. */
export function nextScheduleTime(triggerConfig: Record<string, unknown>, after: Date): Date {
  const { cron, timezone } = scheduleOf(triggerConfig);
  return CronExpressionParser.parse(cron, { currentDate: after, tz: timezone, strict: false }).next().toDate();
}

interface DueRule {
  tenant: string;
  rule_id: string;
  trigger_config: Record<string, unknown>;
  conditions: RuleCondition[];
  condition_logic: string;
  actions: RuleAction[];
  next_run_at: Date | null;
}

/** One tick: starts the due rules' executions (all of them, a batch per transaction). Returns how many started. */
export async function runScheduleTick(db: Kysely<DB>, now: () => Date = () => new Date()): Promise<number> {
  let started = 0;
  for (;;) {
    const at = now();
    const claimed = await withTransaction(db, async (trx) => {
      const due = await trx.selectFrom('automation_rules')
        .select(['tenant', 'rule_id', 'trigger_config', 'conditions', 'condition_logic', 'actions', 'next_run_at'])
        .where('status', '=', 'active').where('trigger_type', '=', 'schedule')
        .where((eb) => eb.or([eb('next_run_at', '<=', at), eb('next_run_at', 'is', null)]))
        .orderBy('next_run_at')
        .limit(CLAIM_BATCH)
        .forUpdate().skipLocked()
        .execute() as DueRule[];
      for (const rule of due) {
        let next: Date;
        try {
          next = nextScheduleTime(rule.trigger_config, at);
        } catch (err) {
          await trx.updateTable('automation_rules')
            .set({ status: 'error', next_run_at: null, last_error: `The schedule does not parse: ${err instanceof Error ? err.message : String(err)}`.slice(0, 2000), updated_at: at })
            .where('tenant', '=', rule.tenant).where('rule_id', '=', rule.rule_id).execute();
          continue;
        }
        if (rule.next_run_at !== null) {
          const scheduledFor = rule.next_run_at.toISOString();
          const envelope: TriggerEnvelope = {
            event_type: 'automation.schedule',
            data: { scheduled_for: scheduledFor },
            trigger: { type: 'schedule', scheduled_for: scheduledFor },
          };
          const outcome = evaluateConditions(rule.conditions ?? [], rule.condition_logic, envelope);
          if (outcome.matched) {
            const result = await startExecution(trx, {
              tenant: rule.tenant, rule, triggerType: 'schedule', triggerKey: `schedule:${scheduledFor}`, envelope,
              log: conditionsLog(`Scheduled run for ${scheduledFor}`, outcome.results, rule.condition_logic),
            });
            if (result.created) started++;
          }
        }
        await trx.updateTable('automation_rules').set({ next_run_at: next })
          .where('tenant', '=', rule.tenant).where('rule_id', '=', rule.rule_id).execute();
      }
      return due.length;
    });
    if (claimed < CLAIM_BATCH) return started;
  }
}

export function automationScheduleTick(db: Kysely<DB>): RunSchedule {
  return { name: SCHEDULE_TICK, cron: '* * * * *', run: async () => void (await runScheduleTick(db)) };
}
