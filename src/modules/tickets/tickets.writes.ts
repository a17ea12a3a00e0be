import type { Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { DB } from '../../platform/db/schema.ts';
import { emitTicketEvents, eventsOfChange, type TicketChanges } from './tickets.events.ts';
import type { Suppress } from './tickets.mapper.ts';
import { findTicketView, replaceTags, updateTicket, type TicketViewRow } from './tickets.repo.ts';
import { syncSearch, upsertSearchDocuments } from '../../platform/search/writer.ts';
import { commentIdsOfTickets } from './comments/comments.search.ts';
import { ticketSearchDocument } from './tickets.search.ts';
import { syncTags } from './tags/tags.sync.ts';
import { apiField, assertMayAssign, checkReferences, REF_FIELDS, sameTags, type RefField, type TicketRefs } from './tickets.rules.ts';

/** A partial change to a ticket, normalised (trimmed title, blank description as null, tags deduplicated). */
export interface TicketPatch extends Partial<TicketRefs> {
  title?: string;
  description?: string | null;
  due_date?: Date | null;
  tags?: string[];
}

const SCALARS = ['title', 'description', ...REF_FIELDS] as const;
const isoOrNull = (d: Date | null) => d?.toISOString() ?? null;

/**
 * Applies a change to a ticket the caller has locked and may see: computes what actually changes,
 * checks the new references, writes (closing or reopening with the status), and emits the write's
 * events in the same transaction. Nothing changes and nothing is emitted when the patch matches the
 * ticket. Returns the ticket as it is afterwards.
 */
export async function applyTicketPatch(
  trx: Transaction<DB>,
  actor: Actor,
  current: TicketViewRow,
  patch: TicketPatch,
  ctx: { suppress: Suppress; publicUrl: string },
): Promise<TicketViewRow> {
  const set: Record<string, unknown> = {};
  const changes: TicketChanges = {};
  for (const column of SCALARS) {
    const value = patch[column];
    if (value === undefined || value === current[column]) continue;
    set[column] = value;
    changes[apiField(column)] = { previous: current[column], new: value };
  }
  if (patch.due_date !== undefined && isoOrNull(patch.due_date) !== isoOrNull(current.due_date)) {
    set.due_date = patch.due_date;
    changes.due_date = { previous: isoOrNull(current.due_date), new: isoOrNull(patch.due_date) };
  }
  const tagsChanged = patch.tags !== undefined && !sameTags(patch.tags, current.tags);
  if (!tagsChanged && Object.keys(set).length === 0) return current;
  if ('assigned_to' in set || 'assigned_team_id' in set) assertMayAssign(actor);

  const changedRefs = new Set(REF_FIELDS.filter((f) => f in set));
  const next = Object.fromEntries(REF_FIELDS.map((f) => [f, f in set ? set[f] : current[f]])) as unknown as TicketRefs;
  const { status } = await checkReferences(trx, actor, next, changedRefs as ReadonlySet<RefField>);

  const now = new Date();
  if (status && status.is_closed !== current.is_closed) {
    Object.assign(set, status.is_closed
      ? { is_closed: true, closed_at: now, closed_by: actor.userId }
      : { is_closed: false, closed_at: null, closed_by: null });
  }
  await updateTicket(trx, actor.tenant, current.ticket_id, { ...set, updated_at: now, updated_by: actor.userId });
  if (tagsChanged) await replaceTags(trx, actor.tenant, current.ticket_id, patch.tags!, now);

  const after = (await findTicketView(trx, actor.tenant, current.ticket_id))!;
  // Indexed from the view just read: the search loader would read the same columns again.
  await upsertSearchDocuments(trx, actor.tenant, [ticketSearchDocument(after)]);
  // Comment rows embed the ticket's title and client.
  if ('title' in set || 'client_id' in set) await syncSearch(trx, actor.tenant, 'ticket_comment', await commentIdsOfTickets(trx, actor.tenant, [current.ticket_id]));
  if (tagsChanged) await syncTags(trx, actor.tenant, [...current.tags, ...after.tags]);
  if (tagsChanged) changes.tags = { previous: current.tags, new: after.tags };
  const previousStatus = 'status_id' in changes ? { status_id: current.status_id, status_name: current.status_name } : null;
  await emitTicketEvents(trx, after, eventsOfChange(current, after, changes), { previousStatus, suppress: ctx.suppress, publicUrl: ctx.publicUrl }, { changes });
  return after;
}
