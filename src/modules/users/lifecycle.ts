import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';

/** Work another area does on its own records, in the users area's transaction. */
export type UserHook<R> = (trx: Transaction<DB>, tenant: string, userId: string) => Promise<R>;

/**
 * The points in a user's life that other areas follow with writes to their own tables: sessions end
 * when a user is deactivated or their password changes (auth), teams lose a manager being deleted
 * (teams). Those areas import users, so users cannot import them back: they register here when built
 * (users is built first), and users runs the hooks inside its own transaction.
 */
export class UserLifecycle {
  private readonly signInRevoked: UserHook<number>[] = [];
  private readonly deleting: UserHook<void>[] = [];

  /** Registers what ends a user's sign-ins; the hook returns how many sessions it ended. */
  onSignInRevoked(hook: UserHook<number>): void {
    this.signInRevoked.push(hook);
  }

  /** Registers what must happen before a user row is deleted (references without an ON DELETE action). */
  onDeleting(hook: UserHook<void>): void {
    this.deleting.push(hook);
  }

  /** Ends the user's sign-ins (deactivated, or the password changed); returns how many sessions ended. */
  async revokeSignIn(trx: Transaction<DB>, tenant: string, userId: string): Promise<number> {
    let ended = 0;
    for (const hook of this.signInRevoked) ended += await hook(trx, tenant, userId);
    return ended;
  }

  async beforeDelete(trx: Transaction<DB>, tenant: string, userId: string): Promise<void> {
    for (const hook of this.deleting) await hook(trx, tenant, userId);
  }
}
