import type { Actor } from '../../platform/auth/context.ts';
import { SEARCH_TYPES, type SearchType } from './search.types.ts';

/**
 * The read permission each type needs: a caller without it gets no rows of the type, and the type's
 * group counts 0, whatever `types` asked for. Where the catalogue has no resource of the type's own,
 * the nearest one that governs it in the application is used (settings for request definitions,
 * automation for workflow tasks, time entries for the schedule).
 */
export const TYPE_PERMISSION: Readonly<Record<SearchType, string>> = {
  client: 'client:read',
  contact: 'contact:read',
  user: 'user:read',
  ticket: 'ticket:read',
  ticket_comment: 'ticket:read',
  board: 'ticket:read',
  category: 'ticket:read',
  tag: 'ticket:read',
  status: 'ticket:read',
  project: 'project:read',
  project_phase: 'project:read',
  project_task: 'project:read',
  project_task_comment: 'project:read',
  asset: 'asset:read',
  invoice: 'invoice:read',
  invoice_item: 'invoice:read',
  invoice_annotation: 'invoice:read',
  contract: 'contract:read',
  client_contract: 'contract:read',
  document: 'document:read',
  kb_article: 'kb:read',
  service_catalog: 'service:read',
  service_request_submission: 'ticket:read',
  service_request_definition: 'settings:read',
  workflow_task: 'automation:read',
  interaction: 'interaction:read',
  opportunity: 'opportunity:read',
  schedule_entry: 'time_entry:read',
  time_entry: 'time_entry:read',
};

/** The requested types (all when none named) that the actor may read, in catalogue order. */
export function permittedTypes(actor: Actor, requested: ReadonlySet<SearchType> | null): SearchType[] {
  return SEARCH_TYPES.filter((t) => (requested === null || requested.has(t)) && actor.permissions.has(TYPE_PERMISSION[t]));
}

/** What the per-row predicate needs to know about the caller. */
export interface RowAccess {
  tenant: string;
  userId: string;
  /** Set for client-portal keys: only rows of this client, never internal-only rows. */
  clientId: string | null;
  permissions: string[];
}

export const rowAccessOf = (actor: Actor): RowAccess => ({
  tenant: actor.tenant,
  userId: actor.userId,
  clientId: actor.clientId,
  permissions: [...actor.permissions],
});
