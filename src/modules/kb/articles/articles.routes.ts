import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../../platform/http/etag.ts';
import { IdParams, listQuery } from '../../../platform/http/schemas.ts';
import type { KbArticlesService } from './articles.service.ts';
import {
  ArticleContentResponse,
  ContentQuery,
  CreateKbArticleBody,
  FromTicketBody,
  KbArticleListResponse,
  KbArticleResponse,
  ListKbArticlesQuery,
  PutContentBody,
  RevisionListResponse,
  RevisionParams,
  RevisionResponse,
  TicketParams,
  UpdateKbArticleBody,
} from './articles.schemas.ts';

const tags = ['Knowledge base'];
const NoQuery = Type.Object({}, { additionalProperties: false });
const RevisionsQuery = listQuery(['revision'] as const, {});

/** /kb-articles: articles (draft → published → archived), their Markdown body and its revisions. */
export const kbArticlesRoutes = (service: KbArticlesService): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/kb-articles', {
    schema: { operationId: 'listKbArticles', tags, summary: 'List articles (client-portal keys see published client and public articles only)', querystring: ListKbArticlesQuery, response: { 200: KbArticleListResponse } },
    config: { permission: 'kb:read' },
  }, (req) => service.list(req.actor, req.query));
  app.post('/kb-articles', {
    schema: { operationId: 'createKbArticle', tags, summary: 'Create a draft article (optionally from a template); write its body with PUT /content', querystring: NoQuery, body: CreateKbArticleBody, response: { 201: KbArticleResponse } },
    config: { permission: 'kb:create' },
  }, async (req, reply) => {
    const article = await service.create(req.actor, req.body);
    reply.code(201).header('Location', `/api/v1/kb-articles/${article.article_id}`);
    return withEtag(req, reply, article);
  });
  app.post('/kb-articles/from-ticket/:ticketId', {
    schema: { operationId: 'createKbArticleFromTicket', tags, summary: "Draft a troubleshooting article from a ticket's problem and resolution (needs ticket:read too)", params: TicketParams, querystring: NoQuery, body: FromTicketBody, response: { 201: KbArticleResponse } },
    config: { permission: ['kb:create', 'ticket:read'] },
  }, async (req, reply) => {
    const article = await service.fromTicket(req.actor, req.params.ticketId, req.body ?? {});
    reply.code(201).header('Location', `/api/v1/kb-articles/${article.article_id}`);
    return withEtag(req, reply, article);
  });
  app.get('/kb-articles/:id', {
    schema: { operationId: 'getKbArticle', tags, summary: "Get an article's metadata", params: IdParams, querystring: NoQuery, response: { 200: KbArticleResponse } },
    config: { permission: 'kb:read' },
  }, async (req, reply) => withEtag(req, reply, await service.get(req.actor, req.params.id)));
  app.put('/kb-articles/:id', {
    schema: { operationId: 'updateKbArticle', tags, summary: "Update an article's metadata (partial; status moves only through publish and archive)", params: IdParams, querystring: NoQuery, body: UpdateKbArticleBody, response: { 200: KbArticleResponse } },
    config: { permission: 'kb:update' },
  }, async (req, reply) => withEtag(req, reply, await service.update(req.actor, req.params.id, req.body, ifMatchOf(req))));
  app.delete('/kb-articles/:id', {
    schema: { operationId: 'deleteKbArticle', tags, summary: 'Delete an article with its content, revisions and search entry', params: IdParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Deleted' } } },
    config: { permission: 'kb:delete' },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.get('/kb-articles/:id/content', {
    schema: { operationId: 'getKbArticleContent', tags, summary: 'The body as Markdown, or as sanitised HTML with ?format=html (counts a view)', params: IdParams, querystring: ContentQuery, response: { 200: ArticleContentResponse } },
    config: { permission: 'kb:read' },
  }, async (req) => ({ data: await service.content(req.actor, req.params.id, req.query.format) }));
  app.put('/kb-articles/:id/content', {
    schema: { operationId: 'putKbArticleContent', tags, summary: 'Replace the body (Markdown); each change is kept as a new revision', params: IdParams, querystring: NoQuery, body: PutContentBody, response: { 200: ArticleContentResponse } },
    config: { permission: 'kb:update' },
  }, async (req) => ({ data: await service.putContent(req.actor, req.params.id, req.body.content) }));
  app.get('/kb-articles/:id/revisions', {
    schema: { operationId: 'listKbArticleRevisions', tags, summary: 'The revisions of the body, newest first', params: IdParams, querystring: RevisionsQuery, response: { 200: RevisionListResponse } },
    config: { permission: 'kb:read' },
  }, (req) => service.revisions(req.actor, req.params.id, req.query));
  app.get('/kb-articles/:id/revisions/:revision', {
    schema: { operationId: 'getKbArticleRevision', tags, summary: 'One revision of the body, by number', params: RevisionParams, querystring: NoQuery, response: { 200: RevisionResponse } },
    config: { permission: 'kb:read' },
  }, async (req) => ({ data: await service.revision(req.actor, req.params.id, req.params.revision) }));

  app.post('/kb-articles/:id/publish', {
    schema: { operationId: 'publishKbArticle', tags, summary: 'Publish a draft (or re-publish an archived article); empty content is a 422, any other move a 409', params: IdParams, querystring: NoQuery, response: { 200: KbArticleResponse } },
    config: { permission: 'kb:publish' },
  }, async (req, reply) => withEtag(req, reply, await service.publish(req.actor, req.params.id)));
  app.post('/kb-articles/:id/archive', {
    schema: { operationId: 'archiveKbArticle', tags, summary: 'Archive a published article (history kept, taken down); any other move is a 409', params: IdParams, querystring: NoQuery, response: { 200: KbArticleResponse } },
    config: { permission: 'kb:publish' },
  }, async (req, reply) => withEtag(req, reply, await service.archive(req.actor, req.params.id)));
};
