import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../../test/client-factories.ts';
import { makeTenant, makeUser, type Api } from '../../../../test/factories.ts';
import type { FakeQuickBooks } from '../../../../test/fakes/qbo-server.ts';
import type { TestApp } from '../../../../test/harness.ts';
import { connectLedger, startLedgerApp, stopLedgerApp } from '../../../../test/ledger-kit.ts';
import { newId } from '../../../platform/ids.ts';

let fake: FakeQuickBooks;
let t: TestApp;
beforeAll(async () => ({ fake, t } = await startLedgerApp()));
afterAll(() => stopLedgerApp(t, fake));

interface Check { check_type: string; status: string; message: string; details: Record<string, unknown>; response_time_ms: number }
interface Rec { type: string; message: string; details: Record<string, unknown> }

async function connected(realmId: string) {
  const ten = await makeTenant(t);
  await connectLedger(t, ten.admin, fake, realmId);
  const row = await t.database.db.selectFrom('ledger_connections').select('connection_id').where('tenant', '=', ten.tenant).where('realm_id', '=', realmId).executeTakeFirstOrThrow();
  return { ...ten, connectionId: row.connection_id };
}

async function health(api: Api, query = '') {
  const res = await api.get(`/api/v1/quickbooks/health${query}`);
  expect(res.statusCode, res.body).toBe(200);
  const data = res.json().data;
  const check = (type: string): Check | undefined => data.health_checks.find((c: Check) => c.check_type === type);
  return { data, check, recs: data.recommendations as Rec[] };
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);

async function insertRun(tenant: string, connectionId: string, status: 'completed' | 'failed' | 'partial', at: Date, extra: { parent?: string; error?: string } = {}) {
  const syncId = newId();
  await t.database.db.insertInto('ledger_sync_runs').values({
    tenant, sync_id: syncId, connection_id: connectionId, operation_type: 'invoice_export', status, parameters: '{}', parent_sync_id: extra.parent ?? null,
    started_at: new Date(at.getTime() - 2000), completed_at: at, error_message: extra.error ?? null, created_at: new Date(at.getTime() - 2000),
  }).execute();
  return syncId;
}

describe('ledger health', () => {
  it('is healthy right after connecting: a live call, valid tokens, no runs, no drift', async () => {
    const { admin } = await connected('5301');
    const { data, check, recs } = await health(admin);
    expect(data).toMatchObject({ realm_id: '5301', overall_status: 'healthy', connection_status: 'active' });
    expect(Date.parse(data.last_health_check)).toBeGreaterThan(Date.now() - 60_000);
    expect(data.health_checks.map((c: Check) => [c.check_type, c.status])).toEqual([
      ['connection', 'healthy'], ['authentication', 'healthy'], ['api_limits', 'healthy'], ['sync_status', 'healthy'], ['data_integrity', 'healthy'],
    ]);
    expect(check('connection')!.details).toMatchObject({ company_name: expect.any(String), response_time_threshold_ms: 5000 });
    expect(check('connection')!.response_time_ms).toBeGreaterThanOrEqual(0);
    expect(check('authentication')!.details).toMatchObject({ connection_status: 'active', access_token_expired: false, notice_threshold_days: null });
    expect(check('authentication')!.details.refresh_token_days_remaining).toBeGreaterThan(90);
    expect(data.api_limits).toMatchObject({ limit_per_minute: 500, throttled_last_hour: 0, last_throttled_at: null });
    expect(data.api_limits.calls_last_minute).toBeGreaterThanOrEqual(1); // the connection check's call
    expect(data.api_limits.remaining).toBe(500 - data.api_limits.calls_last_minute);
    expect(data.sync_statistics).toEqual({ last_sync_date: null, successful_syncs_24h: 0, failed_syncs_24h: 0, partial_syncs_24h: 0, avg_sync_duration_ms: null });
    expect(recs).toEqual([]);
    for (const c of data.health_checks) expect(Date.parse(c.checked_at)).not.toBeNaN();
  });

  it('authentication and connection are critical once the ledger refuses the refresh token; the endpoint still answers', async () => {
    const { admin } = await connected('5302');
    fake.expireAccessTokens();
    fake.expireRefreshTokens();
    const { data, check, recs } = await health(admin);
    expect(data.overall_status).toBe('critical');
    expect(data.connection_status).toBe('expired');
    expect(check('connection')).toMatchObject({ status: 'critical', details: { reason: 'auth_failed' } });
    expect(check('authentication')!.status).toBe('critical');
    expect(check('authentication')!.message).toContain('connect the company again');
    expect(recs.map((r) => r.type)).toContain('action_required');
    expect(recs.find((r) => r.message.startsWith('Reconnect'))!.details).toMatchObject({ realm_id: '5302', endpoint: 'POST /api/v1/quickbooks/oauth/initiate' });
    // Still critical on the next look, from the stored status alone.
    const again = await health(admin, '?realm_id=5302');
    expect(again.check('authentication')!.status).toBe('critical');
  });

  it('warns when the refresh token expires within 14 days and is critical within 2', async () => {
    const { admin, tenant, connectionId } = await connected('5303');
    const expireIn = (days: number) => t.database.db.updateTable('ledger_connections').set({ refresh_token_expires_at: new Date(Date.now() + days * 86_400_000) }).where('tenant', '=', tenant).where('connection_id', '=', connectionId).execute();
    await expireIn(10);
    let h = await health(admin);
    expect(h.check('authentication')).toMatchObject({ status: 'warning', details: { notice_threshold_days: 14 } });
    expect(h.data.overall_status).toBe('warning');
    expect(h.recs).toEqual([expect.objectContaining({ type: 'warning', details: expect.objectContaining({ endpoint: 'POST /api/v1/quickbooks/oauth/initiate' }) })]);
    await expireIn(5);
    expect((await health(admin)).check('authentication')).toMatchObject({ status: 'warning', details: { notice_threshold_days: 7 } });
    await expireIn(1.5);
    h = await health(admin);
    expect(h.check('authentication')).toMatchObject({ status: 'critical', details: { notice_threshold_days: 2 } });
    expect(h.recs[0]!.type).toBe('action_required');
  });

  it('sync_status: failed top-level runs of the last 24 hours against the failure-rate threshold', async () => {
    const { admin, tenant, connectionId } = await connected('5304');
    // Older than 24 hours, and an operation of a bulk run: neither counts.
    await insertRun(tenant, connectionId, 'failed', hoursAgo(30));
    const parent = await insertRun(tenant, connectionId, 'completed', hoursAgo(5));
    await insertRun(tenant, connectionId, 'failed', hoursAgo(5), { parent });
    let h = await health(admin);
    expect(h.check('sync_status')).toMatchObject({ status: 'healthy', details: { finished_runs_24h: 1, failed_runs_24h: 0 } });
    expect(h.data.sync_statistics).toMatchObject({ successful_syncs_24h: 1, failed_syncs_24h: 0, avg_sync_duration_ms: 2000 });

    const failedId = await insertRun(tenant, connectionId, 'failed', hoursAgo(2), { error: 'QuickBooks failed' });
    h = await health(admin);
    expect(h.check('sync_status')).toMatchObject({ status: 'critical', details: { finished_runs_24h: 2, failed_runs_24h: 1, failure_rate: 0.5, last_run: { sync_id: failedId, status: 'failed' } } });
    expect(h.data.sync_statistics).toMatchObject({ successful_syncs_24h: 1, failed_syncs_24h: 1, partial_syncs_24h: 0 });
    expect(Math.abs(Date.parse(h.data.sync_statistics.last_sync_date) - hoursAgo(2).getTime())).toBeLessThan(10_000);
    expect(h.recs.find((r) => r.details.history)).toMatchObject({ type: 'action_required' });

    // A later success: the rate is still above 10 %, but the latest run worked.
    await insertRun(tenant, connectionId, 'partial', hoursAgo(1));
    h = await health(admin);
    expect(h.check('sync_status')).toMatchObject({ status: 'warning', details: { finished_runs_24h: 3, failed_runs_24h: 1 } });
    expect(h.data.sync_statistics.partial_syncs_24h).toBe(1);
    // Raising the threshold above the rate clears it.
    expect((await admin.put('/api/v1/quickbooks/health/config', { alert_thresholds: { sync_failure_rate: 0.5 } })).statusCode).toBe(200);
    expect((await health(admin)).check('sync_status')!.status).toBe('healthy');
  });

  it('data_integrity: drifted, conflicting or failed mappings by entity type', async () => {
    const { admin, tenant, connectionId } = await connected('5305');
    const mapping = (entity: 'invoice' | 'customer' | 'item', status: 'drift' | 'conflict' | 'synced', ext: string) =>
      t.database.db.insertInto('ledger_mappings').values({ tenant, mapping_id: newId(), connection_id: connectionId, entity_type: entity, local_id: newId(), external_id: ext, sync_status: status, metadata: '{}' }).execute();
    await mapping('item', 'synced', '7');
    expect((await health(admin)).check('data_integrity')).toMatchObject({ status: 'healthy', details: { mappings_total: 1, needing_attention: 0 } });
    await mapping('invoice', 'drift', '101');
    await mapping('invoice', 'drift', '102');
    await mapping('customer', 'conflict', '55');
    const h = await health(admin);
    expect(h.check('data_integrity')).toMatchObject({
      status: 'warning',
      details: { mappings_total: 4, needing_attention: 3, by_status: { drift: 2, conflict: 1, error: 0 }, by_entity_type: { invoice: { drift: 2 }, customer: { conflict: 1 } } },
    });
    expect(h.data.overall_status).toBe('warning');
    expect(h.recs).toEqual([expect.objectContaining({ type: 'warning', details: expect.objectContaining({ review: 'GET /api/v1/quickbooks/mappings?sync_status=drift' }) })]);
  });

  it('api_limits warns after throttling; connection warns when slower than the threshold', async () => {
    const { admin } = await connected('5306');
    fake.throttleNext(1);
    const h = await health(admin);
    expect(h.check('connection')!.status).toBe('healthy'); // the adapter waited and retried
    expect(h.data.api_limits.throttled_last_hour).toBe(1);
    expect(h.data.api_limits.last_throttled_at).not.toBeNull();
    expect(h.check('api_limits')).toMatchObject({ status: 'warning', details: { throttled_last_hour: 1 } });
    expect(h.recs.map((r) => r.type)).toEqual(['optimization']);

    const put = await admin.put('/api/v1/quickbooks/health/config', { alert_thresholds: { response_time_threshold_ms: 100 } });
    expect(put.statusCode, put.body).toBe(200);
    fake.failNext(1, 503, { delayMs: 150 });
    const slow = await health(admin);
    fake.clear();
    expect(slow.check('connection')).toMatchObject({ status: 'warning', details: { response_time_threshold_ms: 100 } });
    expect(slow.check('connection')!.response_time_ms).toBeGreaterThan(100);
    expect(slow.recs.some((r) => r.type === 'optimization' && r.message.includes('slowly'))).toBe(true);
  });
});

describe('ledger health configuration', () => {
  const DEFAULTS = {
    check_interval_minutes: 15,
    enabled_checks: ['connection', 'authentication', 'api_limits', 'sync_status', 'data_integrity'],
    alert_thresholds: { sync_failure_rate: 0.1, api_limit_threshold: 0.8, response_time_threshold_ms: 5000 },
    notification_settings: { email_alerts: true, email_recipients: [], slack_webhook: null, alert_frequency: 'immediate' },
    is_active: true,
    updated_at: null,
    updated_by: null,
  };

  it('answers the defaults without a connection; a partial update merges nested objects and is per tenant', async () => {
    const { admin, adminUserId } = await makeTenant(t);
    const other = await makeTenant(t);
    const get = await admin.get('/api/v1/quickbooks/health/config');
    expect(get.statusCode, get.body).toBe(200);
    expect(get.json().data).toEqual(DEFAULTS);

    const put = await admin.put('/api/v1/quickbooks/health/config', {
      check_interval_minutes: 60,
      alert_thresholds: { api_limit_threshold: 0.5 },
      notification_settings: { email_recipients: ['ops@example.com'], slack_webhook: 'https://hooks.slack.com/services/T/B/X' },
    });
    expect(put.statusCode, put.body).toBe(200);
    const saved = put.json().data;
    expect(saved).toMatchObject({
      check_interval_minutes: 60,
      enabled_checks: DEFAULTS.enabled_checks,
      alert_thresholds: { sync_failure_rate: 0.1, api_limit_threshold: 0.5, response_time_threshold_ms: 5000 },
      notification_settings: { email_alerts: true, email_recipients: ['ops@example.com'], slack_webhook: 'https://hooks.slack.com/services/T/B/X', alert_frequency: 'immediate' },
      is_active: true,
      updated_by: adminUserId,
    });
    expect(Date.parse(saved.updated_at)).toBeGreaterThan(Date.now() - 60_000);

    const second = (await admin.put('/api/v1/quickbooks/health/config', { notification_settings: { alert_frequency: 'daily', slack_webhook: null }, is_active: false })).json().data;
    expect(second).toMatchObject({ check_interval_minutes: 60, alert_thresholds: { api_limit_threshold: 0.5 }, notification_settings: { email_recipients: ['ops@example.com'], slack_webhook: null, alert_frequency: 'daily' }, is_active: false });
    expect((await admin.get('/api/v1/quickbooks/health/config')).json().data).toEqual(second);
    expect((await other.admin.get('/api/v1/quickbooks/health/config')).json().data).toEqual(DEFAULTS);
  });

  it('refuses what the schema does not allow', async () => {
    const { admin } = await makeTenant(t);
    const bad: unknown[] = [
      { alert_thresholds: { sync_failure_rate: 2 } },
      { alert_thresholds: { response_time_threshold_ms: 50 } },
      { enabled_checks: ['connection', 'uptime'] },
      { enabled_checks: ['connection', 'connection'] },
      { check_interval_minutes: 0 },
      { check_interval_minutes: 1441 },
      { notification_settings: { email_recipients: ['not-an-email'] } },
      { notification_settings: { email_recipients: Array.from({ length: 21 }, (_, i) => `a${i}@example.com`) } },
      { notification_settings: { slack_webhook: 'http://hooks.slack.com/x' } },
      { notification_settings: { slack_webhook: `https://example.com/${'x'.repeat(2000)}` } },
      { notification_settings: { alert_frequency: 'weekly' } },
      { notification_settings: { sms: true } },
      { alert_thresholds: { latency: 1 } },
      { is_active: 'yes' },
      { colour: 'red' },
    ];
    for (const body of bad) expectError(await admin.put('/api/v1/quickbooks/health/config', body), 400, 'VALIDATION_ERROR');
    expect((await admin.get('/api/v1/quickbooks/health/config')).json().data.updated_at).toBeNull();
  });

  it('enabled_checks limits the checks that run; none is unknown', async () => {
    const { admin } = await connected('5307');
    await admin.put('/api/v1/quickbooks/health/config', { enabled_checks: ['data_integrity', 'authentication'] });
    const before = fake.received.length;
    const h = await health(admin);
    expect(h.data.health_checks.map((c: Check) => c.check_type)).toEqual(['authentication', 'data_integrity']);
    expect(fake.received.length).toBe(before); // no live call without the connection check
    expect((await admin.get('/api/v1/quickbooks/health/config')).json().data.enabled_checks).toEqual(['authentication', 'data_integrity']);
    await admin.put('/api/v1/quickbooks/health/config', { enabled_checks: [] });
    const none = await health(admin);
    expect(none.data).toMatchObject({ overall_status: 'unknown', health_checks: [], recommendations: [] });
    expect(none.data.sync_statistics.successful_syncs_24h).toBe(0);
  });

  it('a Manager reads health and configuration but cannot change it or run diagnostics', async () => {
    const { admin, tenant } = await connected('5308');
    const manager = (await makeUser(t, tenant, { role: 'Manager' })).api;
    expect((await manager.get('/api/v1/quickbooks/health')).statusCode).toBe(200);
    expect((await manager.get('/api/v1/quickbooks/health/config')).statusCode).toBe(200);
    expectError(await manager.put('/api/v1/quickbooks/health/config', { is_active: false }), 403, 'FORBIDDEN');
    expectError(await manager.post('/api/v1/quickbooks/diagnostics'), 403, 'FORBIDDEN');
    expect((await admin.get('/api/v1/quickbooks/health/config')).json().data.is_active).toBe(true);
  });

  it('health and diagnostics answer 409 without a connection', async () => {
    const { admin } = await makeTenant(t);
    const h = await admin.get('/api/v1/quickbooks/health');
    expectError(h, 409, 'CONFLICT');
    expect(h.json().error.details.reason).toBe('not_connected');
    expectError(await admin.post('/api/v1/quickbooks/diagnostics'), 409, 'CONFLICT');
    const other = await connected('5309');
    expectError(await other.admin.get('/api/v1/quickbooks/health?realm_id=5399'), 409, 'CONFLICT');
    expectError(await other.admin.get('/api/v1/quickbooks/health?realm_id=bad%20id'), 400, 'VALIDATION_ERROR');
  });
});

describe('ledger diagnostics', () => {
  it('reports the connection, live probes, mapping counts, recent failures and health', async () => {
    const { admin, tenant, connectionId } = await connected('5310');
    fake.seedCustomers('5310', 3, 'Diag');
    await t.database.db.insertInto('ledger_mappings').values([
      { tenant, mapping_id: newId(), connection_id: connectionId, entity_type: 'item', local_id: newId(), external_id: '7', metadata: '{}' },
      { tenant, mapping_id: newId(), connection_id: connectionId, entity_type: 'invoice', local_id: newId(), external_id: '900', sync_status: 'drift', metadata: '{}' },
    ]).execute();
    const failed = await insertRun(tenant, connectionId, 'failed', hoursAgo(3), { error: 'QuickBooks Online failed (HTTP 500 after 4 retries)' });
    const partial = await insertRun(tenant, connectionId, 'partial', hoursAgo(1));
    await insertRun(tenant, connectionId, 'completed', hoursAgo(0.5));

    const res = await admin.post('/api/v1/quickbooks/diagnostics?realm_id=5310');
    expect(res.statusCode, res.body).toBe(200);
    const d = res.json().data;
    expect(d).toMatchObject({ realm_id: '5310', connection: { status: 'active', last_error: null }, mappings: { by_entity_type: { item: 1, invoice: 1 }, by_sync_status: { synced: 1, drift: 1 } } });
    expect(d.connection.display_name).toBe(d.company.name);
    expect(d.company).toEqual({ name: expect.any(String), country: expect.anything(), currency: expect.anything() });
    expect(d.probes.map((p: { name: string; ok: boolean }) => [p.name, p.ok])).toEqual([['company_info', true], ['accounts', true], ['items', true], ['tax_codes', true], ['customers_count', true]]);
    expect(d.probes.find((p: { name: string }) => p.name === 'customers_count').detail).toBe(`${fake.list('5310', 'Customer').filter((c) => c.Active !== false).length} found`);
    expect(d.recent_failures.map((r: { sync_id: string; status: string }) => [r.sync_id, r.status])).toEqual([[partial, 'partial'], [failed, 'failed']]);
    expect(d.recent_failures[1]).toMatchObject({ operation_type: 'invoice_export', error_message: 'QuickBooks Online failed (HTTP 500 after 4 retries)' });
    expect(d.health).toMatchObject({ realm_id: '5310', overall_status: 'warning' });
    expect(d.health.health_checks.find((c: Check) => c.check_type === 'data_integrity').status).toBe('warning');
    expect(Date.parse(d.generated_at)).not.toBeNaN();

    // A ledger that fails: the probes record it, the report still comes back.
    fake.failNext(10, 500);
    const broken = await admin.post('/api/v1/quickbooks/diagnostics', {});
    fake.clear();
    expect(broken.statusCode, broken.body).toBe(200);
    const b = broken.json().data;
    expect(b.company).toBeNull();
    const probe = b.probes.find((p: { name: string }) => p.name === 'company_info');
    expect(probe).toMatchObject({ ok: false });
    expect(probe.detail).toMatch(/^unavailable: /);
    expect(b.probes.filter((p: { ok: boolean }) => !p.ok).length).toBeGreaterThanOrEqual(1);
    expect(b.connection.last_error).toMatch(/unavailable/);
  });
});
