import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import { emitKbSettingsEvent } from '../kb-settings.events.ts';
import {
  deleteKbTemplate,
  detachKbTemplateFromArticles,
  findKbTemplate,
  findKbTemplateIdByName,
  insertKbTemplate,
  kbTemplateList,
  updateKbTemplate,
  type KbTemplateRow,
} from './templates.repo.ts';
import type { CreateKbTemplateBody, KbTemplate, ListKbTemplatesQuery, UpdateKbTemplateBody } from './templates.schemas.ts';

export function toKbTemplate(r: KbTemplateRow): KbTemplate {
  return {
    template_id: r.template_id,
    name: r.name,
    description: r.description,
    article_type: r.article_type,
    content: r.content,
    is_builtin: r.is_builtin,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

async function view(db: Executor, tenant: string, id: string, lock = false): Promise<KbTemplateRow> {
  const row = await findKbTemplate(db, tenant, id, lock ? 'update' : undefined);
  if (!row) throw notFound('Knowledge-base template', id);
  return row;
}

async function assertNameFree(trx: Transaction<DB>, tenant: string, name: string, self?: string): Promise<void> {
  const existing = await findKbTemplateIdByName(trx, tenant, name);
  if (existing && existing !== self) {
    throw conflict(`A knowledge-base template named '${name}' already exists (names are unique regardless of case)`, { template_id: existing });
  }
}

export function createKbTemplatesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    list(actor: Actor, query: ListKbTemplatesQuery) {
      const list = kbTemplateList(db, actor.tenant, { articleType: query.article_type, isBuiltin: query.is_builtin, search: query.search?.trim() || undefined });
      return listPage(query, list, (rows) => rows.map(toKbTemplate));
    },

    async get(actor: Actor, id: string): Promise<KbTemplate> {
      return toKbTemplate(await view(db, actor.tenant, id));
    },

    async create(actor: Actor, body: CreateKbTemplateBody): Promise<KbTemplate> {
      const name = requiredText(body.name, 'body.name');
      return withTransaction(db, async (trx) => {
        await assertNameFree(trx, actor.tenant, name);
        const id = newId();
        await insertKbTemplate(trx, {
          tenant: actor.tenant,
          template_id: id,
          name,
          description: optionalText(body.description) ?? null,
          article_type: body.article_type,
          content: body.content ?? '',
          is_builtin: false,
        });
        await emitKbSettingsEvent(trx, actor.tenant, 'kb_template', 'created', id, { article_type: body.article_type });
        return toKbTemplate(await view(trx, actor.tenant, id));
      });
    },

    /** Partial; built-ins can be edited (renamed too) like the tenant's own. */
    async update(actor: Actor, id: string, body: UpdateKbTemplateBody, ifMatch?: string): Promise<KbTemplate> {
      const name = body.name === undefined ? undefined : requiredText(body.name, 'body.name');
      return withTransaction(db, async (trx) => {
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toKbTemplate(current));
        if (name !== undefined) await assertNameFree(trx, actor.tenant, name, id);
        await updateKbTemplate(trx, actor.tenant, id, {
          name,
          description: optionalText(body.description),
          article_type: body.article_type,
          content: body.content,
          updated_at: new Date(),
        });
        await emitKbSettingsEvent(trx, actor.tenant, 'kb_template', 'updated', id, { changed_fields: Object.keys(body).sort() });
        return toKbTemplate(await view(trx, actor.tenant, id));
      });
    },

    /** Built-ins stay (422). Articles made from the template keep their content and lose the link, in the same transaction. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await view(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toKbTemplate(current));
        if (current.is_builtin) throw unprocessable(`Built-in knowledge-base template '${current.name}' cannot be deleted; edit it instead`);
        const detached = await detachKbTemplateFromArticles(trx, actor.tenant, id);
        await deleteKbTemplate(trx, actor.tenant, id);
        await emitKbSettingsEvent(trx, actor.tenant, 'kb_template', 'deleted', id, { detached_article_count: detached });
      });
    },
  };
}

export type KbTemplatesService = ReturnType<typeof createKbTemplatesService>;
