import type { Kysely } from 'kysely';
import { AppError } from '../../../platform/http/errors.ts';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { isPortalActor, lockWritableClient, requireVisibleClient } from '../clients.access.ts';
import { emitClientUpdated } from '../clients.events.ts';
import { updateClient, type ClientRow } from '../clients.repo.ts';
import type { ClientNotes } from './notes.schemas.ts';
import { syncSearch } from '../../../platform/search/writer.ts';

const toNotes = (row: Pick<ClientRow, 'notes' | 'notes_updated_at'>): ClientNotes => ({
  notes: row.notes,
  updated_at: row.notes_updated_at?.toISOString() ?? null,
});

/** Internal notes about a client, in markdown. Client-portal keys never see them. */
export function createNotesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  const assertInternal = (actor: Actor) => {
    if (isPortalActor(actor)) throw new AppError('FORBIDDEN', 'Client notes are internal; client-portal keys cannot use them');
  };

  const write = (actor: Actor, clientId: string, notes: string | null, ifMatch: string | undefined) => {
    assertInternal(actor);
    return withTransaction(db, async (trx) => {
      const row = await lockWritableClient(trx, actor, clientId);
      assertIfMatch(ifMatch, toNotes(row));
      const now = new Date();
      // Notes are not part of the client's representation, so the client's updated_at stays.
      await updateClient(trx, actor.tenant, clientId, { notes, notes_updated_at: now });
      await syncSearch(trx, actor.tenant, 'client', [clientId]);
      await emitClientUpdated(trx, actor.tenant, clientId, ['notes']);
      return toNotes({ notes, notes_updated_at: now });
    });
  };

  return {
    async get(actor: Actor, clientId: string): Promise<ClientNotes> {
      assertInternal(actor);
      return toNotes(await requireVisibleClient(db, actor, clientId));
    },
    put: (actor: Actor, clientId: string, notes: string, ifMatch?: string) => write(actor, clientId, notes, ifMatch),
    async clear(actor: Actor, clientId: string, ifMatch?: string): Promise<void> {
      await write(actor, clientId, null, ifMatch);
    },
  };
}

export type NotesService = ReturnType<typeof createNotesService>;
