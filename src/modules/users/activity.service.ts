import type { Executor } from '../../platform/db/executor.ts';
import * as repo from './activity.repo.ts';

/**
 * Records one entry of a user's activity log. Areas that change a user's security or profile (sign-in,
 * two-factor, roles, teams, API keys) call it in the transaction of the change it describes.
 */
export function recordActivity(db: Executor, activity: repo.ActivityInput): Promise<void> {
  return repo.recordActivity(db, activity);
}
