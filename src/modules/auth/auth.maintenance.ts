import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { RunSchedule } from '../../platform/jobs/types.ts';
import { purgeExpiredAuthFlows } from './oidc.repo.ts';
import { purgeEndedSessions } from './sessions.repo.ts';

/** Worker housekeeping, every 10 minutes: ended sessions (after 30 days) and abandoned identity-provider sign-ins. */
export function authMaintenance(db: Kysely<DB>): RunSchedule {
  return {
    name: 'auth-expiry',
    cron: '*/10 * * * *',
    run: async () => {
      await purgeEndedSessions(db, 30 * 24 * 60 * 60_000);
      await purgeExpiredAuthFlows(db);
    },
  };
}
