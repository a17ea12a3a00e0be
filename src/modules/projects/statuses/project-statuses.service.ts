import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable } from '../../../platform/http/errors.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { findProjectStatus, listProjectStatuses } from './statuses.repo.ts';
import { toProjectStatus, type CreateProjectStatusBody, type ProjectStatus, type UpdateProjectStatusBody } from './statuses.schemas.ts';

const mustBeOpen = () => unprocessable('The default project status must be an open one (new projects start in it)', [{ path: 'body.is_default', message: 'a closed status cannot be the default' }]);

/**
 * The tenant's project statuses. Writes lock the tenant's status rows first, so default changes
 * happen one at a time; the tenant always keeps exactly one default, and it is open.
 */
export function createProjectStatusesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  const lockAll = (trx: Kysely<DB>, tenant: string) => trx.selectFrom('project_statuses').select('status_id').where('tenant', '=', tenant).forUpdate().execute();
  const assertNameFree = async (trx: Kysely<DB>, tenant: string, value: string, self?: string) => {
    const same = (await listProjectStatuses(trx, tenant)).find((s) => s.name.toLowerCase() === value.toLowerCase() && s.status_id !== self);
    if (same) throw conflict(`A project status named '${same.name}' already exists (names are unique regardless of case)`, { status_id: same.status_id });
  };
  const requireStatus = async (trx: Kysely<DB>, tenant: string, statusId: string) => {
    const row = await findProjectStatus(trx, tenant, statusId);
    if (!row) throw notFound('Project status', statusId);
    return row;
  };

  return {
    async list(actor: Actor): Promise<ProjectStatus[]> {
      return (await listProjectStatuses(db, actor.tenant)).map(toProjectStatus);
    },

    async get(actor: Actor, statusId: string): Promise<ProjectStatus> {
      return toProjectStatus(await requireStatus(db, actor.tenant, statusId));
    },

    create(actor: Actor, body: CreateProjectStatusBody): Promise<ProjectStatus> {
      const statusName = requiredText(body.name, 'body.name');
      if (body.is_default === true && body.is_closed === true) throw mustBeOpen();
      return withTransaction(db, async (trx) => {
        const all = await lockAll(trx, actor.tenant);
        await assertNameFree(trx, actor.tenant, statusName);
        if (body.is_default === true) await trx.updateTable('project_statuses').set({ is_default: false, updated_at: new Date() }).where('tenant', '=', actor.tenant).where('is_default', '=', true).execute();
        const statusId = newId();
        await trx.insertInto('project_statuses').values({
          tenant: actor.tenant,
          status_id: statusId,
          name: statusName,
          is_closed: body.is_closed ?? false,
          is_default: body.is_default ?? false,
          order_number: body.order_number ?? all.length + 1,
        }).execute();
        return toProjectStatus((await findProjectStatus(trx, actor.tenant, statusId))!);
      });
    },

    /** Closing or opening a status does not touch the projects already in it: is_closed of a project follows its moves. */
    update(actor: Actor, statusId: string, body: UpdateProjectStatusBody, ifMatch?: string): Promise<ProjectStatus> {
      return withTransaction(db, async (trx) => {
        await lockAll(trx, actor.tenant);
        const current = await requireStatus(trx, actor.tenant, statusId);
        assertIfMatch(ifMatch, toProjectStatus(current));
        const set: Record<string, unknown> = {};
        if (body.name !== undefined) {
          set.name = requiredText(body.name, 'body.name');
          await assertNameFree(trx, actor.tenant, set.name as string, statusId);
        }
        if (body.order_number !== undefined) set.order_number = body.order_number;
        if (body.is_closed !== undefined) set.is_closed = body.is_closed;
        const isDefault = body.is_default ?? current.is_default;
        const isClosed = body.is_closed ?? current.is_closed;
        if (isDefault && isClosed) throw mustBeOpen();
        if (body.is_default === false && current.is_default) throw unprocessable('The tenant needs a default project status; make another one the default instead');
        if (body.is_default === true && !current.is_default) {
          await trx.updateTable('project_statuses').set({ is_default: false, updated_at: new Date() }).where('tenant', '=', actor.tenant).where('is_default', '=', true).execute();
          set.is_default = true;
        }
        if (Object.keys(set).length > 0) await trx.updateTable('project_statuses').set({ ...set, updated_at: new Date() }).where('tenant', '=', actor.tenant).where('status_id', '=', statusId).execute();
        return toProjectStatus((await findProjectStatus(trx, actor.tenant, statusId))!);
      });
    },

    /** A status in use by a project, or the default, cannot go (409): move the projects or pick another default first. */
    async remove(actor: Actor, statusId: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        await lockAll(trx, actor.tenant);
        const current = await requireStatus(trx, actor.tenant, statusId);
        assertIfMatch(ifMatch, toProjectStatus(current));
        if (current.is_default) throw conflict('The default project status cannot be deleted; make another status the default first');
        const used = await trx.selectFrom('projects').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant', '=', actor.tenant).where('status_id', '=', statusId).executeTakeFirstOrThrow();
        if (Number(used.n) > 0) throw conflict(`${used.n} project(s) are in this status; move them to another status first`, { project_count: Number(used.n) });
        await trx.deleteFrom('project_statuses').where('tenant', '=', actor.tenant).where('status_id', '=', statusId).execute();
      });
    },
  };
}

export type ProjectStatusesService = ReturnType<typeof createProjectStatusesService>;
