import { defineAction, externalIdField, pick, type InboundAction } from '../../platform/actions/action.ts';
import { bodyChecker, found, upsertByExternalId } from '../../platform/actions/support.ts';
import { BILLING_CYCLES, CLIENT_TYPES, CreateClientBody, UpdateClientBody } from './clients.schemas.ts';
import type { ClientsService } from './clients.service.ts';

const CLIENT_FIELDS = ['client_name', 'billing_cycle', 'client_type', 'default_currency_code', 'payment_terms', 'tax_id_number', 'client_since', 'is_inactive'] as const;

export function upsertClientByExternalId(clients: ClientsService): InboundAction {
  const checkCreate = bodyChecker(CreateClientBody);
  const checkUpdate = bodyChecker(UpdateClientBody);
  return defineAction(
    {
      name: 'upsert_client_by_external_id',
      entity_type: 'client',
      display_name: 'Create or update a client by external id',
      description: 'Updates the client mapped to external_id, or creates it (with its default billing profile) and records the mapping. Emits client.created or client.updated.',
      permissions: ['client:create', 'client:update'],
      target_fields: [
        externalIdField(true, 'client'),
        { name: 'client_name', type: 'string', required: true, max_length: 255, description: 'Unique per tenant, case-insensitively' },
        { name: 'billing_cycle', type: 'enum', required: false, enum_values: BILLING_CYCLES, description: 'Default on creation: monthly' },
        { name: 'client_type', type: 'enum', required: false, enum_values: CLIENT_TYPES, description: 'company or individual (default company)' },
        { name: 'default_currency_code', type: 'string', required: false, max_length: 3, description: 'ISO 4217 (default USD)' },
        { name: 'payment_terms', type: 'string', required: false, max_length: 100, nullable: true, description: 'Free text' },
        { name: 'tax_id_number', type: 'string', required: false, max_length: 255, nullable: true, description: 'Tax ID' },
        { name: 'client_since', type: 'string', required: false, max_length: 10, nullable: true, description: 'YYYY-MM-DD' },
        { name: 'is_inactive', type: 'boolean', required: false, description: 'Whether the client is inactive' },
      ],
    },
    async (ctx, input) => {
      const externalId = input.external_id as string;
      const fields = pick(input, CLIENT_FIELDS);
      // Both shapes are checked before anything is written.
      const createBody = checkCreate({ billing_cycle: 'monthly', ...fields });
      const updateBody = checkUpdate(fields);
      const { entityId, operation } = await upsertByExternalId(ctx, 'client', externalId, {
        exists: (id) => found(() => clients.get(ctx.actor, id)),
        update: async (id) => void (await clients.update(ctx.actor, id, updateBody)),
        create: async () => (await clients.create(ctx.actor, createBody)).client_id,
      });
      return { action: 'upsert_client_by_external_id', entity_type: 'client', entity_id: entityId, external_id: externalId, operation };
    },
  );
}
