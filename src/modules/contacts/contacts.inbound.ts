import { defineAction, externalIdField, pick, type InboundAction } from '../../platform/actions/action.ts';
import { bodyChecker, found, requireMapped, upsertByExternalId } from '../../platform/actions/support.ts';
import { validation } from '../../platform/http/errors.ts';
import type { ClientsService } from '../clients/index.ts';
import { CreateContactBody, UpdateContactBody } from './contacts.schemas.ts';
import type { ContactsService } from './contacts.service.ts';

const CONTACT_FIELDS = ['full_name', 'email', 'phone', 'role', 'is_inactive', 'client_id'] as const;

export function upsertContactByExternalId(contacts: ContactsService, clients: Pick<ClientsService, 'get'>): InboundAction {
  const checkCreate = bodyChecker(CreateContactBody);
  const checkUpdate = bodyChecker(UpdateContactBody);
  return defineAction(
    {
      name: 'upsert_contact_by_external_id',
      entity_type: 'contact',
      display_name: 'Create or update a contact by external id',
      description: 'Updates the contact mapped to external_id, or creates it and records the mapping. The client may be named by client_id or by the external id of an upserted client. Emits contact.created or contact.updated.',
      permissions: ['contact:create', 'contact:update'],
      target_fields: [
        externalIdField(true, 'contact'),
        { name: 'full_name', type: 'string', required: true, max_length: 255, description: 'The contact\'s name' },
        { name: 'email', type: 'string', required: false, max_length: 254, nullable: true, description: 'E-mail address' },
        { name: 'phone', type: 'string', required: false, max_length: 50, nullable: true, description: 'Phone number' },
        { name: 'role', type: 'string', required: false, max_length: 100, nullable: true, description: 'Job role' },
        { name: 'is_inactive', type: 'boolean', required: false, description: 'Whether the contact is inactive' },
        { name: 'client_id', type: 'ref', ref_entity: 'client', required: false, nullable: true, description: 'The contact\'s client (null detaches it)' },
        { name: 'client_external_id', type: 'string', required: false, max_length: 255, description: 'The client by its external id (instead of client_id); an unknown one fails the delivery' },
      ],
    },
    async (ctx, input) => {
      const externalId = input.external_id as string;
      const fields = pick(input, CONTACT_FIELDS);
      if (input.client_external_id !== undefined) {
        if (input.client_id !== undefined) throw validation('client_external_id', 'map either client_id or client_external_id, not both');
        fields.client_id = await requireMapped(ctx, 'client', input.client_external_id as string, (id) => found(() => clients.get(ctx.actor, id)));
      }
      const createBody = checkCreate(fields);
      const updateBody = checkUpdate(fields);
      const { entityId, operation } = await upsertByExternalId(ctx, 'contact', externalId, {
        exists: (id) => found(() => contacts.get(ctx.actor, id)),
        update: async (id) => void (await contacts.update(ctx.actor, id, updateBody)),
        create: async () => (await contacts.create(ctx.actor, createBody)).contact_id,
      });
      return { action: 'upsert_contact_by_external_id', entity_type: 'contact', entity_id: entityId, external_id: externalId, operation };
    },
  );
}
