import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import { nextNumberInTrx, withReservedNumber, type ReservedNumber } from '../../platform/db/numbering.ts';
import type { DB } from '../../platform/db/schema.ts';
import { TICKET_EVENTS } from './tickets.vocabulary.ts';
import { assertIfMatch, withVersionedEtag } from '../../platform/http/etag.ts';
import { unprocessable, validation } from '../../platform/http/errors.ts';
import { emptyPage, keptListPage } from '../../platform/http/list.ts';
import { requiredText } from '../../platform/http/text.ts';
import { newId } from '../../platform/ids.ts';
import { portalClientId } from '../clients/index.ts';
import { emitTicketDeleted, emitTicketEvents, suppressOf } from './tickets.events.ts';
import { toTicket } from './tickets.mapper.ts';
import { ticketSearchDocument } from './tickets.search.ts';
import { deleteTicket, findContactRef, findTicketDefaults, findTicketView, findUserRef, insertTags, insertTicket, ticketList } from './tickets.repo.ts';
import { assertBoardTakesTickets, assertMayAssign, checkReferences, normalizeTags, portalScopeOf, REF_FIELDS, requireVisibleTicket, type RefField, type TicketRefs } from './tickets.rules.ts';
import type {
  CreateTicketBody,
  ListTicketsQuery,
  Ticket,
  TicketAssignmentBody,
  TicketStatusBody,
  UpdateTicketBody,
} from './tickets.schemas.ts';
import { syncSearch, upsertSearchDocuments } from '../../platform/search/writer.ts';
import { syncTags } from './tags/tags.sync.ts';
import { applyTicketPatch, type TicketPatch } from './tickets.writes.ts';

/** T-000001; longer once the counter passes 999 999. */
export const formatTicketNumber = (seq: number): string => `T-${String(seq).padStart(6, '0')}`;

/** Markdown is kept as written; blank means none. */
const descriptionOf = (d: string | null | undefined) => (d === undefined ? undefined : d === null || d.trim() === '' ? null : d);
const dueDateOf = (d: string | null | undefined) => (d === undefined ? undefined : d === null ? null : new Date(d));

function patchOf(body: UpdateTicketBody): TicketPatch {
  return {
    title: body.title === undefined ? undefined : requiredText(body.title, 'body.title'),
    description: descriptionOf(body.description),
    client_id: body.client_id,
    board_id: body.board_id,
    status_id: body.status_id,
    priority_id: body.priority_id,
    category_id: body.category_id,
    subcategory_id: body.subcategory_id,
    contact_id: body.contact_name_id,
    assigned_to: body.assigned_to,
    assigned_team_id: body.assigned_team_id,
    due_date: dueDateOf(body.due_date),
    tags: body.tags === undefined ? undefined : normalizeTags(body.tags, 'body.tags'),
  };
}

/** What a write needs beyond the transaction: the base of event URLs, and If-Match for PUT. */
export interface TicketWriteContext {
  publicUrl: string;
  ifMatch?: string;
  /** The ticket number reserved for a create (withReservedNumber); without it the counter is used in the transaction. */
  reserved?: ReservedNumber;
}

/**
 * Creates a ticket with the next ticket number inside the caller's transaction (validation, events,
 * search sync: what POST /api/v1/tickets does). Board, status and priority default to the tenant's
 * defaults (the status to the default of the ticket's board); a client-portal key's ticket is for
 * its own client and, unless it names one, its own contact. Emits ticket.created.
 */
export async function createTicketInTrx(trx: Transaction<DB>, actor: Actor, body: CreateTicketBody, ctx: TicketWriteContext): Promise<Ticket> {
  const { publicUrl } = ctx;
  const title = requiredText(body.title, 'body.title');
  const tags = normalizeTags(body.tags ?? [], 'body.tags');
  const suppress = suppressOf(body);
  const portal = portalClientId(actor);
  const clientId = body.client_id ?? portal;
  if (clientId === undefined) throw validation('body.client_id', 'is required');
  if ((body.assigned_to ?? null) !== null || (body.assigned_team_id ?? null) !== null) assertMayAssign(actor);

  const { tenant } = actor;
  const defaults = await findTicketDefaults(trx, tenant, body.board_id);
  const board = defaults.board;
  if (board === null) {
    throw body.board_id === undefined
      ? unprocessable('The tenant has no default board; create one with POST /api/v1/boards')
      : validation('body.board_id', `no board '${body.board_id}'`);
  }
  const boardId = board.board_id;
  const defaultStatus = body.status_id === undefined ? (defaults.status ?? undefined) : undefined;
  const statusId = body.status_id ?? defaultStatus?.status_id;
  if (statusId === undefined) throw unprocessable(`Board '${boardId}' has no default status; send status_id`);
  const priorityId = body.priority_id ?? defaults.priority_id ?? undefined;
  if (priorityId === undefined) throw unprocessable('The tenant has no default priority; send priority_id or create one with POST /api/v1/priorities');
  // What the defaults statement read needs no second look: the board exists (named or the default, which is
  // active by a CHECK), a defaulted status is that board's own, the default priority exists. A status sent in
  // the body is still checked against the board.
  const defaulted = new Set<RefField>([
    'board_id',
    ...(body.status_id === undefined ? (['status_id'] as const) : []),
    ...(body.priority_id === undefined ? (['priority_id'] as const) : []),
  ]);

  let contactId = body.contact_name_id ?? null;
  if (portal !== undefined && body.contact_name_id === undefined) {
    const own = (await findUserRef(trx, tenant, actor.userId))?.contact_id ?? null;
    if (own !== null && (await findContactRef(trx, tenant, own))?.client_id === clientId) contactId = own;
  }
  const refs: TicketRefs = {
    board_id: boardId,
    status_id: statusId,
    priority_id: priorityId,
    category_id: body.category_id ?? null,
    subcategory_id: body.subcategory_id ?? null,
    client_id: clientId,
    contact_id: contactId,
    assigned_to: body.assigned_to ?? null,
    assigned_team_id: body.assigned_team_id ?? null,
  };
  assertBoardTakesTickets(board);
  const { status } = await checkReferences(trx, actor, refs, new Set(REF_FIELDS.filter((f) => !defaulted.has(f))));
  const closed = (status ?? defaultStatus)!.is_closed;

  const seq = ctx.reserved?.seq ?? (await nextNumberInTrx(trx, tenant, 'ticket'));
  const ticketId = newId();
  const now = new Date();
  await insertTicket(trx, {
    tenant,
    ticket_id: ticketId,
    ticket_seq: seq,
    ticket_number: formatTicketNumber(seq),
    title,
    description: descriptionOf(body.description) ?? null,
    ...refs,
    due_date: dueDateOf(body.due_date) ?? null,
    is_closed: closed,
    entered_by: actor.userId,
    entered_at: now,
    updated_by: actor.userId,
    updated_at: now,
    closed_by: closed ? actor.userId : null,
    closed_at: closed ? now : null,
  }, ctx.reserved);
  await insertTags(trx, tenant, ticketId, tags, now);
  const row = (await findTicketView(trx, tenant, ticketId))!;
  // Indexed from the view just read: the search loader would read the same columns again.
  await upsertSearchDocuments(trx, tenant, [ticketSearchDocument(row)]);
  await syncTags(trx, tenant, tags);
  await emitTicketEvents(trx, row, [TICKET_EVENTS.created], { previousStatus: null, suppress, publicUrl });
  return toTicket(row);
}

/** A partial change under the ticket's lock, in the caller's transaction, honouring If-Match against the current representation. */
async function changeInTrx(trx: Transaction<DB>, actor: Actor, id: string, patch: TicketPatch, suppress: ReturnType<typeof suppressOf>, ctx: TicketWriteContext): Promise<Ticket> {
  const current = await requireVisibleTicket(trx, actor, id, true);
  assertIfMatch(ctx.ifMatch, toTicket(current));
  return toTicket(await applyTicketPatch(trx, actor, current, patch, { suppress, publicUrl: ctx.publicUrl }));
}

/**
 * PUT /api/v1/tickets/{id} inside the caller's transaction: partial update of any field; emits
 * ticket.updated (+ status_changed, closed, assigned) when something changed.
 */
export function updateTicketInTrx(trx: Transaction<DB>, actor: Actor, id: string, body: UpdateTicketBody, ctx: TicketWriteContext): Promise<Ticket> {
  return changeInTrx(trx, actor, id, patchOf(body), suppressOf(body), ctx);
}

export function createTicketsService(deps: { db: Kysely<DB>; publicUrl: string }) {
  const { db, publicUrl } = deps;

  /** A partial change under the ticket's lock, honouring If-Match against the current representation. */
  const change = (actor: Actor, id: string, patch: TicketPatch, suppress: ReturnType<typeof suppressOf>, ifMatch?: string): Promise<Ticket> =>
    withTransaction(db, (trx) => changeInTrx(trx, actor, id, patch, suppress, { publicUrl, ifMatch }));

  return {
    /** Tickets the actor may see (the total too): for a client-portal key, those the portal visibility rule allows. */
    async list(actor: Actor, query: ListTicketsQuery) {
      const portal = portalScopeOf(actor);
      // Without a contact a portal key reaches no billing profile's tickets: only its own client's.
      if (portal?.contactId === null && query.client_id !== undefined && query.client_id !== portal.clientId) return emptyPage(query);
      const filter = {
        portal,
        boardId: query.board_id,
        statusId: query.status_id,
        priorityId: query.priority_id,
        categoryId: query.category_id,
        subcategoryId: query.subcategory_id,
        clientId: query.client_id,
        contactId: query.contact_name_id,
        assignedTo: query.assigned_to,
        assignedTeamId: query.assigned_team_id,
        isClosed: query.is_closed,
        tag: query.tag?.trim() || undefined,
        search: query.search?.trim() || undefined,
        dueBefore: query.due_before ? new Date(query.due_before) : undefined,
      };
      return keptListPage(db, query, 'tickets', { tenant: actor.tenant, filter }, (i) => ticketList(db, i.tenant, i.filter), (rows) => rows.map(toTicket));
    },

    async get(actor: Actor, id: string): Promise<Ticket> {
      const view = await requireVisibleTicket(db, actor, id);
      return withVersionedEtag(db, view.version, toTicket(view));
    },

    /** Creates a ticket (createTicketInTrx in its own transaction). Emits ticket.created. */
    async create(actor: Actor, body: CreateTicketBody): Promise<Ticket> {
      return withReservedNumber(db, actor.tenant, 'ticket', (trx, reserved) => createTicketInTrx(trx, actor, body, { publicUrl, reserved }));
    },

    /** Partial update of any field; emits ticket.updated (+ status_changed, closed, assigned) when something changed. */
    update(actor: Actor, id: string, body: UpdateTicketBody, ifMatch?: string): Promise<Ticket> {
      return withTransaction(db, (trx) => updateTicketInTrx(trx, actor, id, body, { publicUrl, ifMatch }));
    },

    setStatus(actor: Actor, id: string, body: TicketStatusBody, ifMatch?: string): Promise<Ticket> {
      return change(actor, id, { status_id: body.status_id }, suppressOf(body), ifMatch);
    },

    assign(actor: Actor, id: string, body: TicketAssignmentBody, ifMatch?: string): Promise<Ticket> {
      if (body.assigned_to === undefined && body.assigned_team_id === undefined) {
        throw validation('body', 'send assigned_to, assigned_team_id or both (null unassigns)');
      }
      return change(actor, id, { assigned_to: body.assigned_to, assigned_team_id: body.assigned_team_id }, suppressOf(body), ifMatch);
    },

    /** Deletes the ticket with its comments and tags; emits the internal ticket.deleted. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await requireVisibleTicket(trx, actor, id, true);
        assertIfMatch(ifMatch, toTicket(current));
        await deleteTicket(trx, actor.tenant, id);
        await syncSearch(trx, actor.tenant, 'ticket', [id]);
        await syncTags(trx, actor.tenant, current.tags);
        await emitTicketDeleted(trx, current);
      });
    },
  };
}

export type TicketsService = ReturnType<typeof createTicketsService>;
