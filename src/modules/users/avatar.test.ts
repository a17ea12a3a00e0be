import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { anonymous } from '../../../test/client-factories.ts';
import { makeTenant, makeUser, type Api, type Res } from '../../../test/factories.ts';
import { activityOf, createUser, makeClientRecord, makeRole, randomId, userEvents } from './users.test-support.ts';
import { formBody, type Part } from '../../../test/multipart.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const expectError = (res: Res, status: number, code: string) => {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
};

// ---- real images, made here ----

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 60 } } });
const png = (w = 400, h = 200) => solid(w, h).png().toBuffer();
const jpeg = () => solid(300, 500).jpeg().withExif({ IFD0: { Copyright: 'secret-owner', Artist: 'someone' } }).toBuffer();
const webp = () => solid(256, 256).webp().toBuffer();
const gif = () => solid(64, 64).gif().toBuffer();
/** Random pixels do not compress: a PNG of about `bytes`. */
const noisePng = (bytes: number) => {
  const side = Math.ceil(Math.sqrt(bytes / 3));
  return sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
};

async function upload(api: Api, userId: string, parts: Part[], headers: Record<string, string> = {}): Promise<Res> {
  const { payload, contentType } = await formBody(parts);
  return api.request({ method: 'POST', url: `/api/v1/users/${userId}/avatar`, payload, headers: { 'content-type': contentType, ...headers } });
}

const avatarPart = (data: Buffer, type = 'image/png', filename = 'me.png'): Part => ({ name: 'avatar', data, type, filename });

describe('POST /api/v1/users/{id}/avatar', () => {
  it('turns a non-square PNG into a square 256×256 WebP, links it from the user and records the change', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const res = await upload(me.api, me.userId, [avatarPart(await png(400, 200))], { 'user-agent': 'avatar-suite' });
    expect(res.statusCode, res.body).toBe(200);
    const user = res.json().data;
    expect(user.image).toMatch(new RegExp(`^/api/v1/users/${me.userId}/avatar\\?v=[A-Za-z0-9_-]{43}$`));
    const row = await t.database.db.selectFrom('user_avatars').selectAll().where('tenant', '=', tenant).where('user_id', '=', me.userId).executeTakeFirstOrThrow();
    expect(row.content_type).toBe('image/webp');
    expect(user.image.endsWith(`v=${row.etag}`)).toBe(true);

    const img = await me.api.get(user.image);
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toBe('image/webp');
    expect(img.headers.etag).toBe(`"${row.etag}"`);
    expect(img.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    const meta = await sharp(img.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 256, 256]);

    expect((await activityOf(t, tenant, me.userId)).at(-1)).toEqual({
      activity_type: 'profile_update', user_id: me.userId, actor_user_id: null, details: { avatar: 'set' }, ip: '127.0.0.1', user_agent: 'avatar-suite',
    });
    expect((await userEvents(t, tenant, me.userId)).at(-1)).toEqual({ event_type: 'user.updated', payload: { user_id: me.userId, changed_fields: ['image'] } });
  });

  it('accepts JPEG and WebP, and strips the metadata', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const source = await jpeg();
    expect((await sharp(source).metadata()).exif).toBeDefined();
    const fromJpeg = await upload(me.api, me.userId, [avatarPart(source, 'image/jpeg', 'me.jpg')]);
    expect(fromJpeg.statusCode, fromJpeg.body).toBe(200);
    const img = await me.api.get(`/api/v1/users/${me.userId}/avatar`);
    const meta = await sharp(img.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height, meta.exif, meta.icc, meta.xmp]).toEqual(['webp', 256, 256, undefined, undefined, undefined]);
    expect(img.rawPayload.includes(Buffer.from('secret-owner'))).toBe(false);
    expect(img.headers['cache-control']).toBe('private, no-cache');
    const fromWebp = await upload(me.api, me.userId, [avatarPart(await webp(), 'image/webp', 'me.webp')]);
    expect(fromWebp.statusCode, fromWebp.body).toBe(200);
    expect(fromWebp.json().data.image).not.toBe(fromJpeg.json().data.image);
  });

  it('judges the file by its content, not its declared type or name', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const disguisedPng = await upload(me.api, me.userId, [avatarPart(await png(), 'image/gif', 'cat.gif')]);
    expect(disguisedPng.statusCode, disguisedPng.body).toBe(200);
    const disguisedGif = await upload(me.api, me.userId, [avatarPart(await gif(), 'image/png', 'cat.png')]);
    expectError(disguisedGif, 400, 'VALIDATION_ERROR');
    expect(disguisedGif.json().error.message).toContain('gif');
  });

  it('refuses GIFs and things that are not images (400)', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    for (const data of [await gif(), randomBytes(4096), Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), (await png()).subarray(0, 200)]) {
      expectError(await upload(me.api, me.userId, [avatarPart(data)]), 400, 'VALIDATION_ERROR');
    }
    const row = await t.database.db.selectFrom('user_avatars').select('etag').where('tenant', '=', tenant).where('user_id', '=', me.userId).executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it('accepts files up to 2 MB and refuses larger ones with 413', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const big = await noisePng(1_500_000);
    expect(big.length).toBeGreaterThan(1_048_576); // over the JSON body limit, under the avatar limit
    expect(big.length).toBeLessThan(2 * 1_048_576);
    const ok = await upload(me.api, me.userId, [avatarPart(big)]);
    expect(ok.statusCode, ok.body).toBe(200);
    const huge = await noisePng(3 * 1_048_576);
    expect(huge.length).toBeGreaterThan(3 * 1_000_000);
    const res = await upload(me.api, me.userId, [avatarPart(huge)]);
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.json().error.details.limit_bytes).toBe(2 * 1_048_576);
  });

  it('wants exactly one file field named avatar (400), as multipart/form-data (415)', async () => {
    const { tenant } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const image = await png();
    for (const parts of [
      [] as Part[],
      [{ name: 'photo', data: image, filename: 'me.png', type: 'image/png' }],
      [{ name: 'note', data: 'hello' }, avatarPart(image)],
      [avatarPart(image), avatarPart(image)],
      [avatarPart(Buffer.alloc(0))],
    ]) {
      expectError(await upload(me.api, me.userId, parts), 400, 'VALIDATION_ERROR');
    }
    const json = await me.api.post(`/api/v1/users/${me.userId}/avatar`, { avatar: image.toString('base64') });
    expectError(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const raw = await me.api.request({ method: 'POST', url: `/api/v1/users/${me.userId}/avatar`, payload: image, headers: { 'content-type': 'image/png' } });
    expectError(raw, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const broken = await me.api.request({ method: 'POST', url: `/api/v1/users/${me.userId}/avatar`, payload: 'not multipart at all', headers: { 'content-type': 'multipart/form-data; boundary=xyz' } });
    expect(broken.statusCode, broken.body).toBe(400);
  });

  it('multipart is understood by the avatar route only: everywhere else it stays a 415', async () => {
    const { tenant, admin } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    const { payload, contentType } = await formBody([{ name: 'username', data: 'x' }]);
    for (const url of ['/api/v1/users', '/api/v1/clients', `/api/v1/users/${me.userId}/preferences`]) {
      const method = url.endsWith('preferences') ? 'PUT' : 'POST';
      expectError(await admin.request({ method, url, payload, headers: { 'content-type': contentType } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('your own avatar needs no permission; someone else’s needs user:update; 401, 404 for unknown and foreign users', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const me = await makeUser(t, a.tenant, {});
    const image = await png();
    const denied = await upload(me.api, a.adminUserId, [avatarPart(image)]);
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details.required).toEqual(['user:update']);
    const byAdmin = await upload(a.admin, me.userId, [avatarPart(image)]);
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
    expect((await activityOf(t, a.tenant, me.userId)).at(-1)).toMatchObject({ actor_user_id: a.adminUserId, details: { avatar: 'set' } });
    expectError(await upload(anonymous(t), me.userId, [avatarPart(image)]), 401, 'UNAUTHORIZED');
    expectError(await upload(a.admin, randomId(), [avatarPart(image)]), 404, 'NOT_FOUND');
    expectError(await upload(b.admin, me.userId, [avatarPart(image)]), 404, 'NOT_FOUND');
    // The checks come before the body: a non-image from a stranger is still a 404, not a 400.
    expectError(await upload(b.admin, me.userId, [avatarPart(randomBytes(64))]), 404, 'NOT_FOUND');
    expectError(await b.admin.post(`/api/v1/users/${me.userId}/avatar`, {}), 404, 'NOT_FOUND');
  });
});

describe('GET and DELETE /api/v1/users/{id}/avatar', () => {
  it('serves the image with ETag and private caching, 304 when unchanged, and 404 when there is none', async () => {
    const { tenant, admin } = await makeTenant(t);
    const me = await makeUser(t, tenant, {});
    expectError(await me.api.get(`/api/v1/users/${me.userId}/avatar`), 404, 'NOT_FOUND');
    const set = await upload(me.api, me.userId, [avatarPart(await png())]);
    const url = set.json().data.image as string;
    const first = await admin.get(url);
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toMatch(/^private/);
    const again = await admin.get(`/api/v1/users/${me.userId}/avatar`, { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await admin.get(`/api/v1/users/${me.userId}`)).json().data.image).toBe(url);
  });

  it('reading another user’s avatar needs user:read and stays inside the tenant and the portal client', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const me = await makeUser(t, a.tenant, {});
    await upload(a.admin, a.adminUserId, [avatarPart(await png())]);
    const url = `/api/v1/users/${a.adminUserId}/avatar`;
    expectError(await me.api.get(url), 403, 'FORBIDDEN');
    expect((await (await makeUser(t, a.tenant, { role: 'Viewer' })).api.get(url)).statusCode).toBe(200);
    expectError(await b.admin.get(url), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`/api/v1/users/${randomId()}/avatar`), 404, 'NOT_FOUND');
    expectError(await anonymous(t).get(url), 401, 'UNAUTHORIZED');
    expectError(await a.admin.get(`${url}?v=${'x'.repeat(101)}`), 400, 'VALIDATION_ERROR');
    const client = await makeClientRecord(a.admin);
    const portal = await makeUser(t, a.tenant, { role: await makeRole(t, a.tenant, ['user:read'], { clientPortal: true }), userType: 'client', clientId: client });
    expectError(await portal.api.get(url), 404, 'NOT_FOUND');
  });

  it('DELETE removes the avatar (204), clears the user’s image and records it; If-Match is checked against the image ETag', async () => {
    const { tenant, admin, adminUserId } = await makeTenant(t);
    const user = await createUser(admin);
    const url = `/api/v1/users/${user.user_id}/avatar`;
    await upload(admin, user.user_id, [avatarPart(await png())]);
    const etag = String((await admin.get(url)).headers.etag);
    expectError(await admin.delete(url, { 'if-match': '"other"' }), 412, 'PRECONDITION_FAILED');
    const res = await admin.delete(url, { 'if-match': etag });
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expect((await admin.get(`/api/v1/users/${user.user_id}`)).json().data.image).toBeNull();
    expectError(await admin.get(url), 404, 'NOT_FOUND');
    expectError(await admin.delete(url), 404, 'NOT_FOUND');
    expect((await activityOf(t, tenant, user.user_id)).at(-1)).toMatchObject({ activity_type: 'profile_update', actor_user_id: adminUserId, details: { avatar: 'removed' } });
    expect((await userEvents(t, tenant, user.user_id)).map((e) => e.payload.changed_fields ?? null)).toEqual([null, ['image'], ['image']]);
  });

  it('DELETE: yours without permission, others need user:update; 401, 404 for unknown and foreign users', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const me = await makeUser(t, a.tenant, {});
    await upload(me.api, me.userId, [avatarPart(await png())]);
    await upload(a.admin, a.adminUserId, [avatarPart(await png())]);
    expectError(await me.api.delete(`/api/v1/users/${a.adminUserId}/avatar`), 403, 'FORBIDDEN');
    expectError(await anonymous(t).delete(`/api/v1/users/${me.userId}/avatar`), 401, 'UNAUTHORIZED');
    expectError(await b.admin.delete(`/api/v1/users/${me.userId}/avatar`), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(`/api/v1/users/${randomId()}/avatar`), 404, 'NOT_FOUND');
    expect((await me.api.delete(`/api/v1/users/${me.userId}/avatar`)).statusCode).toBe(204);
  });
});
