import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ifMatchOf, withEtag } from '../../platform/http/etag.ts';
import { AppError, validation } from '../../platform/http/errors.ts';
import { IdParams } from '../../platform/http/schemas.ts';
import { AVATAR_CONTENT_TYPE, AVATAR_MAX_BYTES, AVATAR_SIZE, normalizeAvatar } from './avatar.image.ts';
import { avatarEtag, type AvatarService } from './avatar.service.ts';
import { metaOf } from './users.access.ts';
import { NoQuery, UserResponse } from './users.schemas.ts';

const tags = ['Users'];
const MAX_MB = AVATAR_MAX_BYTES / (1024 * 1024);

/** Documents the multipart body. The handler reads the file itself; the schema only ever sees the stand-in body below. */
const AvatarUpload = {
  content: {
    'multipart/form-data': {
      schema: Type.Object(
        { avatar: Type.String({ contentMediaType: 'application/octet-stream', maxLength: AVATAR_MAX_BYTES, description: `PNG, JPEG or WebP, at most ${MAX_MB} MB` }) },
        { additionalProperties: false },
      ),
    },
  },
};

const AvatarQuery = Type.Object(
  { v: Type.Optional(Type.String({ maxLength: 100, description: 'The avatar version from the user’s image URL; a matching one makes the response cacheable for long' })) },
  { additionalProperties: false },
);

/** Multipart failures as the API's errors: too large → 413, anything malformed or unexpected → 400. */
function uploadError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: unknown }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new AppError('PAYLOAD_TOO_LARGE', `The avatar is larger than ${MAX_MB} MB`, { limit_bytes: AVATAR_MAX_BYTES });
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the avatar as multipart/form-data');
  if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return validation('body', 'send exactly one part: a file field named avatar');
  }
  return new AppError('BAD_REQUEST', 'The multipart/form-data body is malformed');
}

/** The one file of a multipart request, field `avatar`; nothing else may come with it. */
async function readUpload(req: FastifyRequest): Promise<Buffer> {
  if (!req.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the avatar as multipart/form-data with one file field named avatar');
  let upload: Buffer | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type !== 'file' || part.fieldname !== 'avatar' || upload !== undefined) {
        throw validation(`body.${part.fieldname.slice(0, 100)}`, 'unexpected part: send exactly one file field named avatar');
      }
      upload = await part.toBuffer();
    }
  } catch (err) {
    throw uploadError(err);
  }
  if (upload === undefined || upload.length === 0) throw validation('body.avatar', 'an avatar file is required');
  return upload;
}

/**
 * Avatar upload, removal and the image itself. Multipart parsing is registered only in this plugin's
 * scope: every other route keeps answering 415 to bodies that are not JSON.
 */
export const avatarRoutes = (service: AvatarService): FastifyPluginAsyncTypebox => async (app) => {
  await app.register(multipart, {
    limits: { fileSize: AVATAR_MAX_BYTES, files: 1, fields: 0, parts: 2, fieldNameSize: 100, headerPairs: 20 },
    throwFileSizeLimit: true,
  });
  // The file is read by the handler, after the access checks; until then a stand-in body satisfies the schema.
  app.addHook('preValidation', async (req) => {
    if (req.isMultipart()) req.body = { avatar: '' };
  });

  app.post('/users/:id/avatar', {
    schema: {
      operationId: 'uploadUserAvatar',
      tags,
      summary: `Set a user’s avatar from a PNG, JPEG or WebP (≤ ${MAX_MB} MB, multipart field avatar); stored as a ${AVATAR_SIZE}×${AVATAR_SIZE} WebP`,
      params: IdParams,
      querystring: NoQuery,
      body: AvatarUpload,
      response: { 200: UserResponse },
    },
    config: { permission: null },
  }, async (req, reply) => {
    await service.assertCanChange(req.actor, req.params.id);
    const avatar = await normalizeAvatar(await readUpload(req));
    return withEtag(req, reply, await service.set(req.actor, req.params.id, avatar, metaOf(req)));
  });

  app.delete('/users/:id/avatar', {
    schema: {
      operationId: 'deleteUserAvatar',
      tags,
      summary: 'Remove a user’s avatar (yours without permission; others need user:update)',
      params: IdParams,
      querystring: NoQuery,
      response: { 204: { type: 'null', description: 'Removed' } },
    },
    config: { permission: null },
  }, async (req, reply) => {
    await service.remove(req.actor, req.params.id, ifMatchOf(req), metaOf(req));
    return reply.code(204).send(null);
  });

  app.get('/users/:id/avatar', {
    schema: {
      operationId: 'getUserAvatar',
      tags,
      summary: `A user’s avatar image (${AVATAR_SIZE}×${AVATAR_SIZE} WebP); yours without permission, others need user:read`,
      params: IdParams,
      querystring: AvatarQuery,
      response: {
        200: {
          description: `The avatar, ${AVATAR_CONTENT_TYPE}`,
          content: { [AVATAR_CONTENT_TYPE]: { schema: { type: 'string', contentMediaType: AVATAR_CONTENT_TYPE } } },
        },
      },
    },
    config: { permission: null },
  }, async (req, reply) => {
    const avatar = await service.get(req.actor, req.params.id);
    // Binary, not a JSON schema'd body: answered through the untyped reply.
    const out = reply as unknown as FastifyReply;
    // A URL naming this version never changes meaning: cache it for long. Otherwise revalidate each time.
    out.header('ETag', avatarEtag(avatar.etag));
    out.header('Cache-Control', req.query.v === avatar.etag ? 'private, max-age=31536000, immutable' : 'private, no-cache');
    const inm = req.headers['if-none-match'];
    if (service.notModified(typeof inm === 'string' ? inm : undefined, avatar.etag)) return out.code(304).send();
    return out.type(AVATAR_CONTENT_TYPE).send(avatar.image);
  });
};
