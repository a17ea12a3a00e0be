import type { Actor } from '../auth/context.ts';

/**
 * A direct action: what a `direct_action` inbound webhook does with the mapped fields. Each area
 * defines the actions on its records next to its services and lists them in its manifest; the
 * inbound-webhooks area runs them. Actions call the same services as the REST API, so they apply the
 * same rules and emit the same events.
 */

export type TargetFieldType = 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'json' | 'ref';

export interface TargetField {
  name: string;
  type: TargetFieldType;
  required: boolean;
  description: string;
  /** For `enum`: the accepted values (matched case-insensitively, stored as listed). */
  enum_values?: readonly string[];
  /** For `ref`: the kind of record the UUID names. */
  ref_entity?: string;
  /** For `string`: the longest value accepted. */
  max_length?: number;
  /** Whether null is passed on (clears the field on updates); otherwise null counts as "not given". */
  nullable?: boolean;
}

export interface ActionResult {
  action: string;
  entity_type: string;
  entity_id: string;
  external_id: string | null;
  operation: 'created' | 'updated' | 'comment_added' | 'status_changed';
  [extra: string]: unknown;
}

/**
 * The tenant's map from a sender's ids to records (implemented by the inbound-webhooks area): creation
 * under an external id happens at most once across concurrent deliveries.
 */
export interface ExternalIds {
  find(entityType: string, externalId: string): Promise<string | undefined>;
  forget(entityType: string, externalId: string, entityId: string): Promise<void>;
  createOnce<T>(
    entityType: string,
    externalId: string,
    create: () => Promise<{ entityId: string; value: T }>,
  ): Promise<{ created: true; entityId: string; value: T } | { created: false; entityId: string }>;
}

export interface ActionContext {
  /** The configuration's creator, with their current role permissions. */
  actor: Actor;
  inboundWebhookId: string;
  deliveryId: string;
  externalIds: ExternalIds;
}

/** The mapped, type-checked target fields (absent ones left out). */
export type ActionInput = Record<string, unknown>;

export type ActionRunner = (ctx: ActionContext, input: ActionInput) => Promise<ActionResult>;

export interface ActionDefinition {
  name: string;
  entity_type: string;
  display_name: string;
  description: string;
  /** Permissions the creator needs (checked at save and at every dispatch). */
  permissions: readonly string[];
  target_fields: readonly TargetField[];
}

/** An action as an area contributes it: what it is, and its runner bound to the area's services. */
export interface InboundAction {
  definition: ActionDefinition;
  run: ActionRunner;
}

export const defineAction = (definition: ActionDefinition, run: ActionRunner): InboundAction => ({ definition, run });

/** The common `external_id` target field. */
export const externalIdField = (required: boolean, what: string): TargetField => ({
  name: 'external_id',
  type: 'string',
  required,
  max_length: 255,
  description: required
    ? `The sender's id of the ${what}; kept in the tenant's external-id map`
    : `The sender's id of the ${what}; when given it is recorded in the tenant's external-id map so later actions can find the ${what}`,
});

/** Copies the given keys of `input` that are present (not undefined). */
export function pick(input: ActionInput, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (input[k] !== undefined) out[k] = input[k];
  return out;
}
