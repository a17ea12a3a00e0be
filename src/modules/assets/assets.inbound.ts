import { defineAction, externalIdField, pick, type InboundAction } from '../../platform/actions/action.ts';
import { bodyChecker, found, requireMapped, upsertByExternalId } from '../../platform/actions/support.ts';
import { validation } from '../../platform/http/errors.ts';
import type { ClientsService } from '../clients/index.ts';
import { ASSET_STATUSES, CreateAssetBody, UpdateAssetBody } from './assets.schemas.ts';
import type { AssetsService } from './assets.service.ts';

const ASSET_FIELDS = [
  'client_id', 'asset_type', 'asset_tag', 'name', 'status', 'serial_number', 'location', 'manufacturer', 'model', 'purchase_date', 'warranty_end_date', 'attributes',
] as const;

export function upsertAssetByExternalId(assets: AssetsService, clients: Pick<ClientsService, 'get'>): InboundAction {
  const checkCreate = bodyChecker(CreateAssetBody);
  const checkUpdate = bodyChecker(UpdateAssetBody);
  return defineAction(
    {
      name: 'upsert_asset_by_external_id',
      entity_type: 'asset',
      display_name: 'Create or update an asset by external id',
      description: 'Updates the asset mapped to external_id, or creates it and records the mapping. The client may be named by client_id or by the external id of an upserted client; attributes are checked against the asset type. Emits asset.created or asset.updated.',
      permissions: ['asset:create', 'asset:update'],
      target_fields: [
        externalIdField(true, 'asset'),
        { name: 'asset_tag', type: 'string', required: true, max_length: 255, description: 'Unique per tenant, case-insensitively' },
        { name: 'name', type: 'string', required: true, max_length: 255, description: 'The asset\'s name' },
        { name: 'asset_type', type: 'string', required: false, max_length: 63, description: 'Asset type slug (required on creation)' },
        { name: 'status', type: 'enum', required: false, enum_values: ASSET_STATUSES, description: 'Default on creation: active' },
        { name: 'client_id', type: 'ref', ref_entity: 'client', required: false, description: 'The asset\'s client (required on creation, or client_external_id)' },
        { name: 'client_external_id', type: 'string', required: false, max_length: 255, description: 'The client by its external id (instead of client_id); an unknown one fails the delivery' },
        { name: 'serial_number', type: 'string', required: false, max_length: 255, nullable: true, description: 'Serial number' },
        { name: 'location', type: 'string', required: false, max_length: 255, nullable: true, description: 'Where the asset is' },
        { name: 'manufacturer', type: 'string', required: false, max_length: 255, nullable: true, description: 'Manufacturer' },
        { name: 'model', type: 'string', required: false, max_length: 255, nullable: true, description: 'Model' },
        { name: 'purchase_date', type: 'string', required: false, max_length: 10, nullable: true, description: 'YYYY-MM-DD' },
        { name: 'warranty_end_date', type: 'string', required: false, max_length: 10, nullable: true, description: 'YYYY-MM-DD' },
        { name: 'attributes', type: 'json', required: false, description: 'Values for the asset type\'s field schema (replaces the whole set)' },
      ],
    },
    async (ctx, input) => {
      const externalId = input.external_id as string;
      const fields = pick(input, ASSET_FIELDS);
      if (input.client_external_id !== undefined) {
        if (input.client_id !== undefined) throw validation('client_external_id', 'map either client_id or client_external_id, not both');
        fields.client_id = await requireMapped(ctx, 'client', input.client_external_id as string, (id) => found(() => clients.get(ctx.actor, id)));
      }
      // Updates may carry only some fields; creation needs the full shape, checked before its write.
      const updateBody = checkUpdate(fields);
      const { entityId, operation } = await upsertByExternalId(ctx, 'asset', externalId, {
        exists: (id) => found(() => assets.get(ctx.actor, id)),
        update: async (id) => void (await assets.update(ctx.actor, id, updateBody)),
        create: async () => (await assets.create(ctx.actor, checkCreate({ status: 'active', ...fields }))).asset_id,
      });
      return { action: 'upsert_asset_by_external_id', entity_type: 'asset', entity_id: entityId, external_id: externalId, operation };
    },
  );
}
