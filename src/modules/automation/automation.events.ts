import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit, type DomainEvent } from '../../platform/events/outbox.ts';
import { announced } from '../../platform/events/vocabulary.ts';

/** Executions as events (announced: listed for webhooks; payloads carry ids and the outcome). */
export const AUTOMATION_EVENT_TYPES = announced('automation', [
  ['automation.execution.completed', 'An automation rule ran to the end (actions that continue on error may have failed)'],
  ['automation.execution.failed', 'An automation execution failed (an action failed, timed out, or the owner lacks a permission)'],
]);

/** An execution's outcome as an event (emit it, or emitMany a batch's). */
export function executionEvent(tenant: string, outcome: 'completed' | 'failed', executionId: string, payload: object): DomainEvent {
  return { tenant, event_type: `automation.execution.${outcome}`, aggregate_type: 'automation_execution', aggregate_id: executionId, payload: { execution_id: executionId, ...payload } };
}

export function emitExecutionEvent(trx: Transaction<DB>, tenant: string, outcome: 'completed' | 'failed', executionId: string, payload: object): Promise<string> {
  return emit(trx, executionEvent(tenant, outcome, executionId, payload));
}
