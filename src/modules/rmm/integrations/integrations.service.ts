import type { Kysely, Updateable } from 'kysely';
import { performance } from 'node:perf_hooks';
import type { Actor } from '../../../platform/auth/context.ts';
import type { SecretBox } from '../../../platform/crypto/secret-box.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { RmmIntegrationsTable } from '../../../platform/db/schema.rmm.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { listPage, pageOfArray } from '../../../platform/http/list.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { UnsafeTargetError, type OutboundClient } from '../../../platform/net/outbound-http.ts';
import type { RmmProvider } from '../providers/provider.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { failureOf, toApiError } from '../rmm.errors.ts';
import { RMM_EVENTS, emitIntegrationEvent } from '../rmm.events.ts';
import { connectionOf, last4, sealCredentials } from './credentials.ts';
import { toIntegration } from './integrations.mapper.ts';
import {
  deleteIntegration,
  findIntegrationRow,
  insertIntegration,
  integrationList,
  integrationRowOf,
  linkedDevices,
  nameTaken,
  updateIntegration,
  type IntegrationRow,
} from './integrations.repo.ts';
import type { CreateIntegrationBody, Integration, ListDevicesQuery, ListIntegrationsQuery, TestOutcome, UpdateIntegrationBody } from './integrations.schemas.ts';

export interface RmmDeps {
  db: Kysely<DB>;
  secretBox: SecretBox;
  /** The SSRF-guarded client: vets base URLs at save time and carries every provider call. */
  client: OutboundClient;
  providers: ProviderRegistry;
}

export async function requireIntegration(db: Executor, tenant: string, integrationId: string, lock = false): Promise<IntegrationRow> {
  const row = await findIntegrationRow(db, tenant, integrationId, lock);
  if (!row) throw notFound('RMM integration', integrationId);
  return row;
}

export function providerOf(providers: ProviderRegistry, row: { provider: string }): RmmProvider {
  const provider = providers.get(row.provider);
  // Only a provider removed from the registry after rows were saved can get here.
  if (!provider) throw conflict(`The RMM provider '${row.provider}' is no longer supported`);
  return provider;
}

/** http(s), no credentials, query or fragment; trailing slashes dropped so paths join cleanly. */
function checkBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw validation('body.base_url', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validation('body.base_url', 'must use http or https');
  if (url.username || url.password) throw validation('body.base_url', 'must not contain credentials');
  if (url.search || url.hash) throw validation('body.base_url', 'must not contain a query or fragment');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export function createIntegrationsService(deps: RmmDeps) {
  const { db, secretBox, client, providers } = deps;

  async function vet(url: string): Promise<void> {
    try {
      await client.vet(url);
    } catch (err) {
      if (err instanceof UnsafeTargetError) throw unprocessable(`The RMM base URL may not be used: ${err.message}`, { reason: 'unsafe_target' });
      throw err;
    }
  }

  async function assertNameFree(trx: Executor, tenant: string, name: string, exceptId?: string): Promise<void> {
    if (await nameTaken(trx, tenant, name, exceptId)) throw conflict(`An RMM integration named '${name}' already exists`);
  }

  return {
    async list(actor: Actor, query: ListIntegrationsQuery) {
      const filter = { provider: query.provider, isActive: query.is_active };
      return listPage(query, integrationList(db, actor.tenant, filter), (rows) => rows.map((r) => toIntegration(integrationRowOf(r))));
    },

    async get(actor: Actor, id: string): Promise<Integration> {
      return toIntegration(await requireIntegration(db, actor.tenant, id));
    },

    async create(actor: Actor, body: CreateIntegrationBody): Promise<Integration> {
      const name = requiredText(body.name, 'body.name');
      const baseUrl = checkBaseUrl(body.base_url);
      const apiKey = requiredText(body.api_key, 'body.api_key');
      await vet(baseUrl);
      return withTransaction(db, async (trx) => {
        await assertNameFree(trx, actor.tenant, name);
        const integrationId = newId();
        const now = new Date();
        await insertIntegration(trx, {
          tenant: actor.tenant,
          integration_id: integrationId,
          provider: body.provider,
          name,
          base_url: baseUrl,
          credentials_enc: sealCredentials(secretBox, apiKey),
          api_key_last4: last4(apiKey),
          is_active: body.is_active ?? true,
          created_at: now,
          updated_at: now,
        });
        await emitIntegrationEvent(trx, actor.tenant, RMM_EVENTS.integrationCreated, integrationId, { name, provider: body.provider });
        return toIntegration(await requireIntegration(trx, actor.tenant, integrationId));
      });
    },

    /** Partial update; a new api_key replaces the stored one (the old one is gone at once). */
    async update(actor: Actor, id: string, body: UpdateIntegrationBody, ifMatch?: string): Promise<Integration> {
      const name = body.name === undefined ? undefined : requiredText(body.name, 'body.name');
      const baseUrl = body.base_url === undefined ? undefined : checkBaseUrl(body.base_url);
      const apiKey = body.api_key === undefined ? undefined : requiredText(body.api_key, 'body.api_key');
      if (baseUrl !== undefined) await vet(baseUrl);
      return withTransaction(db, async (trx) => {
        const row = await requireIntegration(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toIntegration(row));
        const set: Updateable<RmmIntegrationsTable> = {};
        const changed: string[] = [];
        if (name !== undefined && name !== row.name) {
          await assertNameFree(trx, actor.tenant, name, id);
          set.name = name;
          changed.push('name');
        }
        if (baseUrl !== undefined && baseUrl !== row.base_url) {
          set.base_url = baseUrl;
          changed.push('base_url');
        }
        if (apiKey !== undefined) {
          set.credentials_enc = sealCredentials(secretBox, apiKey);
          set.api_key_last4 = last4(apiKey);
          changed.push('api_key');
        }
        if (body.is_active !== undefined && body.is_active !== row.is_active) {
          set.is_active = body.is_active;
          changed.push('is_active');
        }
        if (changed.length === 0) return toIntegration(row);
        await updateIntegration(trx, actor.tenant, id, { ...set, updated_at: new Date() });
        await emitIntegrationEvent(trx, actor.tenant, RMM_EVENTS.integrationUpdated, id, { changed_fields: changed });
        return toIntegration(await requireIntegration(trx, actor.tenant, id));
      });
    },

    /** Refused while assets are linked through it: unlink them first, so no asset silently loses its device. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const row = await requireIntegration(trx, actor.tenant, id, true);
        assertIfMatch(ifMatch, toIntegration(row));
        if (row.linked_asset_count > 0) {
          throw conflict(`The RMM integration is linked to ${row.linked_asset_count} asset(s); unlink them first`, { linked_assets: row.linked_asset_count });
        }
        await deleteIntegration(trx, actor.tenant, id);
        await emitIntegrationEvent(trx, actor.tenant, RMM_EVENTS.integrationDeleted, id, { name: row.name });
      });
    },

    /** One authenticated call to the provider; a failure is reported in the outcome, not as an error. */
    async test(actor: Actor, id: string): Promise<TestOutcome> {
      const row = await requireIntegration(db, actor.tenant, id);
      const provider = providerOf(providers, row);
      const conn = connectionOf(secretBox, row);
      const started = performance.now();
      try {
        const { device_count } = await provider.testConnection(conn);
        return { ok: true, latency_ms: Math.round(performance.now() - started), device_count, reason: null, message: null, upstream_status: null };
      } catch (err) {
        const f = failureOf(err);
        if (f.reason === 'internal') throw err;
        return { ok: false, latency_ms: Math.round(performance.now() - started), device_count: null, ...f };
      }
    },

    /** The provider's devices (fetched live, paged here), each marked with the asset it is linked to. */
    async devices(actor: Actor, id: string, query: ListDevicesQuery) {
      const row = await requireIntegration(db, actor.tenant, id);
      if (!row.is_active) throw conflict('The RMM integration is inactive; activate it to list its devices');
      const provider = providerOf(providers, row);
      let devices;
      try {
        devices = await provider.listDevices(connectionOf(secretBox, row));
      } catch (err) {
        throw toApiError(err, row.provider);
      }
      const linked = await linkedDevices(db, actor.tenant, id);
      const needle = query.search?.toLowerCase();
      const rows = devices
        .map((d) => ({ ...d, linked_asset_id: linked.get(d.device_id) ?? null }))
        .filter((d) => !needle || [d.hostname, d.client_name, d.site_name].some((v) => v?.toLowerCase().includes(needle)))
        .filter((d) => !query.status || d.status === query.status)
        .filter((d) => query.linked === undefined || (d.linked_asset_id !== null) === query.linked)
        .sort((a, b) => a.hostname.localeCompare(b.hostname) || a.device_id.localeCompare(b.device_id));
      return pageOfArray(query, rows);
    },
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;
