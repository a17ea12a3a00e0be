import { sql, type Insertable, type RawBuilder, type Selectable, type Transaction, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { likePattern } from '../../platform/db/like.ts';
import { PREPARE_MARK, preparedQuery } from '../../platform/db/prepared.ts';
import { keptNamesOf, namesVersion, type KeptNames, type KindNames } from '../../platform/db/names-version.ts';
import { consuming, reservedSeq, type ReservedNumber } from '../../platform/db/numbering.ts';
import type { DB, TicketsTable } from '../../platform/db/schema.ts';
import { defineList, whenUnfiltered } from '../../platform/http/list.ts';
import { rowVersion } from '../../platform/http/list-cache.ts';

export type TicketRow = Selectable<TicketsTable>;

/** A ticket with the names of everything it points at and its tags: what the API and the events show. */
export interface TicketViewRow extends TicketRow {
  board_name: string;
  status_name: string;
  priority_name: string;
  client_name: string;
  category_name: string | null;
  subcategory_name: string | null;
  contact_name: string | null;
  contact_email: string | null;
  assigned_to_name: string | null;
  assigned_team_name: string | null;
  entered_by_name: string | null;
  tags: string[];
  /**
   * Read outside a transaction: what the view shows, as one key (the ticket, its row's `xmin` and the names
   * version; its tags are written only with the row). A view with another key differs (withVersionedEtag).
   */
  version?: string;
}

const TICKET_COLUMNS = [
  't.tenant', 't.ticket_id', 't.ticket_seq', 't.ticket_number', 't.title', 't.description', 't.board_id', 't.status_id',
  't.priority_id', 't.category_id', 't.subcategory_id', 't.client_id', 't.contact_id', 't.billing_profile_id', 't.assigned_to', 't.assigned_team_id',
  't.due_date', 't.is_closed', 't.entered_by', 't.entered_at', 't.updated_by', 't.updated_at', 't.closed_by', 't.closed_at',
] as const;

/** "First Last", or the username when the user has neither. */
const displayName = (alias: string) =>
  sql<string | null>`coalesce(nullif(trim(concat_ws(' ', ${sql.ref(`${alias}.first_name`)}, ${sql.ref(`${alias}.last_name`)})), ''), ${sql.ref(`${alias}.username`)})`;

/** The ticket's tags, alphabetically regardless of case. */
const tagsOfTicket = sql<string[]>`array(select tg.tag from ticket_tags tg where tg.tenant = t.tenant and tg.ticket_id = t.ticket_id order by lower(tg.tag), tg.tag)`;

const ticketBase = (db: Executor, tenant: string) => db.selectFrom('tickets as t').where('t.tenant', '=', tenant);
type TicketBase = ReturnType<typeof ticketBase>;

/**
 * Adds the names a ticket shows; one row per ticket (every join is on a primary key). Left joins throughout,
 * though the first four always find their row (NOT NULL foreign keys): PostgreSQL drops a left join whose
 * columns a statement does not use, so the kept list's narrow statement (ids and versions) reads tickets alone.
 */
function withNames(q: TicketBase) {
  return q
    .leftJoin('boards as b', (j) => j.onRef('b.tenant', '=', 't.tenant').onRef('b.board_id', '=', 't.board_id'))
    .leftJoin('ticket_statuses as s', (j) => j.onRef('s.tenant', '=', 't.tenant').onRef('s.status_id', '=', 't.status_id'))
    .leftJoin('ticket_priorities as p', (j) => j.onRef('p.tenant', '=', 't.tenant').onRef('p.priority_id', '=', 't.priority_id'))
    .leftJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 't.tenant').onRef('cl.client_id', '=', 't.client_id'))
    .leftJoin('ticket_categories as cat', (j) => j.onRef('cat.tenant', '=', 't.tenant').onRef('cat.category_id', '=', 't.category_id'))
    .leftJoin('ticket_categories as sub', (j) => j.onRef('sub.tenant', '=', 't.tenant').onRef('sub.category_id', '=', 't.subcategory_id'))
    .leftJoin('contacts as co', (j) => j.onRef('co.tenant', '=', 't.tenant').onRef('co.contact_id', '=', 't.contact_id'))
    .leftJoin('users as au', (j) => j.onRef('au.tenant', '=', 't.tenant').onRef('au.user_id', '=', 't.assigned_to'))
    .leftJoin('teams as tm', (j) => j.onRef('tm.tenant', '=', 't.tenant').onRef('tm.team_id', '=', 't.assigned_team_id'))
    .leftJoin('users as eu', (j) => j.onRef('eu.tenant', '=', 't.tenant').onRef('eu.user_id', '=', 't.entered_by'))
    .select(TICKET_COLUMNS)
    .select((eb) => [
      eb.ref('b.board_name').$notNull().as('board_name'),
      eb.ref('s.name').$notNull().as('status_name'),
      eb.ref('p.priority_name').$notNull().as('priority_name'),
      eb.ref('cl.client_name').$notNull().as('client_name'),
      'cat.category_name as category_name',
      'sub.category_name as subcategory_name',
      'co.full_name as contact_name',
      'co.email as contact_email',
      displayName('au').as('assigned_to_name'),
      'tm.team_name as assigned_team_name',
      displayName('eu').as('entered_by_name'),
      tagsOfTicket.as('tags'),
    ]);
}

/**
 * Each name a ticket shows, the column holding the id it is the name of, and the kind of record that id
 * names (the key its name is kept under, names-version.ts). Every name withNames selects is here.
 */
const SHOWN_NAMES = [
  ['board_name', 'board_id', 'board'],
  ['status_name', 'status_id', 'status'],
  ['priority_name', 'priority_id', 'priority'],
  ['client_name', 'client_id', 'client'],
  ['category_name', 'category_id', 'category'],
  ['subcategory_name', 'subcategory_id', 'category'],
  ['contact_name', 'contact_id', 'contact'],
  ['contact_email', 'contact_id', 'contact email'],
  ['assigned_to_name', 'assigned_to', 'user'],
  ['assigned_team_name', 'assigned_team_id', 'team'],
  ['entered_by_name', 'entered_by', 'user'],
] as const satisfies readonly (readonly [Exclude<keyof TicketViewRow, keyof TicketRow>, keyof TicketRow, string])[];

type Versioned<R> = R & { names_version: string; row_xmin: string };

/** The row's `xmin` (the transaction that wrote this version of it) and the names version, as read together. */
const versionColumns = [sql<string>`t.xmin::text`.as('row_xmin'), namesVersion('t.tenant').as('names_version')] as const;
const versionOf = (row: Versioned<TicketRow>): string => `${row.tenant}/${row.ticket_id}/${row.row_xmin}|${row.names_version}`;

// Eleven tables take PostgreSQL longer to plan (~10 ms) than to run (<1 ms): the single-ticket reads,
// used by every ticket request and event, are prepared once per connection.
const ticketViewById = preparedQuery(['tenant', 'ticketId'], (db, v) => withNames(ticketBase(db, v.tenant)).where('t.ticket_id', '=', v.ticketId));
const ticketViewByIdForUpdate = preparedQuery(['tenant', 'ticketId'], (db, v) =>
  withNames(ticketBase(db, v.tenant)).where('t.ticket_id', '=', v.ticketId).forUpdate('t'),
);
const versionedViewById = preparedQuery(['tenant', 'ticketId'], (db, v) =>
  withNames(ticketBase(db, v.tenant)).select(versionColumns).where('t.ticket_id', '=', v.ticketId),
);
/** The ticket alone with its tags (written only with the ticket) and the names version: no join. */
const versionedRowById = preparedQuery(['tenant', 'ticketId'], (db, v) =>
  ticketBase(db, v.tenant).select(TICKET_COLUMNS).select([tagsOfTicket.as('tags'), ...versionColumns]).where('t.ticket_id', '=', v.ticketId),
);

/**
 * The ticket as shown, optionally locking the ticket row (only it: the joined rows stay unlocked). Outside a
 * transaction, the ticket is read alone and its names come from those this process keeps by names version
 * (the ten joins cost PostgreSQL about three times what reading the ticket does); a name not kept yet is
 * read and kept for the next reads. Either way the ticket and its names are one snapshot's: a name read
 * later is used only under the version the ticket was read with. The row is the view (not copied: it keeps the
 * version columns it was read with, which nothing maps), with its `version`.
 */
export async function findTicketView(db: Executor, tenant: string, ticketId: string, lock = false): Promise<TicketViewRow | undefined> {
  const kept = lock ? undefined : keptNamesOf(db);
  if (!kept) return (await (lock ? ticketViewByIdForUpdate : ticketViewById)(db, { tenant, ticketId }))[0] as TicketViewRow | undefined;

  const [row] = (await versionedRowById(db, { tenant, ticketId })) as Versioned<TicketRow & { tags: string[] }>[];
  if (!row) return undefined;
  const version = row.names_version;
  const names = kept.at(tenant, version);
  // undefined where a name is not kept
  const shown = SHOWN_NAMES.map(([, id, kind]) => (row[id] === null ? null : names.get(kind, row[id] as string)));
  const notKept = shown.filter((name) => name === undefined).length;
  if (notKept === 0) return showing(row, shown as (string | null)[]);
  // A name or two (a ticket of a client not read before): each read on its own, used only under the ticket's
  // version. More (a new process, a rename): one read with the joins.
  if (notKept > MAX_NAMES_READ_ALONE) return readKeepingNames(db, kept, tenant, ticketId);
  for (const [i, [, id, kind]] of SHOWN_NAMES.entries()) {
    if (shown[i] !== undefined) continue;
    const ref = row[id] as string;
    // Looked up again: a user who is assignee and author, read for the first, is kept for the second.
    let value = names.get(kind, ref);
    if (value === undefined) {
      // Enough names of this kind missed (a new process, a rename): the kind is read whole, once.
      const filling = names.missed(kind, (limit) => namesOfKind(db, kind, tenant, limit));
      if (filling) value = await filling.then(() => names.get(kind, ref));
    }
    if (value === undefined) {
      const [found] = await nameById[kind](db, { tenant, id: ref });
      // Another version: a name changed since the ticket was read, and the names must be of the ticket's snapshot.
      if (!found || found.names_version !== version) return readKeepingNames(db, kept, tenant, ticketId);
      value = found.name;
      // Shown as read, not as kept: the set may drop it at once (over budget) or keep nothing (an older version).
      names.set(kind, ref, value);
    }
    shown[i] = value;
  }
  return showing(row, shown as (string | null)[]);
}

/**
 * The ticket with the names it shows (in SHOWN_NAMES order), each stored by name. V8 keeps an object whose
 * properties are added by name in its fast shape; a dozen added by computed key turn it into a dictionary,
 * and every later read of the view (the mapping, the visibility check) then looks its property up by hash.
 */
function showing(row: Versioned<TicketRow & { tags: string[] }>, n: readonly (string | null)[]): TicketViewRow {
  const view = row as unknown as TicketViewRow;
  view.version = versionOf(row);
  view.board_name = n[0]!;
  view.status_name = n[1]!;
  view.priority_name = n[2]!;
  view.client_name = n[3]!;
  view.category_name = n[4]!;
  view.subcategory_name = n[5]!;
  view.contact_name = n[6]!;
  view.contact_email = n[7]!;
  view.assigned_to_name = n[8]!;
  view.assigned_team_name = n[9]!;
  view.entered_by_name = n[10]!;
  return view;
}

const MAX_NAMES_READ_ALONE = 2;

/** Where each kind of name is read from on its own: its table, the id column, and the name as withNames shows it. */
const NAME_SOURCES = {
  board: ['boards', 'board_id', sql`x.board_name`],
  status: ['ticket_statuses', 'status_id', sql`x.name`],
  priority: ['ticket_priorities', 'priority_id', sql`x.priority_name`],
  client: ['clients', 'client_id', sql`x.client_name`],
  category: ['ticket_categories', 'category_id', sql`x.category_name`],
  contact: ['contacts', 'contact_id', sql`x.full_name`],
  'contact email': ['contacts', 'contact_id', sql`x.email`],
  user: ['users', 'user_id', displayName('x')],
  team: ['teams', 'team_id', sql`x.team_name`],
} as const satisfies Record<(typeof SHOWN_NAMES)[number][2], readonly [keyof DB, string, RawBuilder<unknown>]>;

type NameRow = { id: string; name: string | null; names_version: string };

/**
 * Per kind, a prepared read of its names (id and name as withNames shows it) with the names version, narrowed by
 * `narrow` (the id column, the values' markers): one record's name, or every name of the kind up to a limit.
 */
function nameReads<P extends string>(params: readonly P[], narrow: (id: RawBuilder<unknown>, v: Record<P, string>) => RawBuilder<unknown>) {
  return Object.fromEntries(
    Object.entries(NAME_SOURCES).map(([kind, [table, id, name]]) => [kind, preparedQuery(['tenant', ...params], (db, v) => ({
      compile: () => sql<NameRow>`select ${sql.ref(`x.${id}`)} as id, ${name} as name, ${namesVersion('x.tenant')} as names_version
        from ${sql.table(table)} x where x.tenant = ${v.tenant} ${narrow(sql.ref(`x.${id}`), v)}`.compile(db),
    }))]),
  ) as Record<keyof typeof NAME_SOURCES, (db: Executor, values: Record<'tenant' | P, unknown>) => Promise<NameRow[]>>;
}

/** One record's name: runs on a ticket read that misses it. */
const nameById = nameReads(['id'], (id, v) => sql`and ${id} = ${v.id}`);
/** Every name of one kind (at most `limit`): the kind read whole. */
const namesOfKindReads = nameReads(['limit'], (_, v) => sql`limit ${v.limit}`);

async function namesOfKind(db: Executor, kind: keyof typeof NAME_SOURCES, tenant: string, limit: number): Promise<KindNames> {
  const names = await namesOfKindReads[kind](db, { tenant, limit: limit + 1 });
  return { version: names[0]?.names_version ?? '', names }; // no rows: nothing to keep
}

/** The ticket read with its joins; its names are kept under the version the same statement read. */
async function readKeepingNames(db: Executor, kept: KeptNames, tenant: string, ticketId: string): Promise<TicketViewRow | undefined> {
  const [view] = (await versionedViewById(db, { tenant, ticketId })) as Versioned<TicketViewRow>[];
  if (!view) return undefined;
  const names = kept.at(tenant, view.names_version);
  for (const [name, id, kind] of SHOWN_NAMES) {
    const ref = view[id];
    if (ref !== null) names.set(kind, ref as string, view[name]);
  }
  view.version = versionOf(view);
  return view;
}

/** Several tickets as shown (for writes that touch many at once, such as a client merge). */
export async function findTicketViews(db: Executor, tenant: string, ticketIds: readonly string[]): Promise<TicketViewRow[]> {
  if (ticketIds.length === 0) return [];
  return (await withNames(ticketBase(db, tenant)).where(sql<boolean>`t.ticket_id = any(${[...ticketIds]}::uuid[])`).orderBy('t.ticket_seq').execute()) as TicketViewRow[];
}

export async function findTicketRow(db: Executor, tenant: string, ticketId: string): Promise<TicketRow | undefined> {
  return db.selectFrom('tickets').selectAll().where('tenant', '=', tenant).where('ticket_id', '=', ticketId).executeTakeFirst();
}

/**
 * Inserts a ticket numbered `row.ticket_seq`, or with the reserved number, consuming the reservation in the same
 * statement. Prepared: every create runs it, and on PostgreSQL parsing and planning it cost more than running it.
 */
export async function insertTicket(db: Transaction<DB>, row: Insertable<TicketsTable>, reserved?: ReservedNumber): Promise<void> {
  const insert = reserved
    ? consuming(db, reserved).insertInto('tickets').values({ ...row, ticket_seq: reservedSeq })
    : db.insertInto('tickets').values(row);
  await insert.modifyEnd(sql.raw(PREPARE_MARK)).execute();
}

export async function updateTicket(db: Executor, tenant: string, ticketId: string, set: Updateable<TicketsTable>): Promise<void> {
  await db.updateTable('tickets').set(set).where('tenant', '=', tenant).where('ticket_id', '=', ticketId).execute();
}

export async function deleteTicket(db: Executor, tenant: string, ticketId: string): Promise<void> {
  await db.deleteFrom('tickets').where('tenant', '=', tenant).where('ticket_id', '=', ticketId).execute();
}

/** Replaces the ticket's tags with `tags` (already normalised: trimmed, unique regardless of case). */
export async function replaceTags(db: Executor, tenant: string, ticketId: string, tags: readonly string[], now: Date): Promise<void> {
  await db.deleteFrom('ticket_tags').where('tenant', '=', tenant).where('ticket_id', '=', ticketId).execute();
  await insertTags(db, tenant, ticketId, tags, now);
}

/** Adds tags to a ticket that has none of them (a new ticket). */
export async function insertTags(db: Executor, tenant: string, ticketId: string, tags: readonly string[], now: Date): Promise<void> {
  if (tags.length === 0) return;
  await db.insertInto('ticket_tags').values(tags.map((tag) => ({ tenant, ticket_id: ticketId, tag, created_at: now }))).execute();
}

/** Look-ups of the records a ticket refers to (existence and the facts the ticket rules need). */
export async function findContactRef(db: Executor, tenant: string, contactId: string) {
  return db.selectFrom('contacts').select(['contact_id', 'client_id', 'full_name']).where('tenant', '=', tenant).where('contact_id', '=', contactId).executeTakeFirst();
}

export async function findUserRef(db: Executor, tenant: string, userId: string) {
  return db
    .selectFrom('users')
    .select(['user_id', 'user_type', 'is_inactive', 'client_id', 'contact_id'])
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Whether the contact manages the billing profile with the right to read its tickets in the portal. */
export async function contactSeesProfileTickets(db: Executor, tenant: string, profileId: string, contactId: string): Promise<boolean> {
  const row = await db
    .selectFrom('billing_profile_contacts')
    .select('contact_id')
    .where('tenant', '=', tenant)
    .where('billing_profile_id', '=', profileId)
    .where('contact_id', '=', contactId)
    .where('can_view_profile_tickets', '=', true)
    .executeTakeFirst();
  return row !== undefined;
}

export async function findTeamRef(db: Executor, tenant: string, teamId: string) {
  return db.selectFrom('teams').select(['team_id']).where('tenant', '=', tenant).where('team_id', '=', teamId).executeTakeFirst();
}

/** A client-portal actor's reach: its client, and its own contact (whose billing-profile rights it reads with). */
export interface PortalScope {
  clientId: string;
  contactId: string | null;
}

/**
 * The portal visibility rule (tickets.rules.ts canSeeTicket) as a condition on the tickets table under
 * `alias`: its own client's tickets of no billing profile, or those of a profile its contact may read
 * (tickets a merge moved). For every query that shows tickets to portal keys (lists, links, counts).
 */
export function portalTicketCondition(tenant: string, scope: PortalScope, alias = 't'): RawBuilder<boolean> {
  const col = (c: string) => sql.ref(`${alias}.${c}`);
  const own = sql<boolean>`(${col('client_id')} = ${scope.clientId} and ${col('billing_profile_id')} is null)`;
  if (scope.contactId === null) return own;
  return sql<boolean>`(${own} or ${col('billing_profile_id')} in (select bpc.billing_profile_id from billing_profile_contacts bpc
    where bpc.tenant = ${tenant} and bpc.contact_id = ${scope.contactId} and bpc.can_view_profile_tickets))`;
}

export interface TicketListFilter {
  /** Client-portal scope: the tickets the portal visibility rule lets it see (tickets.rules.ts canSeeTicket). */
  portal?: PortalScope;
  boardId?: string;
  statusId?: string;
  priorityId?: string;
  categoryId?: string;
  subcategoryId?: string;
  clientId?: string;
  contactId?: string;
  assignedTo?: string;
  assignedTeamId?: string;
  isClosed?: boolean;
  tag?: string;
  search?: string;
  dueBefore?: Date;
}

/** The filters apply to tickets alone (the tag one through its index), so the count never joins. */
function filtered(q: TicketBase, tenant: string, f: TicketListFilter): TicketBase {
  const equal: [keyof TicketRow & `${string}_id` | 'assigned_to', string | undefined][] = [
    ['client_id', f.clientId],
    ['board_id', f.boardId],
    ['status_id', f.statusId],
    ['priority_id', f.priorityId],
    ['category_id', f.categoryId],
    ['subcategory_id', f.subcategoryId],
    ['contact_id', f.contactId],
    ['assigned_to', f.assignedTo],
    ['assigned_team_id', f.assignedTeamId],
  ];
  for (const [column, value] of equal) if (value !== undefined) q = q.where(`t.${column}`, '=', value);
  if (f.portal !== undefined) q = q.where(portalTicketCondition(tenant, f.portal));
  if (f.isClosed !== undefined) q = q.where('t.is_closed', '=', f.isClosed);
  if (f.dueBefore !== undefined) q = q.where('t.due_date', '<', f.dueBefore);
  if (f.tag !== undefined) {
    const tag = f.tag;
    q = q.where('t.ticket_id', 'in', (eb) =>
      eb.selectFrom('ticket_tags as tg').select('tg.ticket_id').where('tg.tenant', '=', tenant).where(sql<string>`lower(tg.tag)`, '=', sql<string>`lower(${tag})`),
    );
  }
  if (f.search !== undefined) {
    const p = likePattern(f.search);
    q = q.where((eb) => eb.or([eb('t.title', 'ilike', p), eb('t.ticket_number', 'ilike', p)]));
  }
  return q;
}

/** The page is joined for its names, the count is not. Ties break on ticket_id in the same direction. */
export function ticketList(db: Executor, tenant: string, f: TicketListFilter) {
  return defineList({
    from: filtered(ticketBase(db, tenant), tenant, f),
    page: withNames(filtered(ticketBase(db, tenant), tenant, f)),
    sorts: {
      ticket_number: ['t.ticket_seq'],
      entered_at: ['t.entered_at'],
      updated_at: ['t.updated_at'],
      due_date: [{ by: 't.due_date', nullsLast: true }],
      priority: ['p.order_number', 't.ticket_seq'],
    },
    defaultSort: 'ticket_number',
    defaultOrder: 'asc',
    tieBreaker: 't.ticket_id',
    updatedAt: 't.updated_at',
    counter: whenUnfiltered(f, { tenant, list: 'tickets' }),
    // The ticket (the tags are written only together with it: replaceTags) and the names it shows.
    version: rowVersion('t.tenant', ['t'], [namesVersion('t.tenant')]),
  });
}

/**
 * What a create may take as defaults: the board (the one named, or the tenant's default; null when there
 * is no such board), that board's default status, and the tenant's default priority.
 */
export interface TicketDefaults {
  board: { board_id: string; board_name: string; is_active: boolean } | null;
  status: { status_id: string; is_closed: boolean } | null;
  priority_id: string | null;
}

/** A create's board and defaults in one statement (a lookup each would be three or four round trips). */
export async function findTicketDefaults(db: Executor, tenant: string, boardId: string | undefined): Promise<TicketDefaults> {
  const { rows } = await sql<{ board_id: string | null; board_name: string | null; is_active: boolean | null; status_id: string | null; is_closed: boolean | null; priority_id: string | null }>`
    select b.board_id, b.board_name, b.is_active, s.status_id, s.is_closed,
      (select p.priority_id from ticket_priorities p where p.tenant = ${tenant} and p.is_default limit 1) as priority_id
    from (select 1) as one
    left join boards b on b.tenant = ${tenant} and ${boardId === undefined ? sql`b.is_default` : sql`b.board_id = ${boardId}`}
    left join ticket_statuses s on s.tenant = b.tenant and s.board_id = b.board_id and s.is_default
    limit 1${sql.raw(PREPARE_MARK)}`.execute(db);
  const row = rows[0]!;
  return {
    board: row.board_id === null ? null : { board_id: row.board_id, board_name: row.board_name!, is_active: row.is_active! },
    status: row.status_id === null ? null : { status_id: row.status_id, is_closed: row.is_closed! },
    priority_id: row.priority_id,
  };
}
