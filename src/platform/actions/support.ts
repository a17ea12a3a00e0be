import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import * as addFormatsModule from 'ajv-formats';
import type { Static, TSchema } from 'typebox';
import { AppError, ERROR_STATUS } from '../http/errors.ts';
import type { ActionContext } from './action.ts';

// ajv-formats ships CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule.default as unknown as (ajv: Ajv) => Ajv;
const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes: false, useDefaults: false, removeAdditional: false });
addFormats(ajv);

function problemOf(e: ErrorObject): { path: string; message: string } {
  const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') return { path: [base, String(params.additionalProperty)].filter(Boolean).join('.'), message: 'is not accepted by this action' };
  if (e.keyword === 'required') return { path: [base, String(params.missingProperty)].filter(Boolean).join('.'), message: 'is required' };
  if (e.keyword === 'enum') return { path: base, message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}` };
  return { path: base || '(fields)', message: e.message ?? 'is invalid' };
}

/**
 * A checker for the request body schema of the REST endpoint an action stands in for: the mapped
 * fields meet exactly the contract an API caller meets (formats, lengths, enums), before any write.
 */
export function bodyChecker<T extends TSchema>(schema: T): (body: Record<string, unknown>) => Static<T> {
  // Compiled on first use: every area defines its checkers at start-up, and most never run in a given process.
  let validate: ValidateFunction | undefined;
  return (body) => {
    validate ??= ajv.compile(schema);
    if (validate(body)) return body as Static<T>;
    const problems = (validate.errors ?? []).map(problemOf);
    throw new AppError('VALIDATION_ERROR', problems.map((p) => `${p.path} ${p.message}`).join('; ').slice(0, 1000), problems);
  };
}

/** The external id names no record: the sender should not retry this delivery. */
export const lookupFailed = (entityType: string, externalId: string): AppError =>
  new AppError('UNPROCESSABLE', `No ${entityType} is mapped to external id '${externalId}'`, {
    reason: 'lookup_failed',
    entity_type: entityType,
    external_id: externalId,
  });

export const isNotFound = (err: unknown): boolean => err instanceof AppError && err.statusCode === ERROR_STATUS.NOT_FOUND;

/** The record an external id names, or a lookup failure (a mapping whose record is gone is dropped). */
export async function requireMapped(
  ctx: ActionContext,
  entityType: string,
  externalId: string,
  exists: (id: string) => Promise<boolean>,
): Promise<string> {
  const id = await ctx.externalIds.find(entityType, externalId);
  if (id && (await exists(id))) return id;
  if (id) await ctx.externalIds.forget(entityType, externalId, id);
  throw lookupFailed(entityType, externalId);
}

/** Whether a read succeeds (false on NOT_FOUND; other errors propagate). */
export async function found(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/**
 * Update the record an external id names, or create it (at most once across concurrent deliveries)
 * and record the mapping. A mapping whose record was deleted since is dropped and the record made anew.
 */
export async function upsertByExternalId(
  ctx: ActionContext,
  entityType: string,
  externalId: string,
  ops: { exists(id: string): Promise<boolean>; update(id: string): Promise<void>; create(): Promise<string> },
): Promise<{ entityId: string; operation: 'created' | 'updated' }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const mapped = await ctx.externalIds.find(entityType, externalId);
    if (mapped) {
      if (await ops.exists(mapped)) {
        await ops.update(mapped);
        return { entityId: mapped, operation: 'updated' };
      }
      await ctx.externalIds.forget(entityType, externalId, mapped);
    }
    const outcome = await ctx.externalIds.createOnce(entityType, externalId, async () => ({ entityId: await ops.create(), value: null }));
    if (outcome.created) return { entityId: outcome.entityId, operation: 'created' };
  }
  throw new AppError('CONFLICT', `The ${entityType} for external id '${externalId}' kept changing while this delivery ran; retry it`);
}
