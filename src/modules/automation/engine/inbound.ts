import { sql, type Kysely } from 'kysely';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { RuleAction, RuleCondition } from '../../../platform/db/schema.automation.ts';
import type { WorkflowDelivery, WorkflowHandler } from '../../inbound-webhooks/index.ts';
import type { TriggerEnvelope } from '../automation.types.ts';
import { conditionsLog, evaluateConditions } from './conditions.ts';
import { startExecutions, type StartExecutionInput } from './execute.ts';

/**
 * The inbound_webhook trigger: the handler the engine registers with the inbound-webhooks area. For a
 * delivery to a configuration with the workflow handler it starts the executions of the tenant's active
 * rules that name the configuration (`trigger_config.inbound_webhook_id`), and of the active rule the
 * configuration names (`handler_config.workflow_id`, any trigger type), whose conditions match the envelope
 * `{data: body, headers}` (a body that is not a JSON object arrives as `data.value`). The trigger key is
 * `inbound:<delivery id>`: a delivery starts each rule once (a replay is a new delivery, and runs again;
 * a repeated idempotency key never reaches here). The test endpoint's dry run starts nothing and reports
 * which rules would run.
 */

interface InboundRule {
  rule_id: string;
  name: string;
  conditions: RuleCondition[];
  condition_logic: string;
  actions: RuleAction[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function inboundEnvelope(d: WorkflowDelivery): TriggerEnvelope {
  return {
    event_type: 'inbound_webhook.received',
    data: isRecord(d.body) ? d.body : { value: d.body },
    headers: d.headers,
    trigger: {
      type: 'inbound_webhook',
      inbound_webhook_id: d.inboundWebhookId,
      delivery_id: d.deliveryId,
      received_at: d.receivedAt.toISOString(),
      idempotency_key: d.idempotencyKey,
      mode: d.mode,
    },
  };
}

export function inboundWorkflowHandler(deps: { db: Kysely<DB> }): WorkflowHandler {
  const { db } = deps;
  return async (delivery) => {
    const { rows: rules } = await sql<InboundRule>`
      select rule_id, name, conditions, condition_logic, actions from automation_rules
      where tenant = ${delivery.tenant}::uuid and status = 'active'
        and ((trigger_type = 'inbound_webhook' and trigger_config ->> 'inbound_webhook_id' = ${delivery.inboundWebhookId})
          or rule_id = ${delivery.workflowId}::uuid)
      order by rule_id`.execute(db);
    const envelope = inboundEnvelope(delivery);
    const matched: { rule: InboundRule; log: ReturnType<typeof conditionsLog> }[] = [];
    for (const rule of rules) {
      const outcome = evaluateConditions(rule.conditions ?? [], rule.condition_logic, envelope);
      if (outcome.matched) matched.push({ rule, log: conditionsLog(`Triggered by inbound delivery ${delivery.deliveryId}`, outcome.results, rule.condition_logic) });
    }
    if (delivery.dryRun) return { dry_run: true, rule_ids: matched.map((m) => m.rule.rule_id), executions: [] };
    const starts: StartExecutionInput[] = matched.map(({ rule, log }) => ({
      tenant: delivery.tenant, rule, triggerType: 'inbound_webhook', triggerKey: `inbound:${delivery.deliveryId}`, envelope, log,
    }));
    const started = starts.length === 0 ? [] : await withTransaction(db, (trx) => startExecutions(trx, starts));
    return { executions: started.map((s) => ({ rule_id: s.rule_id, execution_id: s.execution_id })) };
  };
}
