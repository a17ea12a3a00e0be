import type { Transaction } from 'kysely';
import type { TSchema } from 'typebox';
import type { Actor } from '../../platform/auth/context.ts';
import type { DB } from '../../platform/db/schema.ts';

/**
 * The shapes every part of the automation engine shares: the envelope a rule sees, and what an action is.
 *
 * A rule's conditions and its actions' `{{placeholders}}` address the trigger's envelope with dotted paths
 * (`data.priority_name`, `changes.status_id.new`, `event_type`). For an event trigger the envelope is the
 * outbox event (`data` = its payload's data or the payload itself, `changes` when the event carries them);
 * for a schedule `data` is `{scheduled_for}`; for a manual run `data` is the request's `execution_data`; for
 * an inbound webhook `data` is the delivery's body (`headers` beside it).
 */
export interface TriggerEnvelope {
  event_type: string;
  data: Record<string, unknown>;
  changes?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The trigger's own identity: event_id, scheduled_for, delivery_id or the manual run. */
  trigger: Record<string, unknown>;
}

/** What an action's runner gets. */
export interface ActionRunContext {
  /** The rule's owner with their current permissions (actions act as them, like an API key without scopes). */
  actor: Actor;
  executionId: string;
  ruleId: string;
  actionIndex: number;
  /**
   * Stable across retries of the same step (`<execution_id>:<action_index>`): external effects send it as
   * their idempotency key so a retried step does not repeat them at the receiver.
   */
  idempotencyKey: string;
  /** Aborted when the action's timeout_seconds elapse. */
  signal: AbortSignal;
  /** The rule's signing secret (call_url signs its requests with it, like outbound webhooks). */
  signingSecret: string;
}

/** The condition operators (GET /automation/meta lists them; the engine evaluates them). */
export const CONDITION_OPERATORS = [
  'equals', 'not_equals', 'greater_than', 'less_than', 'greater_than_or_equal', 'less_than_or_equal',
  'contains', 'not_contains', 'starts_with', 'ends_with', 'in', 'not_in', 'exists', 'not_exists', 'regex_match',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export const TRIGGER_TYPES = ['event', 'schedule', 'manual', 'inbound_webhook'] as const;

/**
 * An action type as the rules API knows it (validation, GET /automation/meta). `transactional` actions write
 * through the owning areas' in-transaction functions in the `trx` the engine passes — the same transaction
 * records the step as completed, so a crash keeps both or neither and a completed step never runs twice.
 * External actions (e-mail, HTTP) cannot be rolled back: they run at least once and carry the idempotency key.
 */
export interface ActionDefinition {
  type: string;
  description: string;
  /** JSON schema of `config`; any string in it may hold {{placeholders}} (validated after filling them in too). */
  config: TSchema;
  /** Permissions the rule's owner needs (checked when the rule is saved and at every run). */
  permissions: readonly string[];
  transactional: boolean;
}

/**
 * An action's runner (built in the worker with its dependencies). Gets the config with placeholders filled
 * in; `trx` is the step's transaction for transactional actions, null for external ones. Returns what the
 * step log records (ids of what it created or touched).
 */
export type ActionRunner = (ctx: ActionRunContext, config: Record<string, unknown>, trx: Transaction<DB> | null) => Promise<Record<string, unknown>>;
