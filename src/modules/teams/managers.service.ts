import type { Executor } from '../../platform/db/executor.ts';
import { clearManager } from './teams.repo.ts';

/**
 * Teams a user managed lose their manager, in the caller's transaction: called before the user is
 * deleted, since the foreign key has no ON DELETE action.
 */
export function clearTeamManager(db: Executor, tenant: string, userId: string): Promise<void> {
  return clearManager(db, tenant, userId);
}
