import type { Executor } from '../../platform/db/executor.ts';

export async function findAvatar(db: Executor, tenant: string, userId: string): Promise<{ image: Buffer; etag: string } | undefined> {
  const row = await db.selectFrom('user_avatars').select(['image', 'etag']).where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirst();
  if (!row) return undefined;
  // pg gives a Buffer, PGlite a Uint8Array: the same bytes either way.
  const bytes = row.image as Uint8Array;
  return { image: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), etag: row.etag };
}

export async function findAvatarEtag(db: Executor, tenant: string, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('user_avatars').select('etag').where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirst();
  return row?.etag;
}

export async function saveAvatar(db: Executor, tenant: string, userId: string, a: { image: Buffer; etag: string; content_type: string }): Promise<void> {
  const now = new Date();
  await db
    .insertInto('user_avatars')
    .values({ tenant, user_id: userId, image: a.image, etag: a.etag, content_type: a.content_type, updated_at: now })
    .onConflict((oc) => oc.columns(['tenant', 'user_id']).doUpdateSet({ image: a.image, etag: a.etag, content_type: a.content_type, updated_at: now }))
    .execute();
}

export async function deleteAvatar(db: Executor, tenant: string, userId: string): Promise<boolean> {
  const res = await db.deleteFrom('user_avatars').where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
