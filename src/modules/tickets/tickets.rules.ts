import type { RawBuilder, Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { Executor } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { AppError, notFound, validation } from '../../platform/http/errors.ts';
import { assertNotMerged, findClientRow, isPortalActor, portalClientId } from '../clients/index.ts';
import { findBoard, findStatus, type StatusRow } from './boards/boards.repo.ts';
import { findCategory } from './categories/categories.repo.ts';
import { findPriority } from './priorities/priorities.repo.ts';
import {
  contactSeesProfileTickets, findContactRef, findTeamRef, findTicketView, findUserRef, portalTicketCondition, type PortalScope, type TicketRow, type TicketViewRow,
} from './tickets.repo.ts';

/** The ticket's references, by column (contact_id is the API's contact_name_id). */
export interface TicketRefs {
  board_id: string;
  status_id: string;
  priority_id: string;
  category_id: string | null;
  subcategory_id: string | null;
  client_id: string;
  contact_id: string | null;
  assigned_to: string | null;
  assigned_team_id: string | null;
}
export type RefField = keyof TicketRefs;
export const REF_FIELDS: readonly RefField[] = [
  'board_id', 'status_id', 'priority_id', 'category_id', 'subcategory_id', 'client_id', 'contact_id', 'assigned_to', 'assigned_team_id',
];

/** The API field name of a column. */
export const apiField = (column: string): string => (column === 'contact_id' ? 'contact_name_id' : column);
const invalid = (field: RefField, message: string) => validation(`body.${apiField(field)}`, message);

/** A client-portal actor's reach over tickets; undefined for internal actors (they see every ticket of the tenant). */
export function portalScopeOf(actor: Actor): PortalScope | undefined {
  const clientId = portalClientId(actor);
  return clientId === undefined ? undefined : { clientId, contactId: actor.contactId };
}

/**
 * The portal visibility rule. A client-portal actor sees its own client's tickets that belong to no
 * billing profile, and the tickets of a billing profile its own contact manages with
 * can_view_profile_tickets, whatever their client: tickets a merge moves keep the source's default
 * profile, so that profile's contacts keep reading them while the target's portal users see nothing new.
 * The list applies the same rule in SQL (tickets.repo.ts, `portal`).
 */
export async function canSeeTicket(db: Executor, actor: Actor, ticket: Pick<TicketRow, 'client_id' | 'billing_profile_id'>): Promise<boolean> {
  const scope = portalScopeOf(actor);
  if (scope === undefined) return true;
  if (ticket.billing_profile_id === null) return ticket.client_id === scope.clientId;
  return scope.contactId !== null && contactSeesProfileTickets(db, actor.tenant, ticket.billing_profile_id, scope.contactId);
}

/**
 * canSeeTicket as a SQL condition on the tickets table under `alias`, for other areas' queries that show
 * tickets (linked tickets of an asset or a project); undefined for internal actors (no restriction).
 */
export function visibleTicketsCondition(actor: Actor, alias = 't'): RawBuilder<boolean> | undefined {
  const scope = portalScopeOf(actor);
  return scope === undefined ? undefined : portalTicketCondition(actor.tenant, scope, alias);
}

/** The ticket if it exists in the actor's tenant and the actor may see it (canSeeTicket); otherwise 404. */
export async function requireVisibleTicket(db: Executor, actor: Actor, ticketId: string, lock = false): Promise<TicketViewRow> {
  const row = await findTicketView(db, actor.tenant, ticketId, lock);
  if (!row || !(await canSeeTicket(db, actor, row))) throw notFound('Ticket', ticketId);
  return row;
}

/** Client-portal users raise and discuss tickets; who works them is the service desk's call. */
export function assertMayAssign(actor: Actor): void {
  if (isPortalActor(actor)) throw new AppError('FORBIDDEN', 'Client-portal keys cannot assign tickets to users or teams');
}

/** An inactive board takes no new tickets, nor tickets moved to it. */
export function assertBoardTakesTickets(board: { board_name: string; is_active: boolean }): void {
  if (!board.is_active) throw invalid('board_id', `board '${board.board_name}' is inactive and takes no tickets`);
}

/**
 * Checks the references of a ticket's next state that this write touches (all of them on create),
 * and how they fit together: the status belongs to the board, a category fits the board, a
 * subcategory belongs to the category, the contact belongs to the client. A bad reference is a 400
 * naming the field; a merged client is a 409. Returns the status when it changed.
 */
export async function checkReferences(trx: Transaction<DB>, actor: Actor, next: TicketRefs, changed: ReadonlySet<RefField>): Promise<{ status?: StatusRow }> {
  const { tenant } = actor;
  const has = (f: RefField) => changed.has(f);

  if (has('board_id')) {
    const board = await findBoard(trx, tenant, next.board_id);
    if (!board) throw invalid('board_id', `no board '${next.board_id}'`);
    assertBoardTakesTickets(board);
  }

  let status: StatusRow | undefined;
  if (has('status_id') || has('board_id')) {
    if (!has('status_id')) {
      throw invalid('status_id', `the ticket's status belongs to its current board; send a status_id of board '${next.board_id}' together with board_id`);
    }
    status = await findStatus(trx, tenant, next.status_id);
    if (!status) throw invalid('status_id', `no status '${next.status_id}'`);
    if (status.board_id !== next.board_id) throw invalid('status_id', `status '${next.status_id}' does not belong to board '${next.board_id}'`);
  }

  if (has('priority_id') && !(await findPriority(trx, tenant, next.priority_id))) throw invalid('priority_id', `no priority '${next.priority_id}'`);

  if (next.category_id !== null && (has('category_id') || has('board_id'))) {
    const category = await findCategory(trx, tenant, next.category_id);
    if (!category) throw invalid('category_id', `no category '${next.category_id}'`);
    if (category.parent_category_id !== null) {
      throw invalid('category_id', `'${category.category_name}' is a subcategory; send it as subcategory_id with its parent '${category.parent_category_id}' as category_id`);
    }
    if (category.board_id !== null && category.board_id !== next.board_id) {
      throw invalid('category_id', has('category_id')
        ? `category '${category.category_name}' belongs to board '${category.board_id}', not to the ticket's board '${next.board_id}'`
        : `the ticket's category belongs to board '${category.board_id}'; send category_id (one that fits board '${next.board_id}', or null) together with board_id`);
    }
  }

  if (next.subcategory_id !== null && (has('subcategory_id') || has('category_id'))) {
    if (next.category_id === null) throw invalid('subcategory_id', 'a subcategory needs its parent as category_id');
    const sub = await findCategory(trx, tenant, next.subcategory_id);
    if (!sub) throw invalid('subcategory_id', `no category '${next.subcategory_id}'`);
    if (sub.parent_category_id !== next.category_id) {
      throw invalid('subcategory_id', has('subcategory_id')
        ? `'${sub.category_name}' is not a subcategory of category '${next.category_id}'`
        : `the ticket's subcategory belongs to its current category; send subcategory_id (one under '${next.category_id}', or null) together with category_id`);
    }
  }

  if (has('client_id')) {
    const only = portalClientId(actor);
    if (only !== undefined && next.client_id !== only) throw invalid('client_id', 'client-portal keys can only use their own client');
    // Held FOR SHARE until commit, so a concurrent merge or delete of the client waits for this write.
    const client = await findClientRow(trx, tenant, next.client_id, 'share');
    if (!client) throw invalid('client_id', `no client '${next.client_id}'`);
    assertNotMerged(client);
  }

  if (next.contact_id !== null && (has('contact_id') || has('client_id'))) {
    const contact = await findContactRef(trx, tenant, next.contact_id);
    if (!contact) throw invalid('contact_id', `no contact '${next.contact_id}'`);
    if (contact.client_id !== next.client_id) {
      throw invalid('contact_id', has('contact_id')
        ? `contact '${next.contact_id}' does not belong to client '${next.client_id}'`
        : `the ticket's contact belongs to its current client; send contact_name_id (a contact of client '${next.client_id}', or null) together with client_id`);
    }
  }

  if (has('assigned_to') && next.assigned_to !== null) {
    const user = await findUserRef(trx, tenant, next.assigned_to);
    if (!user) throw invalid('assigned_to', `no user '${next.assigned_to}'`);
    if (user.user_type === 'client') throw invalid('assigned_to', 'is a client-portal user; tickets are assigned to internal users');
    if (user.is_inactive) throw invalid('assigned_to', `user '${next.assigned_to}' is inactive`);
  }

  if (has('assigned_team_id') && next.assigned_team_id !== null && !(await findTeamRef(trx, tenant, next.assigned_team_id))) {
    throw invalid('assigned_team_id', `no team '${next.assigned_team_id}'`);
  }

  return { status };
}

/** Tags as stored: trimmed, not blank, unique regardless of case (the first spelling wins). */
export function normalizeTags(tags: readonly string[], path: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  tags.forEach((raw, i) => {
    const tag = raw.trim();
    if (tag === '') throw validation(`${path}[${i}]`, 'must not be blank');
    if (seen.has(tag.toLowerCase())) return;
    seen.add(tag.toLowerCase());
    out.push(tag);
  });
  return out;
}

/** Whether two tag lists hold exactly the same spellings, in any order. */
export function sameTags(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((t) => set.has(t));
}
