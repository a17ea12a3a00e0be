import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { newId } from '../../platform/ids.ts';
import { addBoard, DEFAULT_STATUSES } from './boards/boards.service.ts';
import { insertPriorities } from './priorities/priorities.repo.ts';

const DEFAULT_PRIORITIES = [
  { priority_name: 'Low', color: '#22C55E', is_default: false },
  { priority_name: 'Medium', color: '#F59E0B', is_default: true },
  { priority_name: 'High', color: '#EF4444', is_default: false },
] as const;

/**
 * What a new tenant needs to take tickets: the default board "General" with the statuses Open
 * (default), In Progress and Closed, and the priorities Low, Medium (default) and High. Runs inside
 * the tenant's creation transaction.
 */
export async function seedTicketDefaults(trx: Transaction<DB>, tenant: string): Promise<void> {
  const now = new Date();
  await addBoard(trx, {
    tenant,
    board_id: newId(),
    board_name: 'General',
    description: 'The default board',
    is_default: true,
    is_active: true,
    display_order: 0,
    created_at: now,
    updated_at: now,
  }, DEFAULT_STATUSES, now);
  await insertPriorities(trx, DEFAULT_PRIORITIES.map((p, i) => ({ tenant, priority_id: newId(), order_number: i + 1, ...p, created_at: now, updated_at: now })));
}
