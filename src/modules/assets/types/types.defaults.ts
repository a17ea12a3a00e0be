import type { Executor } from '../../../platform/db/executor.ts';
import { seedAssetTypes as insertBuiltinTypes } from './types.repo.ts';

/** A new tenant's built-in asset types, inside the tenant's creation transaction. */
export function seedAssetTypes(trx: Executor, tenant: string): Promise<void> {
  return insertBuiltinTypes(trx, tenant);
}
