import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './harness.ts';
import { makeTenant, makeUser, type Api, type TenantFixture } from './factories.ts';
import { emitEvent, fanOut, ticketData } from './webhooks-kit.ts';
import { insertAsset, sampleDevice } from './rmm-kit.ts';
import { newId } from '../src/platform/ids.ts';

/**
 * Every by-id route under /api/v1, called by tenant B with tenant A's ids, answers 404 and changes
 * nothing. Routes are discovered from the app, so a new by-id route without a fixture here fails.
 */
let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let ids: Record<string, string>;

async function created(res: Awaited<ReturnType<Api['post']>>, field: string): Promise<string> {
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data[field];
}

beforeAll(async () => {
  t = await buildTestApp();
  a = await makeTenant(t);
  b = await makeTenant(t);
  const client = await created(await a.admin.post('/api/v1/clients', { client_name: 'Isolated Co', billing_cycle: 'monthly' }), 'client_id');
  const location = await created(
    await a.admin.post(`/api/v1/clients/${client}/locations`, { country_code: 'US', country_name: 'United States', address_line1: '1 Main St' }),
    'location_id',
  );
  const profiles = await a.admin.get(`/api/v1/clients/${client}/billing-profiles`);
  const contact = await created(await a.admin.post('/api/v1/contacts', { full_name: 'Ada Isolated', client_id: client }), 'contact_id');
  const apiKey = await created(await a.admin.post('/api/v1/api-keys', { name: 'isolated' }), 'id');
  const user = (await makeUser(t, a.tenant, { role: 'Technician' })).userId;
  const role = await created(await a.admin.post('/api/v1/roles', { role_name: 'Isolated role', permissions: ['ticket:read'] }), 'role_id');
  const team = await created(await a.admin.post('/api/v1/teams', { team_name: 'Isolated team', member_ids: [user] }), 'team_id');
  const roles = await a.admin.get('/api/v1/roles?limit=100');
  const viewer = roles.json().data.find((r: { role_name: string }) => r.role_name === 'Viewer').role_id;
  const stored = await a.admin.put('/api/v1/storage/namespaces/iso/records/k', { value: 'tenant A' });
  expect(stored.statusCode, stored.body).toBe(201);
  ids = { namespace: 'iso', key: 'k', client, location, profile: profiles.json().data[0].billing_profile_id, contact, apiKey, user, role, team, viewer };
  const board = await created(await a.admin.post('/api/v1/boards', { board_name: 'Isolated board' }), 'board_id');
  const boardStatus = (await a.admin.get(`/api/v1/boards/${board}/statuses`)).json().data[0].status_id;
  const priority = await created(await a.admin.post('/api/v1/priorities', { priority_name: 'Isolated priority' }), 'priority_id');
  const category = await created(await a.admin.post('/api/v1/categories', { category_name: 'Isolated category' }), 'category_id');
  const ticketRes = await a.admin.post('/api/v1/tickets', { title: 'Isolated ticket', client_id: client, tags: ['isolated'] });
  const ticket = await created(ticketRes, 'ticket_id');
  const closed = (await a.admin.get(`/api/v1/boards/${ticketRes.json().data.board_id}/statuses?is_closed=true`)).json().data[0].status_id;
  const comment = await created(await a.admin.post(`/api/v1/tickets/${ticket}/comments`, { comment_text: 'Isolated comment' }), 'comment_id');
  Object.assign(ids, { board, boardStatus, priority, category, ticket, ticketClosedStatus: closed, comment, tag: 'isolated' });
});
// Outbound webhooks: tenant A's webhook and one of its deliveries (abandoned, so a retry would succeed for A).
beforeAll(async () => {
  const res = await a.admin.post('/api/v1/webhooks', { name: 'Isolated hook', url: 'https://93.184.215.14/hook', event_types: ['ticket.updated'] });
  const webhook = await created(res, 'webhook_id');
  const eventId = await emitEvent(t, a.tenant, 'ticket.updated', { data: ticketData() });
  await fanOut(t);
  const delivery = await t.database.db.updateTable('webhook_deliveries').set({ status: 'abandoned', next_attempt_at: null })
    .where('tenant', '=', a.tenant).where('webhook_id', '=', webhook).where('event_id', '=', eventId).returning('delivery_id').executeTakeFirstOrThrow();
  Object.assign(ids, { webhook, webhookSecret: res.json().data.secret, delivery: delivery.delivery_id });
});
// Inbound webhooks: tenant A's configuration and one of its deliveries (a test run, replayable).
beforeAll(async () => {
  const res = await a.admin.post('/api/v1/inbound-webhooks', { name: 'Isolated inbound', slug: 'isolated-inbound', auth_type: 'hmac_sha256', handler_type: 'workflow', handler_config: {} });
  const inboundWebhook = await created(res, 'inbound_webhook_id');
  const inboundDelivery = await created(await a.admin.post(`/api/v1/inbound-webhooks/${inboundWebhook}/test`, { body: { isolated: true } }), 'delivery_id');
  Object.assign(ids, { inboundWebhook, inboundSecret: res.json().data.secret, inboundDelivery });
});
// RMM: tenant A's integration (a public address, so saving needs no exemption) and an asset linked to one of its devices.
beforeAll(async () => {
  const res = await a.admin.post('/api/v1/rmm/integrations', { provider: 'tactical_rmm', name: 'Isolated RMM', base_url: 'https://93.184.215.14', api_key: 'isolated-rmm-key-0001' });
  const rmmIntegration = await created(res, 'integration_id');
  const rmmAsset = await insertAsset(t, a.tenant, ids.client!);
  await t.database.db.insertInto('asset_rmm_links').values({
    tenant: a.tenant,
    asset_id: rmmAsset,
    integration_id: rmmIntegration,
    external_device_id: 'IsolatedAgentxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    agent_status: 'online',
    device_data: JSON.stringify(sampleDevice('IsolatedAgentxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'ISOLATED-PC')),
    software: JSON.stringify([{ name: 'Isolated App', version: '1.0', publisher: null, installed_on: null, size: null, location: null }]),
    last_synced_at: new Date(),
  }).execute();
  Object.assign(ids, { rmmIntegration, rmmAsset });
});
// Project templates (under /api/projects) and a project-ticket link: tenant A's template, and its ticket linked to a project.
beforeAll(async () => {
  const template = await created(await a.admin.post('/api/projects/templates', { template_name: 'Isolated template', phases: [{ phase_name: 'Isolated phase', tasks: [{ task_name: 'Isolated task' }] }] }), 'template_id');
  const linkedProject = await created(await a.admin.post('/api/v1/projects', { project_name: 'Isolated linked project', client_id: ids.client }), 'project_id');
  await created(await a.admin.post(`/api/v1/projects/${linkedProject}/tickets`, { ticket_id: ids.ticket }), 'link_id');
  Object.assign(ids, { projectTemplate: template, linkedProject });
});
// Projects: tenant A's project with a phase, a task, a checklist item and a comment on the task.
beforeAll(async () => {
  const project = await created(await a.admin.post('/api/v1/projects', { project_name: 'Isolated project', client_id: ids.client }), 'project_id');
  const projectPhase = await created(await a.admin.post(`/api/v1/projects/${project}/phases`, { phase_name: 'Isolated phase' }), 'phase_id');
  const projectTask = await created(await a.admin.post(`/api/v1/projects/${project}/phases/${projectPhase}/tasks`, { task_name: 'Isolated task' }), 'task_id');
  const checklistItem = await created(await a.admin.post(`/api/v1/projects/tasks/${projectTask}/checklist`, { item_name: 'Isolated item' }), 'checklist_item_id');
  const taskComment = await created(await a.admin.post(`/api/v1/projects/tasks/${projectTask}/comments`, { comment_text: 'Isolated task comment' }), 'comment_id');
  const projectStatus = (await a.admin.get('/api/v1/project-statuses')).json().data.find((x: { name: string }) => x.name === 'Active').status_id;
  Object.assign(ids, { project, projectPhase, projectTask, checklistItem, taskComment, projectStatus });
});
// Assets: tenant A's own asset type, two related assets with a schedule, a linked ticket and an attached document.
beforeAll(async () => {
  const assetType = 'isolated_type';
  await created(await a.admin.post('/api/v1/asset-types', { slug: assetType, type_name: 'Isolated type' }), 'slug');
  const asset = await created(await a.admin.post('/api/v1/assets', { client_id: ids.client, asset_type: assetType, asset_tag: 'ISO-1', name: 'Isolated asset', status: 'active' }), 'asset_id');
  const asset2 = await created(await a.admin.post('/api/v1/assets', { client_id: ids.client, asset_type: 'server', asset_tag: 'ISO-2', name: 'Isolated server', status: 'active' }), 'asset_id');
  const schedule = await created(await a.admin.post(`/api/v1/assets/${asset}/maintenance`, { schedule_name: 'Isolated schedule', maintenance_type: 'inspection', frequency: 'monthly', start_date: '2026-01-01' }), 'schedule_id');
  const relationship = await created(await a.admin.post(`/api/v1/assets/${asset}/relationships`, { related_asset_id: asset2, relationship_type: 'depends_on' }), 'relationship_id');
  await created(await a.admin.post(`/api/v1/assets/${asset}/tickets`, { ticket_id: ids.ticket }), 'ticket_id');
  const assetDocument = '01890000-0000-7000-8000-00000000d0c1';
  await t.database.db.insertInto('documents').values({ tenant: a.tenant, document_id: assetDocument, file_name: 'isolated.txt', mime_type: 'text/plain', size_bytes: 8, sha256: 'x', content: Buffer.from('isolated'), uploaded_by: null }).execute();
  const association = await created(await a.admin.post(`/api/v1/assets/${asset}/documents`, { document_id: assetDocument }), 'association_id');
  Object.assign(ids, { assetType, asset, asset2, schedule, relationship, assetDocument, association });
});
// Billing: tenant A's own service type, services and a product, a contract line carrying a service and
// attached to a contract, and a second line and service that could still be attached or added.
beforeAll(async () => {
  const serviceType = await created(await a.admin.post('/api/v1/service-types', { name: 'Isolated type' }), 'service_type_id');
  const item = { custom_service_type_id: serviceType, unit_of_measure: 'each', default_rate: 100 };
  const service = await created(await a.admin.post('/api/v1/services', { ...item, service_name: 'Isolated service', billing_method: 'fixed' }), 'service_id');
  const spareService = await created(await a.admin.post('/api/v1/services', { ...item, service_name: 'Isolated spare service', billing_method: 'fixed' }), 'service_id');
  const product = await created(await a.admin.post('/api/v1/products', { ...item, service_name: 'Isolated product' }), 'service_id');
  const line = { contract_line_type: 'fixed', billing_frequency: 'monthly', config: { base_rate_cents: 100 } };
  const contractLine = await created(await a.admin.post('/api/v1/contract-lines', { ...line, contract_line_name: 'Isolated line' }), 'contract_line_id');
  const spareLine = await created(await a.admin.post('/api/v1/contract-lines', { ...line, contract_line_name: 'Isolated spare line' }), 'contract_line_id');
  await created(await a.admin.post(`/api/v1/contract-lines/${contractLine}/services`, { service_id: service }), 'service_id');
  const contract = await created(await a.admin.post('/api/v1/contracts', { client_id: ids.client, contract_name: 'Isolated contract' }), 'contract_id');
  await created(await a.admin.post(`/api/v1/contracts/${contract}/contract-lines`, { contract_line_id: contractLine }), 'contract_id');
  const taxRate = await created(await a.admin.post('/api/v1/tax-rates', { name: 'Isolated tax', percentage: 7.25 }), 'tax_rate_id');
  const usageService = await created(await a.admin.post('/api/v1/services', { ...item, service_name: 'Isolated usage', billing_method: 'usage' }), 'service_id');
  const usage = await created(await a.admin.post('/api/v1/usage-records', { client_id: ids.client, service_id: usageService, quantity: 3 }), 'usage_id');
  Object.assign(ids, { serviceType, service, spareService, product, contractLine, spareLine, contract, taxRate, usage });
});
// Invoices: a draft with an item and a note, and a finalized invoice with a payment and a credit note.
beforeAll(async () => {
  const item = { description: 'Isolated work', quantity: 1, unit_price_cents: 1000 };
  const invoiceRes = await a.admin.post('/api/v1/invoices', { client_id: ids.client, items: [item] });
  const invoice = await created(invoiceRes, 'invoice_id');
  const invoiceItem = invoiceRes.json().data.items[0].item_id as string;
  const annotation = await created(await a.admin.post(`/api/v1/invoices/${invoice}/annotations`, { content: 'Isolated note' }), 'annotation_id');
  const finalInvoice = await created(await a.admin.post('/api/v1/invoices', { client_id: ids.client, items: [item] }), 'invoice_id');
  expect((await a.admin.post(`/api/v1/invoices/${finalInvoice}/finalize`)).statusCode).toBe(200);
  const payment = (await a.admin.post(`/api/v1/invoices/${finalInvoice}/payments`, { amount_cents: 100, method: 'cash' })).json().data.payment.payment_id as string;
  const creditNote = (await a.admin.post(`/api/v1/invoices/${finalInvoice}/credit-notes`, { amount_cents: 100, reason: 'Isolated' })).json().data.credit_note.credit_note_id as string;
  const quoteRes = await a.admin.post('/api/v1/quotes', { client_id: ids.client, title: 'Isolated quote', items: [{ ...item, is_recurring: true }] });
  const quote = await created(quoteRes, 'quote_id');
  const quoteItem = quoteRes.json().data.items[0].item_id as string;
  Object.assign(ids, { invoice, invoiceItem, annotation, finalInvoice, payment, creditNote, quote, quoteItem });
});
// Knowledge base: tenant A's category, template and an article with one revision.
beforeAll(async () => {
  const kbCategory = await created(await a.admin.post('/api/v1/kb-articles/categories', { name: 'Isolated kb category' }), 'category_id');
  const kbTemplate = await created(await a.admin.post('/api/v1/kb-articles/templates', { name: 'Isolated template', article_type: 'faq', content: '## Q' }), 'template_id');
  const kbArticle = await created(await a.admin.post('/api/v1/kb-articles', { title: 'Isolated article', category_id: kbCategory }), 'article_id');
  expect((await a.admin.put(`/api/v1/kb-articles/${kbArticle}/content`, { content: 'Isolated body' })).statusCode).toBe(200);
  Object.assign(ids, { kbCategory, kbTemplate, kbArticle });
});
// Opportunities: tenant A's deal with a step, evidence, a commitment, a linked quote, an interaction, a
// meeting session reviewing it and a pending suggestion.
beforeAll(async () => {
  const due = new Date(Date.now() + 86_400_000).toISOString();
  const oppRes = await a.admin.post('/api/v1/opportunities', { client_id: ids.client, title: 'Isolated deal', opportunity_type: 'new_logo', currency_code: 'USD', next_action: 'Isolated call', next_action_due: due });
  const opportunity = await created(oppRes, 'opportunity_id');
  const step = oppRes.json().data.current_step_id as string;
  const declared = await a.admin.post(`/api/v1/opportunities/${opportunity}/evidence`, { checkpoint: 'qualified' });
  expect(declared.statusCode, declared.body).toBe(201);
  const evidence = (await a.admin.get(`/api/v1/opportunities/${opportunity}/evidence`)).json().data[0].evidence_id as string;
  const commitment = await created(await a.admin.post(`/api/v1/opportunities/${opportunity}/commitments`, { description: 'Isolated promise' }), 'commitment_id');
  expect((await a.admin.post(`/api/v1/opportunities/${opportunity}/quotes/${ids.quote}/link`, {})).statusCode).toBe(200);
  const interaction = await created(await a.admin.post('/api/v1/interactions', { client_id: ids.client, interaction_type: 'call', title: 'Isolated interaction' }), 'interaction_id');
  const session = (await a.admin.post('/api/v1/opportunities/meeting-sessions', {})).json().data.session_id as string;
  const suggestion = newId();
  await t.database.db.insertInto('opportunity_suggestions')
    .values({ tenant: a.tenant, suggestion_id: suggestion, generator_key: 'renewal', client_id: ids.client!, title: 'Isolated suggestion', currency_code: 'USD', dedupe_key: 'isolated', mrr_cents: 0, nrr_cents: 0 }).execute();
  Object.assign(ids, { opportunity, step, evidence, commitment, interaction, session, suggestion });
});
// Automation: tenant A's manual rule, a template made from it and an execution of it.
beforeAll(async () => {
  const rule = await created(await a.admin.post('/api/v1/automation/rules', {
    name: 'Isolated rule', trigger_type: 'manual', trigger_config: {},
    actions: [{ type: 'add_ticket_comment', config: { ticket_id: '{{data.ticket_id}}', comment_text: 'Isolated automation' } }],
  }), 'rule_id');
  const automationTemplate = await created(await a.admin.post('/api/v1/automation/templates', { automation_rule_id: rule, template_name: 'Isolated automation template' }), 'template_id');
  const execution = newId();
  await t.database.db.insertInto('automation_executions')
    .values({ tenant: a.tenant, execution_id: execution, rule_id: rule, trigger_type: 'manual', trigger_key: 'manual:isolated', trigger_data: { event_type: 'manual', data: {}, trigger: {} }, status: 'failed', error_message: 'Isolated failure' }).execute();
  Object.assign(ids, { rule, automationTemplate, execution });
});
// Ledger: tenant A's connection (written directly: no ledger app is configured here), a mapping and a sync run.
beforeAll(async () => {
  const connection = newId();
  await t.database.db.insertInto('ledger_connections')
    .values({ tenant: a.tenant, connection_id: connection, provider: 'quickbooks_online', realm_id: 'isolated-realm', display_name: 'Isolated books', country: 'US', currency_code: 'USD', tokens_enc: t.app.secretBox.encrypt('{"access_token":"a","refresh_token":"r"}'), access_token_expires_at: new Date(Date.now() + 3600_000), refresh_token_expires_at: null, is_default: true, last_validated_at: null, last_refreshed_at: null, last_error: null, connected_by: null })
    .execute();
  const ledgerMapping = newId();
  await t.database.db.insertInto('ledger_mappings')
    .values({ tenant: a.tenant, mapping_id: ledgerMapping, connection_id: connection, entity_type: 'customer', local_id: ids.client!, external_id: '42', external_name: 'Isolated customer', metadata: '{}', last_synced_at: null })
    .execute();
  const ledgerSync = newId();
  await t.database.db.insertInto('ledger_sync_runs')
    .values({ tenant: a.tenant, sync_id: ledgerSync, connection_id: connection, operation_type: 'customer_sync', status: 'failed', parameters: '{}', parent_sync_id: null, requested_by: null, started_at: new Date(), completed_at: new Date(), error_message: 'Isolated failure' })
    .execute();
  Object.assign(ids, { ledgerMapping, ledgerSync });
});
afterAll(async () => t.close());

/** Which fixture fills a path parameter, by the collection it follows. */
function paramValue(url: string, name: string): string | undefined {
  if (name === 'locationId') return ids.location;
  if (name === 'profileId') return ids.profile;
  if (name === 'teamId') return ids.team;
  if (name === 'namespace') return ids.namespace;
  if (name === 'key') return ids.key;
  if (name === 'userId') return ids.user;
  if (name === 'deliveryId' && url.startsWith('/api/v1/webhooks/')) return ids.delivery;
  if (name === 'deliveryId' && url.startsWith('/api/v1/inbound-webhooks/')) return ids.inboundDelivery;
  if (name === 'categoryId' && url.startsWith('/api/v1/kb-articles/')) return ids.kbCategory;
  if (name === 'templateId' && url.startsWith('/api/v1/kb-articles/')) return ids.kbTemplate;
  if (name === 'templateId' && url.startsWith('/api/v1/automation/')) return ids.automationTemplate;
  if (name === 'mappingId') return ids.ledgerMapping;
  if (name === 'syncId') return ids.ledgerSync;
  if (name === 'ruleId') return ids.rule;
  if (name === 'executionId') return ids.execution;
  if (name === 'revision') return '1';
  if (name === 'boardId') return ids.board;
  if (name === 'statusId' && url.startsWith('/api/v1/project-statuses/')) return ids.projectStatus;
  if (name === 'statusId') return ids.boardStatus;
  if (name === 'priorityId') return ids.priority;
  if (name === 'categoryId') return ids.category;
  if (name === 'ticketId') return ids.ticket;
  if (name === 'commentId' && url.startsWith('/api/v1/projects/tasks/')) return ids.taskComment;
  if (name === 'commentId') return ids.comment;
  if (name === 'tag') return ids.tag;
  if (name === 'templateId') return ids.projectTemplate;
  if (name === 'integrationId') return ids.rmmIntegration;
  if (name === 'id' && /^\/api\/v1\/assets\/:id\/(rmm|software)/.test(url)) return ids.rmmAsset;
  if (name === 'phaseId') return ids.projectPhase;
  if (name === 'taskId') return ids.projectTask;
  if (name === 'itemId' && url.startsWith('/api/v1/projects/tasks/')) return ids.checklistItem;
  if (name === 'itemId' && url.startsWith('/api/v1/invoices/')) return ids.invoiceItem;
  if (name === 'itemId' && url.startsWith('/api/v1/quotes/')) return ids.quoteItem;
  if (name === 'annotationId') return ids.annotation;
  if (name === 'clientId') return ids.client;
  if (name === 'stepId') return ids.step;
  if (name === 'evidenceId') return ids.evidence;
  if (name === 'commitmentId') return ids.commitment;
  if (name === 'quoteId') return ids.quote;
  if (name === 'sessionId') return ids.session;
  if (name === 'suggestionId') return ids.suggestion;
  if (name === 'interactionId') return ids.interaction;
  if (name === 'id' && url.startsWith('/api/v1/projects/')) return ids.project;
  if (name === 'slug' && url.startsWith('/api/v1/asset-types/')) return ids.assetType;
  if (name === 'scheduleId') return ids.schedule;
  if (name === 'relationshipId') return ids.relationship;
  if (name === 'associationId') return ids.association;
  if (name === 'contractId') return ids.contract;
  if (name === 'contractLineId') return ids.contractLine;
  if (name === 'serviceId') return ids.service;
  if (name === 'id' && url.startsWith('/api/v1/assets/')) return ids.asset;
  if (name !== 'id') return undefined;
  const collection = url.split('/')[3];
  return { clients: ids.client, contacts: ids.contact, 'api-keys': ids.apiKey, users: ids.user, roles: ids.role, teams: ids.team, webhooks: ids.webhook, 'inbound-webhooks': ids.inboundWebhook, 'service-types': ids.serviceType, services: ids.service, products: ids.product, 'contract-lines': ids.contractLine, 'kb-articles': ids.kbArticle, 'tax-rates': ids.taxRate, 'usage-records': ids.usage, invoices: ids.invoice, payments: ids.payment, 'credit-notes': ids.creditNote, quotes: ids.quote, opportunities: ids.opportunity }[collection ?? ''];
}

/**
 * Storage names belong to the caller's own tenant: these routes address tenant B's namespace when B
 * calls them (a write creates B's own record, a list shows B's own), so a 404 is not the answer.
 * The last test checks that they never reach tenant A's record.
 */
const CALLER_SCOPED = new Set([
  'GET /api/v1/storage/namespaces/:namespace/records',
  'POST /api/v1/storage/namespaces/:namespace/records',
  'PUT /api/v1/storage/namespaces/:namespace/records/:key',
]);

/** A body that would succeed for tenant A, so a 404 can only come from the tenant boundary. */
const BODIES: Record<string, unknown | (() => unknown)> = {
  'PUT /api/v1/users/:id': { first_name: 'Hijacked' },
  'PUT /api/v1/users/:id/password': { new_password: 'Hijacked-Password-2026' },
  'PUT /api/v1/users/:id/preferences': { theme: 'hijacked' },
  'POST /api/v1/users/:id/avatar': {},
  'POST /api/v1/users/:id/roles': () => ({ role_ids: [ids.viewer] }),
  'PUT /api/v1/users/:id/roles': () => ({ role_ids: [ids.viewer] }),
  'PUT /api/v1/roles/:id': { description: 'Hijacked' },
  'PUT /api/v1/teams/:id': { team_name: 'Hijacked' },
  'POST /api/v1/teams/:id/members': () => ({ user_ids: [ids.user] }),
  'POST /api/v1/users/:id/teams': () => ({ team_id: ids.team }),
  'POST /api/v1/users/:id/2fa/enable': {},
  'PUT /api/v1/clients/:id': { client_name: 'Hijacked' },
  'POST /api/v1/clients/:id/locations': { country_code: 'GB', country_name: 'United Kingdom' },
  'PUT /api/v1/clients/:id/locations/:locationId': { city: 'Elsewhere' },
  'PUT /api/v1/clients/:id/notes': { notes: 'hijacked' },
  'PUT /api/v1/clients/:id/billing-profiles/:profileId/contacts': { contacts: [] },
  'PUT /api/v1/contacts/:id': { full_name: 'Hijacked' },
  'PUT /api/v1/webhooks/:id': { name: 'Hijacked', url: 'https://93.184.215.15/stolen' },
  'POST /api/v1/webhooks/:id/secret/rotate': {},
  'POST /api/v1/webhooks/:id/test': {},
  'POST /api/v1/webhooks/:id/deliveries/:deliveryId/retry': {},
  'PUT /api/v1/boards/:boardId': { board_name: 'Hijacked' },
  'POST /api/v1/boards/:boardId/statuses': { name: 'Hijacked' },
  'PUT /api/v1/boards/:boardId/statuses/:statusId': { name: 'Hijacked' },
  'PUT /api/v1/priorities/:priorityId': { priority_name: 'Hijacked' },
  'PUT /api/v1/categories/:categoryId': { category_name: 'Hijacked' },
  'PUT /api/v1/tickets/:ticketId': { title: 'Hijacked' },
  'PUT /api/v1/tickets/:ticketId/status': () => ({ status_id: ids.ticketClosedStatus }),
  'PUT /api/v1/tickets/:ticketId/assignment': { assigned_team_id: null },
  'POST /api/v1/tickets/:ticketId/comments': { comment_text: 'Hijacked' },
  'PUT /api/v1/tickets/:ticketId/tags': { tags: ['hijacked'] },
  'POST /api/v1/tickets/:ticketId/tags': { tag: 'hijacked' },
  'PUT /api/v1/inbound-webhooks/:id': { name: 'Hijacked' },
  'POST /api/v1/inbound-webhooks/:id/rotate-secret': {},
  'POST /api/v1/inbound-webhooks/:id/capture-sample': {},
  'POST /api/v1/inbound-webhooks/:id/test': { body: { hijacked: true } },
  'POST /api/v1/inbound-webhooks/:id/deliveries/:deliveryId/replay': {},
  'PATCH /api/projects/templates/:templateId': { template_name: 'Hijacked' },
  'POST /api/projects/templates/:templateId/apply': { project_name: 'Hijacked' },
  'POST /api/projects/templates/:templateId/duplicate': {},
  'POST /api/v1/projects/:id/tickets': () => ({ ticket_id: ids.ticket }),
  'PUT /api/v1/projects/:id': { project_name: 'Hijacked' },
  'PUT /api/v1/project-statuses/:statusId': { name: 'Hijacked' },
  'POST /api/v1/projects/:id/phases': { phase_name: 'Hijacked' },
  'PUT /api/v1/projects/:id/phases/:phaseId': { phase_name: 'Hijacked' },
  'POST /api/v1/projects/:id/phases/:phaseId/tasks': { task_name: 'Hijacked' },
  'PUT /api/v1/projects/tasks/:taskId': { task_name: 'Hijacked' },
  'POST /api/v1/projects/tasks/:taskId/checklist': { item_name: 'Hijacked' },
  'PUT /api/v1/projects/tasks/:taskId/checklist/:itemId': { item_name: 'Hijacked', completed: true },
  'POST /api/v1/projects/tasks/:taskId/comments': { comment_text: 'Hijacked' },
  'PUT /api/v1/projects/tasks/:taskId/comments/:commentId': { comment_text: 'Hijacked' },
  'POST /api/v1/projects/tasks/:taskId/comments/:commentId/reactions': { emoji: '👍' },
  'PUT /api/v1/rmm/integrations/:integrationId': { name: 'Hijacked', api_key: 'hijacked-key-0000' },
  'POST /api/v1/rmm/integrations/:integrationId/test': {},
  'PUT /api/v1/assets/:id/rmm': () => ({ integration_id: ids.rmmIntegration, device_id: 'HijackedAgent' }),
  'POST /api/v1/assets/:id/rmm/refresh': {},
  'POST /api/v1/assets/:id/rmm/reboot': {},
  'POST /api/v1/assets/:id/rmm/script': { script_id: 1 },
  'PUT /api/v1/asset-types/:slug': { type_name: 'Hijacked' },
  'PUT /api/v1/service-types/:id': { name: 'Hijacked' },
  'PUT /api/v1/services/:id': { service_name: 'Hijacked' },
  'PUT /api/v1/products/:id': { service_name: 'Hijacked' },
  'PUT /api/v1/contracts/:contractId': { contract_name: 'Hijacked' },
  'PUT /api/v1/tax-rates/:id': { name: 'Hijacked' },
  'PUT /api/v1/usage-records/:id': { quantity: 99 },
  'PUT /api/v1/clients/:id/tax-settings': { is_tax_exempt: true },
  'PUT /api/v1/invoices/:id': { po_number: 'Hijacked' },
  'POST /api/v1/invoices/:id/finalize': {},
  'POST /api/v1/invoices/:id/send': {},
  'POST /api/v1/invoices/:id/void': { reason: 'Hijacked' },
  'POST /api/v1/invoices/:id/items': { description: 'Hijacked', quantity: 1, unit_price_cents: 1 },
  'PUT /api/v1/invoices/:id/items/:itemId': { quantity: 9 },
  'POST /api/v1/invoices/:id/annotations': { content: 'Hijacked' },
  'PUT /api/v1/invoices/:id/annotations/:annotationId': { content: 'Hijacked' },
  'POST /api/v1/invoices/:id/payments': { amount_cents: 1, method: 'cash' },
  'POST /api/v1/invoices/:id/credit-notes': { amount_cents: 1, reason: 'Hijacked' },
  'POST /api/v1/invoices/:id/apply-credit': {},
  'POST /api/v1/clients/:id/merge/preview': () => ({ target_client_id: ids.client }),
  'POST /api/v1/clients/:id/merge': () => ({ target_client_id: ids.client }),
  'PUT /api/v1/quotes/:id': { title: 'Hijacked' },
  'POST /api/v1/quotes/:id/items': { description: 'Hijacked', quantity: 1, unit_price_cents: 100 },
  'PUT /api/v1/quotes/:id/items/:itemId': { quantity: 2 },
  'POST /api/v1/quotes/:id/send': {},
  'POST /api/v1/quotes/:id/accept': {},
  'POST /api/v1/quotes/:id/reject': { reason: 'Hijacked' },
  'POST /api/v1/quotes/:id/convert': { start_date: '2026-12-01' },
  'PUT /api/v1/kb-articles/:id': { title: 'Hijacked' },
  'PUT /api/v1/kb-articles/:id/content': { content: 'hijacked' },
  'POST /api/v1/kb-articles/:id/publish': {},
  'POST /api/v1/kb-articles/:id/archive': {},
  'PUT /api/v1/kb-articles/categories/:categoryId': { name: 'Hijacked' },
  'PUT /api/v1/kb-articles/templates/:templateId': { name: 'Hijacked' },
  'POST /api/v1/kb-articles/from-ticket/:ticketId': {},
  'POST /api/v1/contracts/:contractId/contract-lines': () => ({ contract_line_id: ids.spareLine }),
  'PUT /api/v1/contract-lines/:id': { contract_line_name: 'Hijacked' },
  'POST /api/v1/contract-lines/:id/services': () => ({ service_id: ids.spareService }),
  'PUT /api/v1/contract-lines/:id/services/:serviceId': { quantity: 5 },
  'PUT /api/v1/assets/:id': { name: 'Hijacked' },
  'PUT /api/v1/assets/:id/notes': { notes: 'hijacked' },
  'POST /api/v1/assets/:id/documents': () => ({ document_id: ids.assetDocument }),
  'POST /api/v1/assets/:id/maintenance': { schedule_name: 'Hijacked', maintenance_type: 'inspection', frequency: 'daily', start_date: '2026-01-01' },
  'POST /api/v1/assets/:id/maintenance/record': { maintenance_type: 'inspection' },
  'PUT /api/v1/assets/maintenance/:scheduleId': { schedule_name: 'Hijacked' },
  'POST /api/v1/assets/:id/relationships': () => ({ related_asset_id: ids.asset2, relationship_type: 'contains' }),
  'POST /api/v1/assets/:id/tickets': () => ({ ticket_id: ids.ticket }),
  'PUT /api/v1/opportunities/:id': { title: 'Hijacked' },
  'POST /api/v1/opportunities/:id/win': {},
  'POST /api/v1/opportunities/:id/lose': { loss_reason: 'price' },
  'POST /api/v1/opportunities/:id/complete-action': { next_action: 'Hijacked', next_action_due: '2030-01-01T00:00:00.000Z' },
  'POST /api/v1/opportunities/:id/steps/:stepId/complete': { next_action: 'Hijacked', next_action_due: '2030-01-01T00:00:00.000Z' },
  'POST /api/v1/opportunities/:id/evidence': { checkpoint: 'verbal' },
  'POST /api/v1/opportunities/:id/evidence/:evidenceId/correct': { correction_note: 'Hijacked' },
  'POST /api/v1/opportunities/:id/quotes/:quoteId/link': {},
  'POST /api/v1/opportunities/:id/quotes/:quoteId/unlink': {},
  'POST /api/v1/opportunities/:id/commitments': { description: 'Hijacked' },
  'PUT /api/v1/opportunities/:id/commitments/:commitmentId': { description: 'Hijacked' },
  'POST /api/v1/opportunities/meeting-sessions/:sessionId/reviews': () => ({ opportunity_id: ids.opportunity }),
  'POST /api/v1/opportunities/qbr/:clientId/opportunities': { trigger_keys: ['ticket_trend:x'] },
  'POST /api/v1/opportunities/suggestions/:suggestionId/accept': {},
  'POST /api/v1/opportunities/suggestions/:suggestionId/dismiss': {},
  'POST /api/v1/opportunities/suggestions/:suggestionId/snooze': { snoozed_until: '2030-01-01T00:00:00.000Z' },
  'PUT /api/v1/interactions/:interactionId': { title: 'Hijacked' },
  'PUT /api/v1/automation/rules/:ruleId': { name: 'Hijacked' },
  'POST /api/v1/automation/rules/:ruleId/signing-secret/rotate': {},
  'POST /api/v1/automation/rules/:ruleId/execute': () => ({ execution_data: { ticket_id: ids.ticket } }),
  'POST /api/v1/automation/templates/:templateId/use': {},
  'POST /api/v1/automation/executions/:executionId/retry': {},
  'PUT /api/v1/quickbooks/mappings/:mappingId': { external_name: 'Hijacked' },
  'POST /api/v1/payments/:id/reverse': { reason: 'Hijacked' },
  'POST /api/v1/quickbooks/sync/:syncId/cancel': {},
  'POST /api/v1/quickbooks/sync/:syncId/retry': {},
};

describe('tenant isolation', () => {
  it('tenant B gets 404 on every by-id route for tenant A’s records', async () => {
    const byId = t.app.routeTable.filter(
      // Project templates live outside /api/v1 (spec, Versioning) under the same API-key rules.
      (r) => (r.url.startsWith('/api/v1/') || r.url.startsWith('/api/projects/')) && r.url.includes(':') && r.method !== 'HEAD' && !CALLER_SCOPED.has(`${String(r.method)} ${r.url}`),
    );
    expect(byId.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const route of byId) {
      const method = String(route.method);
      const label = `${method} ${route.url}`;
      let missing = false;
      const url = route.url.replace(/:([A-Za-z]+)/g, (_, name: string) => {
        const v = paramValue(route.url, name);
        if (!v) missing = true;
        return v ?? 'x';
      });
      if (missing) {
        problems.push(`${label}: no fixture for its path parameters — add one to this suite`);
        continue;
      }
      const needsBody = method === 'PUT' || method === 'POST' || method === 'PATCH';
      if (needsBody && !(label in BODIES)) {
        problems.push(`${label}: no request body in BODIES — add one to this suite`);
        continue;
      }
      const body = BODIES[label];
      const payload = typeof body === 'function' ? body() : body;
      const res = await b.admin.request({ method: method as 'GET', url, ...(needsBody ? { payload: payload as object } : {}) });
      if (res.statusCode !== 404) problems.push(`${label}: expected 404 for another tenant, got ${res.statusCode} ${res.body.slice(0, 200)}`);
      else if (res.json().error.code !== 'NOT_FOUND') problems.push(`${label}: 404 without the NOT_FOUND envelope`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('tenant A’s records are untouched afterwards', async () => {
    const client = await a.admin.get(`/api/v1/clients/${ids.client}`);
    expect(client.statusCode).toBe(200);
    expect(client.json().data.client_name).toBe('Isolated Co');
    expect((await a.admin.get(`/api/v1/contacts/${ids.contact}`)).json().data.full_name).toBe('Ada Isolated');
    expect((await a.admin.get(`/api/v1/api-keys/${ids.apiKey}`)).statusCode).toBe(200);
    const user = await a.admin.get(`/api/v1/users/${ids.user}`);
    expect(user.json().data.first_name).not.toBe('Hijacked');
    expect(user.json().data.roles.map((r: { role_name: string }) => r.role_name)).toEqual(['Technician']);
    expect((await a.admin.get(`/api/v1/roles/${ids.role}`)).json().data.description).not.toBe('Hijacked');
    expect((await a.admin.get(`/api/v1/teams/${ids.team}`)).json().data.team_name).toBe('Isolated team');
    const locations = await a.admin.get(`/api/v1/clients/${ids.client}/locations`);
    expect(locations.json().data).toHaveLength(1);
    expect(locations.json().data[0].city).toBeNull();
  });

  it('tenant B’s lists never contain tenant A’s records', async () => {
    for (const url of ['/api/v1/clients', '/api/v1/contacts', '/api/v1/api-keys', '/api/v1/users', '/api/v1/roles', '/api/v1/teams', '/api/v1/user-roles', '/api/v1/users/activity']) {
      const res = await b.admin.get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).not.toContain(ids.client);
      expect(res.body).not.toContain(ids.contact);
      expect(res.body).not.toContain(ids.apiKey);
      for (const id of [ids.user, ids.role, ids.team]) expect(res.body).not.toContain(id);
    }
    const stats = await b.admin.get('/api/v1/clients/stats');
    expect(stats.json().data.total_clients).toBe(0);
  });

  it('tenant A’s catalogue is untouched, and tenant B’s billing lists never show it', async () => {
    expect((await a.admin.get(`/api/v1/service-types/${ids.serviceType}`)).json().data).toMatchObject({ name: 'Isolated type', item_count: 4 });
    expect((await a.admin.get(`/api/v1/services/${ids.service}`)).json().data.service_name).toBe('Isolated service');
    expect((await a.admin.get(`/api/v1/products/${ids.product}`)).json().data.service_name).toBe('Isolated product');
    for (const url of ['/api/v1/service-types', '/api/v1/services?item_kind=any', '/api/v1/products', `/api/v1/services?custom_service_type_id=${ids.serviceType}`]) {
      const res = await b.admin.get(url);
      expect(res.statusCode, url).toBe(200);
      for (const id of [ids.serviceType, ids.service, ids.product]) expect(res.body, url).not.toContain(id);
    }
    expect((await b.admin.get('/api/v1/services?item_kind=any')).json().pagination.total).toBe(0);
    const contract = (await a.admin.get(`/api/v1/contracts/${ids.contract}`)).json().data;
    expect(contract).toMatchObject({ contract_name: 'Isolated contract', contract_lines: [{ contract_line_id: ids.contractLine }] });
    expect((await a.admin.get(`/api/v1/contract-lines/${ids.contractLine}`)).json().data).toMatchObject({ contract_line_name: 'Isolated line', services: [{ service_id: ids.service, quantity: 1 }] });
    for (const url of ['/api/v1/contracts', '/api/v1/contract-lines', `/api/v1/contract-lines?contract_id=${ids.contract}`, '/api/v1/billing-analytics/overview']) {
      const res = await b.admin.get(url);
      expect(res.statusCode, url).toBe(200);
      for (const id of [ids.contract, ids.contractLine, ids.spareLine]) expect(res.body, url).not.toContain(id);
    }
    expect((await b.admin.get('/api/v1/billing-analytics/overview')).json().data.total_contracts).toBe(0);
    expect((await a.admin.get(`/api/v1/tax-rates/${ids.taxRate}`)).json().data).toMatchObject({ name: 'Isolated tax', percentage: 7.25 });
    expect((await a.admin.get(`/api/v1/clients/${ids.client}/tax-settings`)).json().data.is_tax_exempt).toBe(false);
    expect((await b.admin.get('/api/v1/tax-rates')).body).not.toContain(ids.taxRate);
    expect((await a.admin.get(`/api/v1/usage-records/${ids.usage}`)).json().data.quantity).toBe(3);
    const invoice = (await a.admin.get(`/api/v1/invoices/${ids.invoice}`)).json().data;
    expect(invoice).toMatchObject({ status: 'draft', po_number: null, total_cents: 1000 });
    expect(invoice.items.map((i: { description: string }) => i.description)).toEqual(['Isolated work']);
    expect((await a.admin.get(`/api/v1/invoices/${ids.finalInvoice}`)).json().data).toMatchObject({ status: 'partially_paid', amount_paid_cents: 100, credited_cents: 100, balance_cents: 800 });
    expect((await b.admin.get('/api/v1/invoices')).json().pagination.total).toBe(0);
    expect((await b.admin.get('/api/v1/payments')).json().pagination.total).toBe(0);
    expect((await b.admin.get('/api/v1/credit-notes')).json().pagination.total).toBe(0);
    expect((await a.admin.get(`/api/v1/quotes/${ids.quote}`)).json().data).toMatchObject({ title: 'Isolated quote', status: 'draft', total_cents: 1000 });
    expect((await b.admin.get('/api/v1/quotes')).json().pagination.total).toBe(0);
    expect((await b.admin.get('/api/v1/usage-records')).json().pagination.total).toBe(0);
  });

  it('tenant A’s knowledge base is untouched, and tenant B’s lists never show it', async () => {
    expect((await a.admin.get(`/api/v1/kb-articles/${ids.kbArticle}`)).json().data).toMatchObject({ title: 'Isolated article', status: 'draft', revision: 1 });
    expect((await a.admin.get(`/api/v1/kb-articles/${ids.kbArticle}/content`)).json().data.content).toBe('Isolated body');
    expect((await a.admin.get(`/api/v1/kb-articles/categories/${ids.kbCategory}`)).json().data.name).toBe('Isolated kb category');
    expect((await a.admin.get(`/api/v1/kb-articles/templates/${ids.kbTemplate}`)).json().data.name).toBe('Isolated template');
    for (const url of ['/api/v1/kb-articles', '/api/v1/kb-articles/categories', '/api/v1/kb-articles/templates', '/api/v1/search?query=isolated']) {
      const res = await b.admin.get(url);
      expect(res.statusCode, url).toBe(200);
      for (const id of [ids.kbArticle, ids.kbCategory, ids.kbTemplate]) expect(res.body, url).not.toContain(id);
    }
  });

  it('tenant A’s pipeline is untouched, and tenant B’s lists and reports never show it', async () => {
    const deal = (await a.admin.get(`/api/v1/opportunities/${ids.opportunity}`)).json().data;
    expect(deal).toMatchObject({ title: 'Isolated deal', status: 'open', stage: 'qualified', next_action: 'Isolated call', current_step_id: ids.step, open_commitment_count: 1 });
    expect(deal.linked_quotes.map((q: { quote_id: string }) => q.quote_id)).toEqual([ids.quote]);
    expect((await a.admin.get(`/api/v1/opportunities/${ids.opportunity}/evidence`)).json().data.map((e: { correction_note: string | null }) => e.correction_note)).toEqual([null]);
    expect((await a.admin.get(`/api/v1/interactions/${ids.interaction}`)).json().data.title).toBe('Isolated interaction');
    expect((await a.admin.get('/api/v1/opportunities/suggestions')).json().data.map((x: { suggestion_id: string; status: string }) => [x.suggestion_id, x.status])).toEqual([[ids.suggestion, 'pending']]);
    const urls = [
      '/api/v1/opportunities', '/api/v1/interactions', '/api/v1/opportunities/suggestions', '/api/v1/opportunities/work-queue', '/api/v1/opportunities/calibration',
      '/api/v1/opportunities/forecast?start=2026-01-01&end=2030-12-30', '/api/v1/opportunities/rollups?start=2026-01-01&end=2030-12-30', '/api/v1/opportunities/qbr/yield',
      '/api/v1/opportunities/meeting-sessions/active', '/api/v1/search?query=isolated',
    ];
    for (const url of urls) {
      const res = await b.admin.get(url);
      expect(res.statusCode, url).toBe(200);
      for (const id of [ids.opportunity, ids.interaction, ids.suggestion, ids.session, ids.client]) expect(res.body, url).not.toContain(id);
    }
  });

  it('tenant A’s automation is untouched, and tenant B’s lists and statistics never show it', async () => {
    expect((await a.admin.get(`/api/v1/automation/rules/${ids.rule}`)).json().data).toMatchObject({ name: 'Isolated rule', status: 'draft' });
    expect((await a.admin.get(`/api/v1/automation/executions/${ids.execution}`)).json().data).toMatchObject({ status: 'failed' });
    expect(await t.database.db.selectFrom('automation_executions').select('execution_id').where('tenant', '=', a.tenant).execute()).toHaveLength(1);
    for (const url of ['/api/v1/automation/rules', '/api/v1/automation/templates', '/api/v1/automation/executions', '/api/v1/automation/statistics']) {
      const res = await b.admin.get(url);
      expect(res.statusCode, url).toBe(200);
      for (const id of [ids.rule, ids.automationTemplate, ids.execution]) expect(res.body, url).not.toContain(id);
    }
    expect((await b.admin.get('/api/v1/automation/statistics')).json().data).toMatchObject({ total_rules: 0, total_executions: 0 });
  });

  it('tenant A’s tickets and ticket settings are untouched, and tenant B’s lists never show them', async () => {
    const ticket = (await a.admin.get(`/api/v1/tickets/${ids.ticket}`)).json().data;
    expect(ticket).toMatchObject({ title: 'Isolated ticket', tags: ['isolated'], is_closed: false, assigned_team_id: null });
    const comments = (await a.admin.get(`/api/v1/tickets/${ids.ticket}/comments`)).json();
    expect(comments.data.map((c: { comment_text: string }) => c.comment_text)).toEqual(['Isolated comment']);
    expect((await a.admin.get(`/api/v1/boards/${ids.board}`)).json().data.board_name).toBe('Isolated board');
    expect((await a.admin.get(`/api/v1/boards/${ids.board}/statuses`)).json().pagination.total).toBe(3);
    expect((await a.admin.get(`/api/v1/priorities/${ids.priority}`)).json().data.priority_name).toBe('Isolated priority');
    expect((await a.admin.get(`/api/v1/categories/${ids.category}`)).json().data.category_name).toBe('Isolated category');
    for (const url of ['/api/v1/tickets', '/api/v1/boards', '/api/v1/priorities', '/api/v1/categories', `/api/v1/tickets?client_id=${ids.client}`, '/api/v1/tickets?tag=isolated']) {
      const res = await b.admin.get(url);
      expect(res.statusCode, url).toBe(200);
      for (const id of [ids.ticket, ids.board, ids.priority, ids.category, ids.client]) expect(res.body, url).not.toContain(id);
    }
    expect((await b.admin.get('/api/v1/tickets')).json().pagination.total).toBe(0);
  });

  it('tenant A’s webhook, its secret and deliveries are untouched; tenant B’s lists never show them', async () => {
    const hook = await a.admin.get(`/api/v1/webhooks/${ids.webhook}`);
    expect(hook.json().data).toMatchObject({ name: 'Isolated hook', url: 'https://93.184.215.14/hook', is_active: true });
    const row = await t.database.db.selectFrom('webhooks').select('secret_enc').where('tenant', '=', a.tenant).where('webhook_id', '=', ids.webhook!).executeTakeFirstOrThrow();
    expect(t.app.secretBox.decrypt(row.secret_enc)).toBe(ids.webhookSecret);
    const deliveries = await a.admin.get(`/api/v1/webhooks/${ids.webhook}/deliveries`);
    expect(deliveries.json().data.find((d: { delivery_id: string }) => d.delivery_id === ids.delivery)).toMatchObject({ status: 'abandoned' });
    expect(deliveries.json().data.filter((d: { status: string }) => d.status === 'pending')).toEqual([]);
    const list = await b.admin.get('/api/v1/webhooks');
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([]);
  });

  it('tenant A’s inbound webhook, its secret and deliveries are untouched; tenant B reaches none of it', async () => {
    const hook = (await a.admin.get(`/api/v1/inbound-webhooks/${ids.inboundWebhook}`)).json().data;
    expect(hook).toMatchObject({ name: 'Isolated inbound', sample_capture_pending: false });
    const row = await t.database.db.selectFrom('inbound_webhooks').select('secret_enc').where('tenant', '=', a.tenant).where('inbound_webhook_id', '=', ids.inboundWebhook!).executeTakeFirstOrThrow();
    expect(t.app.secretBox.decrypt(row.secret_enc!)).toBe(ids.inboundSecret);
    const deliveries = (await a.admin.get(`/api/v1/inbound-webhooks/${ids.inboundWebhook}/deliveries`)).json().data;
    expect(deliveries.map((d: { delivery_id: string }) => d.delivery_id)).toEqual([ids.inboundDelivery]);
    const list = await b.admin.get('/api/v1/inbound-webhooks');
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([]);
    // B's tenant slug with A's webhook slug is no receiver.
    const received = await t.app.inject({ method: 'POST', url: `/api/inbound/${b.slug}/isolated-inbound`, headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(received.statusCode).toBe(404);
  });

  it('storage writes and lists by tenant B stay in tenant B', async () => {
    const url = `/api/v1/storage/namespaces/${ids.namespace}/records`;
    expect((await b.admin.get(url)).json().data.items).toEqual([]);
    const conditional = await b.admin.put(`${url}/${ids.key}`, { value: 'B', ifRevision: 1 });
    expect(conditional.statusCode).toBe(409);
    expect(conditional.json().error.details.current_revision).toBeNull();
    expect((await b.admin.put(`${url}/${ids.key}`, { value: 'B' })).statusCode).toBe(201);
    expect((await b.admin.post(url, { items: [{ key: ids.key, value: 'B2' }] })).statusCode).toBe(200);
    const mine = await a.admin.get(`${url}/${ids.key}`);
    expect(mine.json().data).toMatchObject({ value: 'tenant A', revision: 1 });
  });

  it('tenant A’s RMM integration, its key and the asset link are untouched; tenant B’s lists never show them', async () => {
    const integration = (await a.admin.get(`/api/v1/rmm/integrations/${ids.rmmIntegration}`)).json().data;
    expect(integration).toMatchObject({ name: 'Isolated RMM', is_active: true, linked_asset_count: 1, api_key_last4: '0001' });
    const row = await t.database.db.selectFrom('rmm_integrations').select('credentials_enc').where('tenant', '=', a.tenant).where('integration_id', '=', ids.rmmIntegration!).executeTakeFirstOrThrow();
    expect(JSON.parse(t.app.secretBox.decrypt(row.credentials_enc))).toEqual({ api_key: 'isolated-rmm-key-0001' });
    const link = (await a.admin.get(`/api/v1/assets/${ids.rmmAsset}/rmm`)).json().data;
    expect(link).toMatchObject({ integration_id: ids.rmmIntegration, device_id: 'IsolatedAgentxxxxxxxxxxxxxxxxxxxxxxxxxxx', device: { hostname: 'ISOLATED-PC' } });
    const history = await t.database.db.selectFrom('asset_history').select('history_id').where('tenant', '=', a.tenant).where('asset_id', '=', ids.rmmAsset!).execute();
    expect(history).toEqual([]);
    const list = await b.admin.get('/api/v1/rmm/integrations');
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([]);
  });

  it('tenant A’s project template and project-ticket link are untouched; tenant B’s lists never show them', async () => {
    const template = (await a.admin.get(`/api/projects/templates/${ids.projectTemplate}`)).json().data;
    expect(template).toMatchObject({ template_name: 'Isolated template', use_count: 0, task_count: 1 });
    expect((await a.admin.get('/api/projects/templates')).json().pagination.total).toBe(1);
    const links = (await a.admin.get(`/api/v1/projects/${ids.linkedProject}/tickets`)).json().data;
    expect(links.map((l: { ticket_id: string }) => l.ticket_id)).toEqual([ids.ticket]);
    for (const url of ['/api/projects/templates', '/api/projects/templates/categories', '/api/projects', '/api/v1/projects/export?format=json', '/api/v1/projects/search?query=Isolated']) {
      const res = await b.admin.get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).not.toContain(ids.projectTemplate);
      expect(res.body, url).not.toContain(ids.linkedProject);
    }
    expect((await b.admin.get('/api/v1/projects/stats')).json().data.total_projects).toBe(0);
    const bStatus = (await b.admin.get('/api/v1/project-statuses')).json().data[0].status_id;
    const bulk = await b.admin.put('/api/v1/projects/bulk-update', { project_ids: [ids.linkedProject], fields: { project_name: 'Hijacked' } });
    expect(bulk.statusCode).toBe(404);
    expect((await b.admin.put('/api/v1/projects/bulk-status', { project_ids: [ids.linkedProject], status_id: bStatus })).statusCode).toBe(404);
    expect((await a.admin.get(`/api/v1/projects/${ids.linkedProject}`)).json().data.project_name).toBe('Isolated linked project');
  });
});

describe('tenant isolation: projects', () => {
  it('tenant A’s project, phase, task, checklist and comment are untouched, and tenant B’s lists never show them', async () => {
    expect((await a.admin.get(`/api/v1/projects/${ids.project}`)).json().data).toMatchObject({ project_name: 'Isolated project', phase_count: 1, task_count: 1 });
    expect((await a.admin.get(`/api/v1/projects/${ids.project}/phases`)).json().data.map((p: { phase_name: string }) => p.phase_name)).toEqual(['Isolated phase']);
    expect((await a.admin.get(`/api/v1/projects/tasks/${ids.projectTask}`)).json().data).toMatchObject({ task_name: 'Isolated task', checklist_total: 1, checklist_completed: 0 });
    const comments = (await a.admin.get(`/api/v1/projects/tasks/${ids.projectTask}/comments`)).json().data;
    expect(comments.map((c: { comment_text: string; reactions: unknown[] }) => [c.comment_text, c.reactions])).toEqual([['Isolated task comment', []]]);
    const res = await b.admin.get('/api/v1/projects');
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(ids.project);
    expect((await a.admin.get(`/api/v1/project-statuses/${ids.projectStatus}`)).json().data.name).toBe('Active');
    expect((await b.admin.get('/api/v1/project-statuses')).body).not.toContain(ids.projectStatus);
  });

  it('tenant A’s assets and their sub-records are untouched; tenant B’s asset lists never show them', async () => {
    const asset = (await a.admin.get(`/api/v1/assets/${ids.asset}`)).json().data;
    expect(asset).toMatchObject({ name: 'Isolated asset', notes_updated_at: null });
    expect((await a.admin.get(`/api/v1/asset-types/${ids.assetType}`)).json().data.type_name).toBe('Isolated type');
    expect((await a.admin.get(`/api/v1/assets/${ids.asset}/maintenance`)).json().data.map((s: { schedule_name: string }) => s.schedule_name)).toEqual(['Isolated schedule']);
    expect((await a.admin.get(`/api/v1/assets/${ids.asset}/history`)).json().data).toEqual([]);
    expect((await a.admin.get(`/api/v1/assets/${ids.asset}/relationships`)).json().data).toHaveLength(1);
    expect((await a.admin.get(`/api/v1/assets/${ids.asset}/tickets`)).json().data).toHaveLength(1);
    expect((await a.admin.get(`/api/v1/assets/${ids.asset}/documents`)).json().data).toHaveLength(1);
    for (const url of ['/api/v1/assets', '/api/v1/assets/export?format=json', '/api/v1/assets/search?query=isolated', '/api/v1/asset-types']) {
      const res = await b.admin.get(url);
      expect(res.statusCode, url).toBe(200);
      for (const id of [ids.asset, ids.asset2, ids.assetType]) expect(res.body, url).not.toContain(id);
    }
    expect((await b.admin.get('/api/v1/assets/stats')).json().data.total_assets).toBe(0);
  });
});
