import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { newId } from '../../platform/ids.ts';
import { insertProjectStatuses, insertTaskStatuses } from './statuses/statuses.repo.ts';

const PROJECT_STATUSES = [
  { name: 'Planning', is_closed: false, is_default: true },
  { name: 'Active', is_closed: false, is_default: false },
  { name: 'On Hold', is_closed: false, is_default: false },
  { name: 'Completed', is_closed: true, is_default: false },
  { name: 'Cancelled', is_closed: true, is_default: false },
] as const;

const TASK_STATUSES = [
  { name: 'To Do', is_closed: false, is_default: true },
  { name: 'In Progress', is_closed: false, is_default: false },
  { name: 'Done', is_closed: true, is_default: false },
] as const;

/**
 * What a new tenant needs to run projects: project statuses (Planning by default; Completed and
 * Cancelled closed) and task statuses (To Do by default; Done closed, completing a task). Runs inside
 * the tenant's creation transaction; migration 0011 gives existing tenants the same.
 */
export async function seedProjectDefaults(trx: Transaction<DB>, tenant: string): Promise<void> {
  const now = new Date();
  await insertProjectStatuses(trx, PROJECT_STATUSES.map((s, i) => ({ tenant, status_id: newId(), ...s, order_number: i + 1, created_at: now, updated_at: now })));
  await insertTaskStatuses(trx, TASK_STATUSES.map((s, i) => ({ tenant, task_status_id: newId(), ...s, order_number: i + 1, created_at: now, updated_at: now })));
}
