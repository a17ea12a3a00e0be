import type { Executor } from '../../../platform/db/executor.ts';
import { insertBuiltinKbTemplates } from './templates.repo.ts';

/** A tenant's built-in knowledge-base templates (one per article type), inside the caller's transaction; idempotent. */
export function seedKbTemplates(trx: Executor, tenant: string): Promise<void> {
  return insertBuiltinKbTemplates(trx, tenant);
}
