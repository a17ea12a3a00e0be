import { expect } from 'vitest';
import { newId } from '../src/platform/ids.ts';
import type { TestApp } from './harness.ts';
import { unique, type Api } from './factories.ts';
import type { FakeTacticalRmm } from './fakes/tactical-rmm-server.ts';

/** The private-address exemption the fake RMM server (on 127.0.0.1) needs. */
export const RMM_TEST_ENV = { PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' };

/**
 * An asset row written directly, so the RMM tests depend only on the asset tables, not on the asset
 * API's rules. The asset type is the built-in `workstation` (created here if this tenant lacks it).
 */
export async function insertAsset(t: TestApp, tenant: string, clientId: string): Promise<string> {
  const { db } = t.database;
  await db
    .insertInto('asset_types')
    .values({ tenant, slug: 'workstation', type_name: 'Workstation', description: null, field_schema: '[]' })
    .onConflict((oc) => oc.columns(['tenant', 'slug']).doNothing())
    .execute();
  const assetId = newId();
  await db
    .insertInto('assets')
    .values({ tenant, asset_id: assetId, client_id: clientId, asset_type: 'workstation', asset_tag: unique('TAG'), name: 'Front desk PC', status: 'active' })
    .execute();
  return assetId;
}

export interface IntegrationJson {
  integration_id: string;
  provider: string;
  name: string;
  base_url: string;
  is_active: boolean;
  has_credentials: boolean;
  api_key_last4: string;
  linked_asset_count: number;
  created_at: string;
  updated_at: string;
}

export async function makeIntegration(api: Api, server: FakeTacticalRmm, body: Record<string, unknown> = {}): Promise<IntegrationJson> {
  const res = await api.post('/api/v1/rmm/integrations', { provider: 'tactical_rmm', name: unique('Tactical'), base_url: server.url, api_key: server.apiKey, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as IntegrationJson;
}

export async function linkAsset(api: Api, assetId: string, integrationId: string, deviceId: string): Promise<Record<string, unknown>> {
  const res = await api.put(`/api/v1/assets/${assetId}/rmm`, { integration_id: integrationId, device_id: deviceId });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Record<string, unknown>;
}

export interface HistoryJson {
  entry_type: string;
  command: string | null;
  description: string | null;
  performed_by: string | null;
  details: Record<string, unknown>;
}

/** The asset's RMM command history, oldest first, read from the table. */
export async function rmmHistory(t: TestApp, tenant: string, assetId: string): Promise<HistoryJson[]> {
  const rows = await t.database.db
    .selectFrom('asset_history')
    .select(['entry_type', 'command', 'description', 'performed_by', 'details'])
    .where('tenant', '=', tenant)
    .where('asset_id', '=', assetId)
    .where('entry_type', '=', 'rmm_command')
    .orderBy('history_id', 'asc')
    .execute();
  return rows.map((r) => ({ ...r, details: (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as Record<string, unknown> }));
}

/** A complete neutral device, as a link's cache holds it (for fixtures written directly). */
export function sampleDevice(deviceId: string, hostname: string): Record<string, unknown> {
  return {
    device_id: deviceId,
    hostname,
    description: null,
    status: 'online',
    os: 'Windows 11 Pro',
    platform: 'windows',
    make_model: null,
    last_seen: new Date().toISOString(),
    boot_time: null,
    public_ip: null,
    local_ips: [],
    cpu: [],
    memory_gb: 16,
    disks: [],
    logged_in_user: null,
    client_name: null,
    site_name: null,
    agent_version: '2.8.0',
    needs_reboot: false,
  };
}
