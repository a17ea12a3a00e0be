import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, validation } from '../../../platform/http/errors.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import { NoQuery } from '../assets.schemas.ts';
import { checkedMimeType, attachmentHeader, DOCUMENT_MAX_BYTES, DOCUMENT_MAX_MB, safeFileName } from './documents.files.ts';
import { AssetDocumentListResponse, AssetDocumentResponse, AssociationParams, DocumentPostBody, type LinkDocumentBody } from './documents.schemas.ts';
import type { DocumentsService, UploadedFile } from './documents.service.ts';

const tags = ['Asset documents'];

/** Multipart failures as the API's errors: too large → 413, anything malformed or unexpected → 400. */
function uploadError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: unknown }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new AppError('PAYLOAD_TOO_LARGE', `The file is larger than ${DOCUMENT_MAX_MB} MiB`, { limit_bytes: DOCUMENT_MAX_BYTES });
  if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return validation('body', 'send one file part named file and, optionally, a notes field');
  }
  return new AppError('BAD_REQUEST', 'The multipart/form-data body is malformed');
}

/** The one file part (`file`) and the optional `notes` field of a multipart request. */
async function readUpload(req: FastifyRequest): Promise<UploadedFile> {
  let file: UploadedFile | undefined;
  let notes: string | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'field' && part.fieldname === 'notes' && notes === undefined && typeof part.value === 'string' && part.value.length <= 2000) {
        notes = part.value;
        continue;
      }
      if (part.type !== 'file' || part.fieldname !== 'file' || file !== undefined) {
        throw validation(`body.${part.fieldname.slice(0, 100)}`, 'unexpected part: send one file part named file and, optionally, a notes field of at most 2000 characters');
      }
      const content = await part.toBuffer();
      file = { fileName: safeFileName(part.filename), mimeType: part.mimetype, content };
    }
  } catch (err) {
    throw uploadError(err);
  }
  if (file === undefined || file.content.length === 0) throw validation('body.file', 'a non-empty file is required');
  if (notes?.includes('\u0000')) throw validation('body.notes', 'must not contain NUL characters');
  return { ...file, mimeType: checkedMimeType(file.mimeType, file.content), notes };
}

/** Multipart parsing is registered only in this plugin's scope; every other route keeps answering 415 to it. */
export const documentsRoutes = (service: DocumentsService): FastifyPluginAsyncTypebox => async (app) => {
  await app.register(multipart, {
    limits: { fileSize: DOCUMENT_MAX_BYTES, files: 1, fields: 1, parts: 2, fieldNameSize: 100, fieldSize: 8 * 1024, headerPairs: 20 },
    throwFileSizeLimit: true,
  });
  // The file is read by the handler, after the access checks; until then a stand-in body satisfies the schema.
  app.addHook('preValidation', async (req) => {
    if (req.isMultipart()) req.body = { file: '' };
  });

  app.get('/assets/:id/documents', {
    schema: { operationId: 'listAssetDocuments', tags, summary: 'Documents attached to the asset', params: IdParams, querystring: NoQuery, response: { 200: AssetDocumentListResponse } },
    config: { permission: 'asset:read' },
  }, async (req) => ({ data: await service.list(req.actor, req.params.id) }));

  app.post('/assets/:id/documents', {
    schema: {
      operationId: 'attachAssetDocument',
      tags,
      summary: `Attach a document: upload a file (multipart, part "file", ≤ ${DOCUMENT_MAX_MB} MiB; 413 beyond, 415 for other types) or link an existing one with JSON {document_id} (409 if linked)`,
      params: IdParams,
      querystring: NoQuery,
      body: DocumentPostBody,
      response: { 201: AssetDocumentResponse },
    },
    config: { permission: 'asset:update' },
  }, async (req, reply) => {
    let doc;
    if (req.isMultipart()) {
      await service.assertCanAttach(req.actor, req.params.id);
      doc = await service.upload(req.actor, req.params.id, await readUpload(req));
    } else {
      doc = await service.link(req.actor, req.params.id, req.body as LinkDocumentBody);
    }
    reply.code(201);
    return { data: doc };
  });

  app.delete('/assets/documents/:associationId', {
    schema: { operationId: 'detachAssetDocument', tags, summary: 'Detach a document from its asset (the document itself stays)', params: AssociationParams, querystring: NoQuery, response: { 204: { type: 'null', description: 'Detached' } } },
    config: { permission: 'asset:update' },
  }, async (req, reply) => {
    await service.unlink(req.actor, req.params.associationId);
    return reply.code(204).send(null);
  });

  app.get('/assets/documents/:associationId/content', {
    schema: {
      operationId: 'downloadAssetDocument',
      tags,
      summary: 'Download the file of an attached document',
      params: AssociationParams,
      querystring: NoQuery,
      response: { 200: { description: 'The file, with its stored media type', content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } } },
    },
    config: { permission: 'asset:read' },
  }, async (req, reply) => {
    const file = await service.content(req.actor, req.params.associationId);
    // Binary, not a JSON schema'd body: answered through the untyped reply.
    const out = reply as unknown as FastifyReply;
    out.header('Content-Disposition', attachmentHeader(file.fileName));
    out.header('X-Content-Type-Options', 'nosniff');
    out.header('ETag', `"${file.sha256}"`);
    out.header('Cache-Control', 'private, no-cache');
    return out.type(file.mimeType).send(file.content);
  });
};
