import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { OurBooks } from '../books.ts';
import type { Connected } from '../connection/connections.service.ts';
import type { ReferenceService } from '../reference/reference.service.ts';
import type { Tally } from './tally.ts';

/** What one sync operation works with: who asked, the company, our books, and where outcomes go. */
export interface SyncContext {
  db: Kysely<DB>;
  actor: Actor;
  c: Connected;
  books: OurBooks;
  reference: ReferenceService;
  tally: Tally;
}
