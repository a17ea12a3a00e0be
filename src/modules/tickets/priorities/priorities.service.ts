import type { Kysely, Transaction, Updateable } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB, TicketPrioritiesTable } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { toPriority } from './priorities.mapper.ts';
import {
  clearDefaultPriority,
  countTicketsWithPriority,
  deletePriority,
  findDefaultPriority,
  findPriority,
  findPriorityIdByName,
  insertPriorities,
  nextPriorityOrder,
  priorityList,
  updatePriority,
  type PriorityRow,
} from './priorities.repo.ts';
import type { CreatePriorityBody, ListPrioritiesQuery, Priority, UpdatePriorityBody } from './priorities.schemas.ts';

async function assertNameFree(trx: Transaction<DB>, tenant: string, name: string, self?: string): Promise<void> {
  const existing = await findPriorityIdByName(trx, tenant, name);
  if (existing && existing !== self) throw conflict(`A priority named '${name}' already exists (names are unique regardless of case)`, { priority_id: existing });
}

async function requirePriority(db: Executor, tenant: string, id: string, lock = false): Promise<PriorityRow> {
  const row = await findPriority(db, tenant, id, lock);
  if (!row) throw notFound('Priority', id);
  return row;
}

const colorOf = (c: string | null | undefined) => (c == null ? c : c.toUpperCase());

/** Ticket priorities. The tenant always has exactly one default, which cannot be deleted. */
export function createPrioritiesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    async list(actor: Actor, query: ListPrioritiesQuery) {
      return listPage(query, priorityList(db, actor.tenant), (rows) => rows.map(toPriority));
    },

    async get(actor: Actor, id: string): Promise<Priority> {
      return toPriority(await requirePriority(db, actor.tenant, id));
    },

    /** The tenant's first priority, or one flagged is_default, becomes the default. */
    async create(actor: Actor, body: CreatePriorityBody): Promise<Priority> {
      const name = requiredText(body.priority_name, 'body.priority_name');
      return withTransaction(db, async (trx) => {
        await assertNameFree(trx, actor.tenant, name);
        const currentDefault = await findDefaultPriority(trx, actor.tenant);
        const isDefault = body.is_default === true || !currentDefault;
        const now = new Date();
        if (isDefault && currentDefault) await clearDefaultPriority(trx, actor.tenant, now);
        const priorityId = newId();
        await insertPriorities(trx, [{
          tenant: actor.tenant,
          priority_id: priorityId,
          priority_name: name,
          order_number: body.order_number ?? (await nextPriorityOrder(trx, actor.tenant)),
          color: colorOf(body.color) ?? null,
          is_default: isDefault,
          created_at: now,
          updated_at: now,
        }]);
        return toPriority(await requirePriority(trx, actor.tenant, priorityId));
      });
    },

    async update(actor: Actor, id: string, body: UpdatePriorityBody, ifMatch?: string): Promise<Priority> {
      const name = body.priority_name === undefined ? undefined : requiredText(body.priority_name, 'body.priority_name');
      return withTransaction(db, async (trx) => {
        const current = await requirePriority(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toPriority(current));
        const set: Updateable<TicketPrioritiesTable> = {};
        if (name !== undefined && name !== current.priority_name) {
          await assertNameFree(trx, actor.tenant, name, id);
          set.priority_name = name;
        }
        if (body.order_number !== undefined && body.order_number !== current.order_number) set.order_number = body.order_number;
        const color = colorOf(body.color);
        if (color !== undefined && color !== current.color) set.color = color;
        if (body.is_default === false && current.is_default) {
          throw conflict('A tenant always has a default priority; make another priority the default instead');
        }
        if (body.is_default === true && !current.is_default) set.is_default = true;
        if (Object.keys(set).length === 0) return toPriority(current);
        const now = new Date();
        if (set.is_default) await clearDefaultPriority(trx, actor.tenant, now);
        await updatePriority(trx, actor.tenant, id, { ...set, updated_at: now });
        return toPriority(await requirePriority(trx, actor.tenant, id));
      });
    },

    /** Refused for the default priority and while tickets use it. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await requirePriority(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toPriority(current));
        if (current.is_default) throw conflict('The default priority cannot be deleted; make another priority the default first');
        const n = await countTicketsWithPriority(trx, actor.tenant, id);
        if (n > 0) throw conflict(`Priority '${id}' is still used by ${n} tickets; give them another priority first`, { tickets: n });
        await deletePriority(trx, actor.tenant, id);
      });
    },
  };
}

export type PrioritiesService = ReturnType<typeof createPrioritiesService>;
