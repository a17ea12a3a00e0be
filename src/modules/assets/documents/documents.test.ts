import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser, type Api, type Res } from '../../../../test/factories.ts';
import { anonymous, expectError, randomId } from '../../../../test/client-factories.ts';
import { makeAsset } from '../../../../test/asset-factories.ts';
import { formBody, type Part } from '../../../../test/multipart.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

async function upload(api: Api, assetId: string, parts: Part[]): Promise<Res> {
  const { payload, contentType } = await formBody(parts);
  return api.request({ method: 'POST', url: `/api/v1/assets/${assetId}/documents`, payload, headers: { 'content-type': contentType } });
}

const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(2000)]);
const filePart = (data: Buffer = pdf, type = 'application/pdf', filename = 'warranty.pdf'): Part => ({ name: 'file', data, type, filename });

describe('asset documents', () => {
  it('uploads a file, lists it, downloads the same bytes, links it to another asset by id, detaches', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const res = await upload(admin, asset.asset_id, [filePart(), { name: 'notes', data: 'Signed copy' }]);
    expect(res.statusCode, res.body).toBe(201);
    const doc = res.json().data;
    expect(doc).toMatchObject({ asset_id: asset.asset_id, file_name: 'warranty.pdf', mime_type: 'application/pdf', size_bytes: pdf.length, sha256: createHash('sha256').update(pdf).digest('hex'), notes: 'Signed copy' });
    expect(doc.content_url).toBe(`/api/v1/assets/documents/${doc.association_id}/content`);
    const row = await t.database.db.selectFrom('documents').select(['size_bytes', 'uploaded_by']).where('tenant', '=', tenant).where('document_id', '=', doc.document_id).executeTakeFirstOrThrow();
    expect(row.size_bytes).toBe(pdf.length);
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/documents`)).json().data).toEqual([doc]);
    const file = await admin.get(doc.content_url);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(file.headers['content-disposition']).toContain('warranty.pdf');
    expect(file.rawPayload.equals(pdf)).toBe(true);

    const other = await makeAsset(admin, { client_id: asset.client_id });
    const linked = await admin.post(`/api/v1/assets/${other.asset_id}/documents`, { document_id: doc.document_id });
    expect(linked.statusCode, linked.body).toBe(201);
    expect(linked.json().data).toMatchObject({ document_id: doc.document_id, asset_id: other.asset_id, notes: null });
    expectError(await admin.post(`/api/v1/assets/${other.asset_id}/documents`, { document_id: doc.document_id }), 409, 'CONFLICT');
    expect((await admin.delete(`/api/v1/assets/documents/${doc.association_id}`)).statusCode).toBe(204);
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/documents`)).json().data).toEqual([]);
    expectError(await admin.get(doc.content_url), 404, 'NOT_FOUND');
    // The document itself stays, still linked to the other asset.
    expect((await admin.get(linked.json().data.content_url)).rawPayload.equals(pdf)).toBe(true);
  });

  it('413 over 10 MiB, 415 for other types or mislabelled content, 400 for malformed uploads and bodies', async () => {
    const { admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const big = Buffer.concat([Buffer.from('%PDF-'), Buffer.alloc(10 * 1024 * 1024)]);
    expectError(await upload(admin, asset.asset_id, [filePart(big)]), 413, 'PAYLOAD_TOO_LARGE');
    expectError(await upload(admin, asset.asset_id, [filePart(Buffer.from('<script>'), 'text/html', 'x.html')]), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await upload(admin, asset.asset_id, [filePart(Buffer.from('not a pdf'), 'application/pdf')]), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await upload(admin, asset.asset_id, [{ name: 'other', data: pdf, filename: 'a.pdf', type: 'application/pdf' }]), 400, 'VALIDATION_ERROR');
    expectError(await upload(admin, asset.asset_id, [filePart(Buffer.alloc(0), 'text/plain', 'empty.txt')]), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`/api/v1/assets/${asset.asset_id}/documents`, { document_id: 'nope' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post(`/api/v1/assets/${asset.asset_id}/documents`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.request({ method: 'POST', url: `/api/v1/assets/${asset.asset_id}/documents`, payload: 'x', headers: { 'content-type': 'text/plain' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const ok = await upload(admin, asset.asset_id, [filePart(Buffer.from('a,b\n1,2\n'), 'text/csv', '../../etc/passwd.csv')]);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().data.file_name).toBe('passwd.csv');
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/documents`)).json().data).toHaveLength(1);
  });

  it('401, 403 (read-only keys cannot attach or detach), 404 for unknown and foreign assets, documents and associations', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin);
    const doc = (await upload(admin, asset.asset_id, [filePart()])).json().data;
    expectError(await anonymous(t).get(`/api/v1/assets/${asset.asset_id}/documents`), 401, 'UNAUTHORIZED');
    const viewer = await makeUser(t, tenant, { role: 'Viewer' });
    expect((await viewer.api.get(doc.content_url)).statusCode).toBe(200);
    expectError(await upload(viewer.api, asset.asset_id, [filePart()]), 403, 'FORBIDDEN');
    expectError(await viewer.api.post(`/api/v1/assets/${asset.asset_id}/documents`, { document_id: doc.document_id }), 403, 'FORBIDDEN');
    expectError(await viewer.api.delete(`/api/v1/assets/documents/${doc.association_id}`), 403, 'FORBIDDEN');
    const finance = await makeUser(t, tenant, { role: 'Finance' });
    expectError(await finance.api.get(doc.content_url), 403, 'FORBIDDEN');
    expectError(await admin.post(`/api/v1/assets/${asset.asset_id}/documents`, { document_id: randomId() }), 404, 'NOT_FOUND');
    expectError(await upload(admin, randomId(), [filePart()]), 404, 'NOT_FOUND');
    const other = await makeTenant(t);
    const theirs = await makeAsset(other.admin);
    expectError(await other.admin.post(`/api/v1/assets/${theirs.asset_id}/documents`, { document_id: doc.document_id }), 404, 'NOT_FOUND');
    expectError(await other.admin.get(doc.content_url), 404, 'NOT_FOUND');
    expectError(await other.admin.delete(`/api/v1/assets/documents/${doc.association_id}`), 404, 'NOT_FOUND');
    expectError(await upload(other.admin, asset.asset_id, [filePart()]), 404, 'NOT_FOUND');
    expect((await admin.get(`/api/v1/assets/${asset.asset_id}/documents`)).json().data).toHaveLength(1);
  });

  it('indexes documents for search: one client keeps it theirs, several clients make it internal, detaching updates it', async () => {
    const { tenant, admin } = await makeTenant(t);
    const asset = await makeAsset(admin, { name: 'Core switch' });
    const doc = (await upload(admin, asset.asset_id, [filePart(pdf, 'application/pdf', 'switch-manual.pdf')])).json().data;
    const row = () => t.database.db.selectFrom('search_documents').selectAll().where('tenant', '=', tenant).where('object_type', '=', 'document').where('object_id', '=', doc.document_id).executeTakeFirst();
    expect(await row()).toMatchObject({ title: 'switch-manual.pdf', client_id: asset.client_id, is_internal: false, required_permission: 'asset:read', url: `/assets/${asset.asset_id}/documents` });
    expect((await row())!.body).toContain('Core switch');
    const elsewhere = await makeAsset(admin);
    const link = (await admin.post(`/api/v1/assets/${elsewhere.asset_id}/documents`, { document_id: doc.document_id })).json().data;
    expect(await row()).toMatchObject({ client_id: null, is_internal: true });
    expect((await admin.delete(`/api/v1/assets/documents/${link.association_id}`)).statusCode).toBe(204);
    expect(await row()).toMatchObject({ client_id: asset.client_id, is_internal: false });
    expect((await admin.put(`/api/v1/assets/${asset.asset_id}`, { name: 'Edge switch' })).statusCode).toBe(200);
    expect((await row())!.body).toContain('Edge switch');
    expect((await admin.delete(`/api/v1/assets/${asset.asset_id}`)).statusCode).toBe(204);
    expect(await row()).toMatchObject({ client_id: null, is_internal: true, url: `/documents/${doc.document_id}` });
  });
});
