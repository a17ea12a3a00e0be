import { expect } from 'vitest';
import type { TestApp } from './harness.ts';
import { makeClient } from './client-factories.ts';
import { unique, type Api } from './factories.ts';

/** Shared helpers for the asset suites: assets made through the API, and raw look-ups. */

export interface AssetJson {
  asset_id: string;
  client_id: string;
  client_name: string;
  asset_type: string;
  asset_tag: string;
  name: string;
  status: string;
  serial_number: string | null;
  location: string | null;
  manufacturer: string | null;
  model: string | null;
  purchase_date: string | null;
  warranty_end_date: string | null;
  warranty_status: string;
  attributes: Record<string, unknown>;
  notes_updated_at: string | null;
  created_at: string;
  updated_at: string;
}

export async function makeAsset(api: Api, body: Record<string, unknown> = {}): Promise<AssetJson> {
  const clientId = (body.client_id as string | undefined) ?? (await makeClient(api)).client_id;
  const res = await api.post('/api/v1/assets', { asset_type: 'workstation', asset_tag: unique('TAG'), name: unique('Asset'), status: 'active', ...body, client_id: clientId });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as AssetJson;
}

/** A date `days` from today (UTC), YYYY-MM-DD. */
export const daysFromToday = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

export async function assetRow(t: TestApp, tenant: string, assetId: string) {
  return t.database.db.selectFrom('assets').selectAll().where('tenant', '=', tenant).where('asset_id', '=', assetId).executeTakeFirst();
}

export async function searchDoc(t: TestApp, tenant: string, assetId: string) {
  return t.database.db.selectFrom('search_documents').selectAll().where('tenant', '=', tenant).where('object_type', '=', 'asset').where('object_id', '=', assetId).executeTakeFirst();
}
