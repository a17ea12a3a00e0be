import type { Transaction, Updateable } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { AssetsTable } from '../../platform/db/schema.assets.ts';
import type { DB } from '../../platform/db/schema.ts';
import { conflict, notFound, validation } from '../../platform/http/errors.ts';
import { optionalText, requiredText } from '../../platform/http/text.ts';
import { newId } from '../../platform/ids.ts';
import { assertNotMerged, canSeeClient, findClientRow } from '../clients/index.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import { ASSET_EVENTS, emitAssetEvent, emitAssetUpdated, type AssetChanges } from './assets.events.ts';
import { findAssetIdByTag, findAssetView, insertAsset, updateAsset, type AssetViewRow } from './assets.repo.ts';
import type { CreateAssetBody, UpdateAssetBody } from './assets.schemas.ts';
import { warrantyStatusOf } from './assets.warranty.ts';
import { documentIdsOfAsset, syncDocuments } from './documents/documents.sync.ts';
import { checkAttributes } from './types/attributes.ts';
import { fieldsOf, findAssetType } from './types/types.repo.ts';

/** The asset's client: visible to the actor (else 400 naming the field) and not a merge tombstone (409). */
async function checkClient(trx: Transaction<DB>, actor: Actor, clientId: string, path: string): Promise<void> {
  const client = canSeeClient(actor, clientId) ? await findClientRow(trx, actor.tenant, clientId, 'share') : undefined;
  if (!client) throw validation(path, `no client '${clientId}'`);
  assertNotMerged(client);
}

async function checkedAttributes(trx: Transaction<DB>, tenant: string, slug: string, attributes: Record<string, unknown>, path: string): Promise<Record<string, unknown>> {
  const type = await findAssetType(trx, tenant, slug);
  if (!type) throw validation(path.replace(/attributes$/, 'asset_type'), `no asset type '${slug}'`);
  return checkAttributes(fieldsOf(type), attributes, slug, path);
}

async function assertTagFree(trx: Transaction<DB>, tenant: string, tag: string, self?: string): Promise<void> {
  const existing = await findAssetIdByTag(trx, tenant, tag);
  if (existing && existing !== self) throw conflict(`Asset tag '${tag}' is already used (tags are unique regardless of case)`, { asset_id: existing });
}

export async function viewOf(trx: Transaction<DB>, tenant: string, assetId: string): Promise<AssetViewRow> {
  const row = await findAssetView(trx, tenant, assetId);
  if (!row) throw notFound('Asset', assetId);
  return row;
}

/** Creates one asset with its event and index entry, in the caller's transaction. */
export async function createAssetIn(trx: Transaction<DB>, actor: Actor, body: CreateAssetBody, publicUrl: string, path = 'body'): Promise<AssetViewRow> {
  const tag = requiredText(body.asset_tag, `${path}.asset_tag`);
  const name = requiredText(body.name, `${path}.name`);
  await checkClient(trx, actor, body.client_id, `${path}.client_id`);
  const attributes = await checkedAttributes(trx, actor.tenant, body.asset_type, body.attributes ?? {}, `${path}.attributes`);
  await assertTagFree(trx, actor.tenant, tag);
  const assetId = newId();
  const now = new Date();
  await insertAsset(trx, {
    tenant: actor.tenant,
    asset_id: assetId,
    client_id: body.client_id,
    asset_type: body.asset_type,
    asset_tag: tag,
    name,
    status: body.status,
    serial_number: optionalText(body.serial_number) ?? null,
    location: optionalText(body.location) ?? null,
    manufacturer: optionalText(body.manufacturer) ?? null,
    model: optionalText(body.model) ?? null,
    purchase_date: body.purchase_date ?? null,
    warranty_end_date: body.warranty_end_date ?? null,
    attributes: JSON.stringify(attributes),
    notes: null,
    notes_updated_at: null,
    created_at: now,
    updated_at: now,
  });
  const row = await viewOf(trx, actor.tenant, assetId);
  await emitAssetEvent(trx, row, publicUrl, ASSET_EVENTS.created);
  await syncSearch(trx, actor.tenant, 'asset', [assetId]);
  return row;
}

const TEXT_FIELDS = ['serial_number', 'location', 'manufacturer', 'model'] as const;

/** Attribute values are flat; jsonb returns keys in its own order, so compare with keys sorted. */
const canonical = (o: Record<string, unknown>): string => JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));

/**
 * Applies a partial update to a locked, visible asset: checks references, the tag and the attributes
 * (against the new type when it changes), writes only what differs, and emits asset.updated with
 * `changes`. A no-op changes nothing and emits nothing. Returns the asset as it is afterwards.
 */
export async function updateAssetIn(trx: Transaction<DB>, actor: Actor, current: AssetViewRow, body: UpdateAssetBody, publicUrl: string, path = 'body'): Promise<AssetViewRow> {
  const next: Record<string, unknown> = {};
  if (body.client_id !== undefined) next.client_id = body.client_id;
  if (body.asset_type !== undefined) next.asset_type = body.asset_type;
  if (body.asset_tag !== undefined) next.asset_tag = requiredText(body.asset_tag, `${path}.asset_tag`);
  if (body.name !== undefined) next.name = requiredText(body.name, `${path}.name`);
  if (body.status !== undefined) next.status = body.status;
  for (const f of TEXT_FIELDS) if (body[f] !== undefined) next[f] = optionalText(body[f]);
  if (body.purchase_date !== undefined) next.purchase_date = body.purchase_date;
  if (body.warranty_end_date !== undefined) next.warranty_end_date = body.warranty_end_date;

  const changes: AssetChanges = {};
  for (const [k, v] of Object.entries(next)) {
    const prev = current[k as keyof AssetViewRow];
    if (v !== prev) changes[k] = { previous: prev, new: v };
  }
  const typeChanged = 'asset_type' in changes;
  if (body.attributes !== undefined || typeChanged) {
    const slug = (next.asset_type as string | undefined) ?? current.asset_type;
    const attributes = await checkedAttributes(trx, actor.tenant, slug, body.attributes ?? current.attributes, `${path}.attributes`);
    if (canonical(attributes) !== canonical(current.attributes)) changes.attributes = { previous: current.attributes, new: attributes };
  }
  if (Object.keys(changes).length === 0) return current;

  if ('client_id' in changes) await checkClient(trx, actor, changes.client_id!.new as string, `${path}.client_id`);
  if ('asset_tag' in changes) await assertTagFree(trx, actor.tenant, changes.asset_tag!.new as string, current.asset_id);

  const set: Updateable<AssetsTable> = { updated_at: new Date() };
  for (const [k, c] of Object.entries(changes)) {
    (set as Record<string, unknown>)[k] = k === 'attributes' ? JSON.stringify(c.new) : c.new;
  }
  await updateAsset(trx, actor.tenant, current.asset_id, set);
  const row = await viewOf(trx, actor.tenant, current.asset_id);
  if ('client_id' in changes) changes.client_name = { previous: current.client_name, new: row.client_name };
  const [before, after] = [warrantyStatusOf(current.warranty_end_date), warrantyStatusOf(row.warranty_end_date)];
  if (before !== after) changes.warranty_status = { previous: before, new: after };
  await emitAssetUpdated(trx, row, publicUrl, changes);
  await syncSearch(trx, actor.tenant, 'asset', [current.asset_id]);
  if ('client_id' in changes || 'name' in changes || 'asset_tag' in changes) {
    await syncDocuments(trx, actor.tenant, await documentIdsOfAsset(trx, actor.tenant, current.asset_id));
  }
  return row;
}
