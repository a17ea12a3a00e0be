import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode } from './errors.ts';
import { translatePgError } from '../db/pg-errors.ts';

const FASTIFY_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: ['BAD_REQUEST', 'The request body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['BAD_REQUEST', 'The request body is empty but Content-Type says JSON'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'The request body is larger than the limit'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['BAD_REQUEST', 'Content-Length does not match the body'],
  FST_ERR_CTP_INVALID_TYPE: ['BAD_REQUEST', 'The Content-Type header is invalid'],
  FST_ERR_BAD_URL: ['BAD_REQUEST', 'The URL is malformed'],
  FST_ERR_ASYNC_CONSTRAINT: ['BAD_REQUEST', 'The request could not be routed'],
};

// First code listed for a status wins (VALIDATION_ERROR and CONFLICT stay generic 400/409 names).
const STATUS_CODES = new Map<number, ErrorCode>();
for (const [code, status] of Object.entries(ERROR_STATUS)) if (!STATUS_CODES.has(status)) STATUS_CODES.set(status, code as ErrorCode);

interface ValidationIssue {
  path: string;
  message: string;
}

function validationIssues(err: FastifyError): ValidationIssue[] {
  const part = err.validationContext ?? 'body';
  return (err.validation ?? []).map((v) => {
    const base = v.instancePath ? `${part}${v.instancePath.replace(/\//g, '.')}` : part;
    const params = v.params as Record<string, unknown>;
    if (v.keyword === 'additionalProperties') {
      return { path: `${base}.${String(params.additionalProperty)}`, message: part === 'querystring' ? 'unknown query parameter' : 'unknown field' };
    }
    if (v.keyword === 'required') return { path: `${base}.${String(params.missingProperty)}`, message: 'is required' };
    if (v.keyword === 'enum') return { path: base, message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}` };
    return { path: base, message: v.message ?? 'is invalid' };
  });
}

/** Maps any thrown thing to the one error envelope. Unknown errors are logged and masked. */
export function toAppError(err: unknown, request: FastifyRequest): AppError {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError;
  if (fe?.validation) {
    const issues = validationIssues(fe);
    const message = issues.map((i) => `${i.path} ${i.message}`).join('; ').slice(0, 1000);
    return new AppError('VALIDATION_ERROR', message || 'The request is invalid', issues);
  }
  const known = typeof fe?.code === 'string' ? FASTIFY_CODES[fe.code] : undefined;
  if (known) return new AppError(known[0], known[1]);
  const pgError = translatePgError(err);
  if (pgError) return pgError;
  if (fe instanceof SyntaxError && fe.statusCode === 400) return new AppError('BAD_REQUEST', 'The request body is not valid JSON');
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    return new AppError(STATUS_CODES.get(status) ?? 'BAD_REQUEST', 'The request could not be processed');
  }
  request.log.error({ err }, 'unhandled error');
  return new AppError('INTERNAL_ERROR', 'An unexpected error occurred');
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  const body: Record<string, unknown> = { code: error.code, message: error.message, request_id: reply.request.id };
  if (error.details !== undefined) body.details = error.details;
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send({ error: body });
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const error = toAppError(err, request);
    if (error.statusCode >= 500 && error.code !== 'INTERNAL_ERROR') request.log.warn({ code: error.code }, error.message);
    return sendError(reply, error);
  });
}
