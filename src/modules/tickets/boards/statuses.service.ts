import type { Kysely, Transaction, Updateable } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB, TicketStatusesTable } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { toStatus } from './boards.mapper.ts';
import {
  clearDefaultStatus,
  countTicketsInStatus,
  deleteStatus,
  findStatus,
  findStatusIdByName,
  insertStatuses,
  nextStatusOrder,
  statusList,
  updateStatus,
  type StatusRow,
} from './boards.repo.ts';
import { requireBoard } from './boards.service.ts';
import type { CreateStatusBody, ListStatusesQuery, Status, UpdateStatusBody } from './boards.schemas.ts';

async function assertNameFree(trx: Transaction<DB>, tenant: string, boardId: string, name: string, self?: string): Promise<void> {
  const existing = await findStatusIdByName(trx, tenant, boardId, name);
  if (existing && existing !== self) {
    throw conflict(`The board already has a status named '${name}' (names are unique per board regardless of case)`, { status_id: existing });
  }
}

const mustBeOpen = (path: string) =>
  unprocessable('The default status must be an open one (new tickets start in it)', [{ path, message: 'a closed status cannot be the default' }]);

/** The status if it belongs to the board; 404 otherwise (the board itself is checked first). */
async function requireStatus(db: Executor, tenant: string, boardId: string, statusId: string, lock = false): Promise<StatusRow> {
  const row = await findStatus(db, tenant, statusId, lock);
  if (!row || row.board_id !== boardId) throw notFound('Status', statusId);
  return row;
}

/**
 * A board's statuses. Every write locks the board row first, so changes to one board's statuses (and
 * its default) happen one at a time. A board always has exactly one default status, and it is open,
 * so a board never runs out of open statuses.
 */
export function createStatusesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    async list(actor: Actor, boardId: string, query: ListStatusesQuery) {
      await requireBoard(db, actor.tenant, boardId);
      return listPage(query, statusList(db, actor.tenant, boardId, { isClosed: query.is_closed }), (rows) => rows.map(toStatus));
    },

    async get(actor: Actor, boardId: string, statusId: string): Promise<Status> {
      await requireBoard(db, actor.tenant, boardId);
      return toStatus(await requireStatus(db, actor.tenant, boardId, statusId));
    },

    async create(actor: Actor, boardId: string, body: CreateStatusBody): Promise<Status> {
      const name = requiredText(body.name, 'body.name');
      return withTransaction(db, async (trx) => {
        await requireBoard(trx, actor.tenant, boardId, true);
        await assertNameFree(trx, actor.tenant, boardId, name);
        const isClosed = body.is_closed ?? false;
        const isDefault = body.is_default ?? false;
        if (isDefault && isClosed) throw mustBeOpen('body.is_default');
        const now = new Date();
        const orderNumber = body.order_number ?? (await nextStatusOrder(trx, actor.tenant, boardId));
        if (isDefault) await clearDefaultStatus(trx, actor.tenant, boardId, now);
        const statusId = newId();
        await insertStatuses(trx, [{
          tenant: actor.tenant,
          status_id: statusId,
          board_id: boardId,
          name,
          is_closed: isClosed,
          is_default: isDefault,
          order_number: orderNumber,
          created_at: now,
          updated_at: now,
        }]);
        await syncSearch(trx, actor.tenant, 'status', [statusId]);
        return toStatus(await requireStatus(trx, actor.tenant, boardId, statusId));
      });
    },

    /** Partial update. is_closed cannot change while tickets use the status (their is_closed follows it). */
    async update(actor: Actor, boardId: string, statusId: string, body: UpdateStatusBody, ifMatch?: string): Promise<Status> {
      const name = body.name === undefined ? undefined : requiredText(body.name, 'body.name');
      return withTransaction(db, async (trx) => {
        await requireBoard(trx, actor.tenant, boardId, true);
        const current = await requireStatus(trx, actor.tenant, boardId, statusId, true);
        assertIfMatch(ifMatch, toStatus(current));
        const set: Updateable<TicketStatusesTable> = {};
        if (name !== undefined && name !== current.name) {
          await assertNameFree(trx, actor.tenant, boardId, name, statusId);
          set.name = name;
        }
        if (body.order_number !== undefined && body.order_number !== current.order_number) set.order_number = body.order_number;
        if (body.is_default === false && current.is_default) {
          throw conflict('A board always has a default status; make another status the default instead');
        }
        if (body.is_default === true && !current.is_default) set.is_default = true;
        const nextClosed = body.is_closed ?? current.is_closed;
        if ((set.is_default ?? current.is_default) && nextClosed) throw mustBeOpen(body.is_closed ? 'body.is_closed' : 'body.is_default');
        if (nextClosed !== current.is_closed) {
          const n = await countTicketsInStatus(trx, actor.tenant, statusId);
          if (n > 0) {
            throw conflict(`Status '${statusId}' is used by ${n} tickets; is_closed cannot change while tickets use it (move them to another status first)`, { tickets: n });
          }
          set.is_closed = nextClosed;
        }
        if (Object.keys(set).length === 0) return toStatus(current);
        const now = new Date();
        if (set.is_default) await clearDefaultStatus(trx, actor.tenant, boardId, now);
        await updateStatus(trx, actor.tenant, statusId, { ...set, updated_at: now });
        await syncSearch(trx, actor.tenant, 'status', [statusId]);
        return toStatus(await requireStatus(trx, actor.tenant, boardId, statusId));
      });
    },

    /** Refused for the board's default status and while tickets use it. */
    async remove(actor: Actor, boardId: string, statusId: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        await requireBoard(trx, actor.tenant, boardId, true);
        const current = await requireStatus(trx, actor.tenant, boardId, statusId, true);
        assertIfMatch(ifMatch, toStatus(current));
        if (current.is_default) throw conflict('The board\'s default status cannot be deleted; make another status the default first');
        const n = await countTicketsInStatus(trx, actor.tenant, statusId);
        if (n > 0) throw conflict(`Status '${statusId}' is still used by ${n} tickets; move them to another status first`, { tickets: n });
        await deleteStatus(trx, actor.tenant, statusId);
        await syncSearch(trx, actor.tenant, 'status', [statusId]);
      });
    },
  };
}

export type StatusesService = ReturnType<typeof createStatusesService>;
