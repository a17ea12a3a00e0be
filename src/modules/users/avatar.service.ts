import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { AppError } from '../../platform/http/errors.ts';
import { recordActivity } from './activity.repo.ts';
import { AVATAR_CONTENT_TYPE, type Avatar } from './avatar.image.ts';
import { deleteAvatar, findAvatar, findAvatarEtag, saveAvatar } from './avatar.repo.ts';
import { requireSelfOr, requireVisibleUser, type RequestMeta } from './users.access.ts';
import { emitUserUpdated } from './users.events.ts';
import { updateUser } from './users.repo.ts';
import type { User } from './users.schemas.ts';
import { toOneUser } from './users.service.ts';

const noAvatar = (id: string) => new AppError('NOT_FOUND', `User '${id}' has no avatar`);

/** The avatar's HTTP ETag: its stored content hash, quoted. */
export const avatarEtag = (etag: string): string => `"${etag}"`;

const matches = (header: string, etag: string): boolean =>
  header.trim() === '*' || header.split(',').map((t) => t.trim().replace(/^W\//, '')).includes(avatarEtag(etag));

/** Avatars: yours without permission; another user's needs user:update to change and user:read to view. */
/** What every avatar change does besides the image: the user's updated_at, the activity log, the event. */
async function avatarChanged(trx: Transaction<DB>, actor: Actor, id: string, change: 'set' | 'removed', meta: RequestMeta): Promise<void> {
  await updateUser(trx, actor.tenant, id, { updated_at: new Date() });
  await recordActivity(trx, {
    tenant: actor.tenant,
    user_id: id,
    actor_user_id: actor.userId,
    activity_type: 'profile_update',
    details: { avatar: change },
    ip: meta.ip,
    user_agent: meta.userAgent,
  });
  await emitUserUpdated(trx, actor.tenant, id, ['image']);
}

export function createAvatarService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    /** Checked before the upload is read: 403 or 404 never cost a decode. */
    async assertCanChange(actor: Actor, id: string): Promise<void> {
      requireSelfOr(actor, id, 'user:update');
      await requireVisibleUser(db, actor, id);
    },

    async set(actor: Actor, id: string, avatar: Avatar, meta: RequestMeta): Promise<User> {
      requireSelfOr(actor, id, 'user:update');
      return withTransaction(db, async (trx) => {
        const current = await requireVisibleUser(trx, actor, id, true);
        if (current.avatar_etag !== avatar.etag) {
          await saveAvatar(trx, actor.tenant, id, { ...avatar, content_type: AVATAR_CONTENT_TYPE });
          await avatarChanged(trx, actor, id, 'set', meta);
        }
        return toOneUser(trx, actor.tenant, await requireVisibleUser(trx, actor, id));
      });
    },

    async remove(actor: Actor, id: string, ifMatch: string | undefined, meta: RequestMeta): Promise<void> {
      requireSelfOr(actor, id, 'user:update');
      await withTransaction(db, async (trx) => {
        await requireVisibleUser(trx, actor, id, true);
        const etag = await findAvatarEtag(trx, actor.tenant, id);
        if (etag === undefined) throw noAvatar(id);
        if (ifMatch !== undefined && !matches(ifMatch, etag)) {
          throw new AppError('PRECONDITION_FAILED', 'If-Match does not match the avatar’s current ETag; fetch it again', { current_etag: avatarEtag(etag) });
        }
        await deleteAvatar(trx, actor.tenant, id);
        await avatarChanged(trx, actor, id, 'removed', meta);
      });
    },

    async get(actor: Actor, id: string): Promise<Avatar> {
      requireSelfOr(actor, id, 'user:read');
      await requireVisibleUser(db, actor, id);
      const avatar = await findAvatar(db, actor.tenant, id);
      if (!avatar) throw noAvatar(id);
      return avatar;
    },

    /** True when If-None-Match already names this avatar. */
    notModified: (ifNoneMatch: string | undefined, etag: string): boolean => ifNoneMatch !== undefined && matches(ifNoneMatch, etag),
  };
}

export type AvatarService = ReturnType<typeof createAvatarService>;
