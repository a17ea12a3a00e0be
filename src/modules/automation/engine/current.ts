import type { Actor } from '../../../platform/auth/context.ts';
import type { Executor } from '../../../platform/db/executor.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { requireVisibleProject, toProject } from '../../projects/index.ts';
import { requireVisibleTicket, toTicket } from '../../tickets/index.ts';

/**
 * `current` in an event rule's conditions: the record the event is about, read again when the execution runs,
 * as `GET /api/v1/<records>/{id}` shows it to the rule's owner — so a rule can ask whether something is *still*
 * true (with `trigger_config.delay_minutes`: "still unassigned an hour later"). A record deleted meanwhile, or
 * no longer visible to the owner, reads as absent (every `current.*` path is undefined).
 */
const LOADERS: Readonly<Record<string, (db: Executor, actor: Actor, id: string) => Promise<object>>> = {
  ticket: async (db, actor, id) => toTicket(await requireVisibleTicket(db, actor, id)),
  project: async (db, actor, id) => toProject(await requireVisibleProject(db, actor, id)),
};

/** The record types `current` can read (an event type's records are the part before its first dot). */
export const CURRENT_RECORD_TYPES = Object.keys(LOADERS);

export const hasCurrentRecord = (eventType: string): boolean => Object.hasOwn(LOADERS, eventType.split('.', 1)[0]!);

export async function loadCurrent(db: Executor, actor: Actor, recordType: string, id: string): Promise<object | undefined> {
  const load = Object.hasOwn(LOADERS, recordType) ? LOADERS[recordType] : undefined;
  if (!load) return undefined;
  try {
    return await load(db, actor, id);
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  }
}
