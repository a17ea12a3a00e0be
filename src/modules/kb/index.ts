import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { defineModule, V1 } from '../deps.ts';
import { kbArticlesRoutes } from './articles/articles.routes.ts';
import { kbArticleSearchIndexer } from './articles/articles.search.ts';
import { createKbArticlesService } from './articles/articles.service.ts';
import { kbCategoriesRoutes } from './categories/categories.routes.ts';
import { createKbCategoriesService } from './categories/categories.service.ts';
import { KB_SETTINGS_EVENT_TYPES } from './kb-settings.events.ts';
import { KB_ARTICLE_EVENT_TYPES } from './kb.events.ts';
import { kbTemplatesRoutes } from './templates/templates.routes.ts';
import { createKbTemplatesService } from './templates/templates.service.ts';

export { seedKbTemplates } from './templates/templates.defaults.ts';

const KB_ACTIONS = ['read', 'create', 'update', 'delete', 'publish'] as const;

/** The knowledge base: articles with their revised Markdown body and lifecycle, categories and templates. */
export function createKbModule(deps: { db: Kysely<DB> }) {
  const articles = createKbArticlesService(deps);
  const categories = createKbCategoriesService(deps);
  const templates = createKbTemplatesService(deps);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(kbCategoriesRoutes(categories));
    await app.register(kbTemplatesRoutes(templates));
    await app.register(kbArticlesRoutes(articles));
  };
  return { articles, categories, templates, routes };
}

export const kbModule = defineModule({
  name: 'kb',
  permissions: [
    {
      resource: 'kb',
      actions: KB_ACTIONS,
      roles: { Manager: KB_ACTIONS, Technician: ['read', 'create', 'update'], 'Client Admin': ['read'], 'Client User': ['read'] },
    },
  ],
  events: { types: [...KB_ARTICLE_EVENT_TYPES, ...KB_SETTINGS_EVENT_TYPES] },
  searchIndexers: [kbArticleSearchIndexer],
  build: (deps) => ({ routes: [{ prefix: V1, plugin: createKbModule(deps).routes }] }),
});
