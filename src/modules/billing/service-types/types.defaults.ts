import type { Executor } from '../../../platform/db/executor.ts';
import { seedServiceTypes as insertBuiltinTypes } from './types.repo.ts';

/** A new tenant's built-in service types, inside the tenant's creation transaction. */
export function seedServiceTypes(trx: Executor, tenant: string): Promise<void> {
  return insertBuiltinTypes(trx, tenant);
}
