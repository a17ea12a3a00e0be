import { sql, type Kysely, type Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { notifyAuthChange, type KeyCache } from '../../platform/auth/key-cache.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import { translatePgError } from '../../platform/db/pg-errors.ts';
import type { DB } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/http/errors.ts';
import type { BulkCreateUsersBody, BulkDeactivateUsersBody, BulkItemError, BulkOutcome, BulkResult } from './bulk.schemas.ts';
import { requireVisibleUser, type RequestMeta } from './users.access.ts';
import type { UserLifecycle } from './lifecycle.ts';
import { insertPreparedUser, prepareUser, setUserActive, type PreparedUser } from './users.writes.ts';

/** An item's failure as {code, message}; anything that is not a known API or database error is re-thrown (a 500). */
function itemError(err: unknown): BulkItemError {
  const e = err instanceof AppError ? err : translatePgError(err);
  if (!e) throw err;
  return { code: e.code, message: e.message };
}

/** Runs one item in a savepoint: its failure is rolled back alone and reported; the others go on. */
async function inSavepoint<T>(trx: Transaction<DB>, fn: () => Promise<T>): Promise<{ ok: T } | { error: BulkItemError }> {
  await sql`savepoint bulk_item`.execute(trx);
  try {
    const ok = await fn();
    await sql`release savepoint bulk_item`.execute(trx);
    return { ok };
  } catch (err) {
    await sql`rollback to savepoint bulk_item`.execute(trx);
    return { error: itemError(err) };
  }
}

const DRY_RUN = Symbol('dry run');

function outcome(results: BulkResult[], skipped: number, dryRun: boolean): BulkOutcome {
  const failed = results.filter((r) => r.status === 'error').length;
  return { results, summary: { succeeded: results.length - failed, failed, skipped }, dry_run: dryRun };
}

/** Bulk create and bulk (de)activation: one transaction, one savepoint per item. */
export function createBulkService(deps: { db: Kysely<DB>; keyCache: KeyCache; lifecycle: UserLifecycle }) {
  const { db, keyCache } = deps;

  return {
    async create(actor: Actor, body: BulkCreateUsersBody, meta: RequestMeta): Promise<BulkOutcome> {
      const dryRun = body.options?.dry_run ?? false;
      const stopOnError = body.options?.stop_on_error ?? false;
      // Validation and password hashing need no database: done first, outside the transaction.
      const prepared = await Promise.all(
        body.users.map(async (u, i): Promise<{ ok: PreparedUser } | { error: BulkItemError }> => {
          try {
            return { ok: await prepareUser(actor, u, `body.users[${i}]`) };
          } catch (err) {
            return { error: itemError(err) };
          }
        }),
      );
      const results: BulkResult[] = [];
      let skipped = 0;
      try {
        await withTransaction(db, async (trx) => {
          for (const [index, item] of prepared.entries()) {
            if (stopOnError && results.some((r) => r.status === 'error')) {
              skipped++;
              continue;
            }
            const done = 'error' in item ? item : await inSavepoint(trx, () => insertPreparedUser(trx, actor, item.ok, meta, `body.users[${index}]`));
            if ('error' in done) results.push({ index, status: 'error', error: done.error });
            else results.push({ index, status: 'created', ...(dryRun ? {} : { user_id: done.ok.user_id }) });
          }
          if (dryRun) throw DRY_RUN;
        });
      } catch (err) {
        if (err !== DRY_RUN) throw err;
      }
      return outcome(results, skipped, dryRun);
    },

    /** Deactivates (or, with deactivate: false, reactivates) each user; the last-admin and not-yourself rules apply per item. */
    async deactivate(actor: Actor, body: BulkDeactivateUsersBody, meta: RequestMeta): Promise<BulkOutcome> {
      const active = body.deactivate === false;
      const { results, changed } = await withTransaction(db, async (trx) => {
        const out: BulkResult[] = [];
        let any = false;
        for (const userId of body.user_ids) {
          const done = await inSavepoint(trx, async () => setUserActive(trx, deps.lifecycle, actor, await requireVisibleUser(trx, actor, userId, true), active, meta));
          if ('error' in done) out.push({ user_id: userId, status: 'error', error: done.error });
          else out.push({ user_id: userId, status: done.ok ? (active ? 'activated' : 'deactivated') : 'unchanged' });
          any ||= 'ok' in done && done.ok;
        }
        if (any) await notifyAuthChange(trx, actor.tenant);
        return { results: out, changed: any };
      });
      if (changed) keyCache.invalidateTenant(actor.tenant);
      return outcome(results, 0, false);
    },
  };
}

export type BulkService = ReturnType<typeof createBulkService>;
