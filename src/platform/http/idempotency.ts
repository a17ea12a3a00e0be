import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { AppError } from './errors.ts';
import type { SecretBox } from '../crypto/secret-box.ts';

interface Scope {
  tenant: string;
  owner: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: Scope;
  }
}

const TTL_MS = 24 * 60 * 60 * 1000;
/** A request still unanswered after this long is taken to have died with its process. */
const IN_FLIGHT_MS = 60_000;
const KEY_RE = /^[\x21-\x7e]{1,255}$/;
const REPLAYED_HEADERS = ['location', 'etag'];

/**
 * `Idempotency-Key` on POST: the first response (status, body, Location) is kept for 24 hours per
 * (tenant, user, key) and replayed for repeats; the same key with another body is a 409. A row with no
 * status marks a request in flight, so a concurrent repeat gets a 409 instead of a second execution.
 * 5xx responses are not kept: the caller may retry them.
 */
export function registerIdempotency(app: FastifyInstance, db: Kysely<DB>, secretBox: SecretBox): void {
  app.decorateRequest('idempotency', undefined);

  app.addHook('preHandler', async (request, reply) => {
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined || !request.actor) return;
    if (typeof header !== 'string' || !KEY_RE.test(header)) {
      throw new AppError('BAD_REQUEST', 'Idempotency-Key must be 1–255 printable ASCII characters');
    }
    const scope = { tenant: request.actor.tenant, owner: request.actor.userId, key: header };
    const requestHash = hashRequest(request);
    // Expired records, and in-flight markers whose request died with its process, free the key.
    await db
      .deleteFrom('idempotency_keys')
      .where(sameKey(scope))
      .where((eb) =>
        eb.or([
          eb('expires_at', '<', new Date()),
          eb.and([eb('status_code', 'is', null), eb('created_at', '<', new Date(Date.now() - IN_FLIGHT_MS))]),
        ]),
      )
      .execute();
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({ tenant: scope.tenant, owner_id: scope.owner, idem_key: scope.key, request_hash: requestHash, expires_at: new Date(Date.now() + TTL_MS) })
      .onConflict((oc) => oc.doNothing())
      .returning('idem_key')
      .executeTakeFirst();
    if (inserted) {
      request.idempotency = scope;
      return;
    }
    const existing = await db.selectFrom('idempotency_keys').selectAll().where(sameKey(scope)).executeTakeFirst();
    if (!existing) throw new AppError('CONFLICT', 'A request with this Idempotency-Key is being replaced; retry it');
    if (existing.request_hash !== requestHash) {
      throw new AppError('CONFLICT', 'This Idempotency-Key was already used for a different request');
    }
    if (existing.status_code === null) {
      throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
    }
    reply.code(existing.status_code).headers({ ...(existing.response_headers ?? {}), 'Idempotent-Replayed': 'true' });
    reply.type('application/json; charset=utf-8');
    return reply.send(existing.response_body ? secretBox.decrypt(existing.response_body) : '');
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const scope = request.idempotency;
    if (!scope) return payload;
    request.idempotency = undefined;
    if (reply.statusCode >= 500) {
      await db.deleteFrom('idempotency_keys').where(sameKey(scope)).execute();
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const v = reply.getHeader(name);
      if (typeof v === 'string') headers[name] = v;
    }
    await db
      .updateTable('idempotency_keys')
      .where(sameKey(scope))
      // Encrypted: a first response may carry a one-time secret (a new API key, TOTP enrolment).
      .set({ status_code: reply.statusCode, response_body: secretBox.encrypt(typeof payload === 'string' ? payload : ''), response_headers: JSON.stringify(headers) })
      .execute();
    return payload;
  });
}

const sameKey = (scope: Scope) => (eb: ExpressionBuilder<DB, 'idempotency_keys'>) =>
  eb.and({ tenant: scope.tenant, owner_id: scope.owner, idem_key: scope.key });

function hashRequest(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}
