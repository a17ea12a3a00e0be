import type { ActionDefinition, ActionDeps, ActionRunner } from './action.ts';
import { addTicketCommentByExternalId } from './add-ticket-comment.ts';
import { changeTicketStatusByExternalId } from './change-ticket-status.ts';
import { createTicket } from './create-ticket.ts';
import { createProjectTask } from './create-project-task.ts';
import { updateTicketByExternalId } from './update-ticket.ts';
import { upsertClientByExternalId } from './upsert-client.ts';
import { upsertContactByExternalId } from './upsert-contact.ts';
import { upsertAssetByExternalId } from './upsert-asset.ts';

/**
 * Every direct action, in one list: adding an action is a new file next to this one and a line here.
 * (Asset and project-task actions join when those areas exist.)
 */
export const ACTIONS: readonly ActionDefinition[] = [
  createTicket,
  updateTicketByExternalId,
  addTicketCommentByExternalId,
  changeTicketStatusByExternalId,
  upsertClientByExternalId,
  upsertContactByExternalId,
  createProjectTask,
  upsertAssetByExternalId,
];

export interface RegisteredAction {
  definition: ActionDefinition;
  run: ActionRunner;
}

export function createActionRegistry(deps: ActionDeps, actions: readonly ActionDefinition[] = ACTIONS) {
  const byName = new Map<string, RegisteredAction>();
  for (const definition of actions) {
    if (byName.has(definition.name)) throw new Error(`inbound action ${definition.name} is registered twice`);
    byName.set(definition.name, { definition, run: definition.build(deps) });
  }
  const sorted = [...actions].sort((a, b) => a.entity_type.localeCompare(b.entity_type) || a.name.localeCompare(b.name));
  return {
    get: (name: string): RegisteredAction | undefined => byName.get(name),
    /** Sorted by entity type, then name. */
    list: (): readonly ActionDefinition[] => sorted,
  };
}

export type ActionRegistry = ReturnType<typeof createActionRegistry>;
