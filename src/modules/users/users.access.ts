import type { FastifyRequest } from 'fastify';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { requirePermission, type Actor } from '../../platform/auth/context.ts';
import type { Executor } from '../../platform/db/executor.ts';
import { findUserView, type PortalScope, type UserViewRow } from './users.repo.ts';

/** For client-portal actors: the users they may see (their client's users and themself); undefined otherwise. */
export const portalScope = (actor: Actor): PortalScope | undefined =>
  actor.clientId ? { clientId: actor.clientId, selfId: actor.userId } : undefined;

export function canSeeUser(actor: Actor, row: Pick<UserViewRow, 'user_id' | 'user_type' | 'client_id'>): boolean {
  if (!actor.clientId || row.user_id === actor.userId) return true;
  return row.user_type === 'client' && row.client_id === actor.clientId;
}

/** Self-service: acting on yourself needs no permission; acting on anyone else needs `permission`. */
export function requireSelfOr(actor: Actor, userId: string, permission: string): void {
  if (userId !== actor.userId) requirePermission(actor, permission);
}

/** The user if it exists in the actor's tenant and the actor may see it; otherwise 404. */
export async function requireVisibleUser(db: Executor, actor: Actor, userId: string, lock = false): Promise<UserViewRow> {
  const row = await findUserView(db, actor.tenant, userId, lock);
  if (!row || !canSeeUser(actor, row)) throw notFound('User', userId);
  return row;
}

export const forbidden = (message: string, required: string[]): AppError => new AppError('FORBIDDEN', message, { required });

/** Where a request came from, for the activity log. */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

export function metaOf(request: FastifyRequest): RequestMeta {
  const ua = request.headers['user-agent'];
  return { ip: request.ip ?? null, userAgent: typeof ua === 'string' ? ua : null };
}
