import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTenant } from '../../../../test/factories.ts';
import { FakeMailer } from '../../../../test/automation-engine-kit.ts';
import type { FakeQuickBooks } from '../../../../test/fakes/qbo-server.ts';
import type { TestApp } from '../../../../test/harness.ts';
import { connectLedger, ledgerEnv, startLedgerApp, stopLedgerApp } from '../../../../test/ledger-kit.ts';
import { loadConfig } from '../../../config.ts';
import { createConnectionsService } from '../connection/connections.service.ts';
import { ledgerProviderOf } from '../providers/registry.ts';
import { createHealthService } from './health.service.ts';
import { monitorOnce, shouldAlert, type MonitorDeps } from './monitor.ts';

let fake: FakeQuickBooks;
let t: TestApp;
beforeAll(async () => ({ fake, t } = await startLedgerApp()));
afterAll(() => stopLedgerApp(t, fake));

const quiet = { info: () => undefined, error: () => undefined };

describe('the health monitor', () => {
  it('alerts only when unhealthy: on a change of status, or once per window for hourly and daily', () => {
    const t0 = new Date('2026-11-25T10:00:00Z');
    const later = (min: number) => new Date(t0.getTime() + min * 60_000);
    expect(shouldAlert('healthy', { status: 'critical', alertedAt: t0 }, 'immediate', t0)).toBe(false);
    expect(shouldAlert('critical', { status: 'healthy', alertedAt: null }, 'immediate', t0)).toBe(true);
    expect(shouldAlert('critical', { status: 'critical', alertedAt: t0 }, 'immediate', later(600))).toBe(false);
    expect(shouldAlert('critical', { status: 'warning', alertedAt: t0 }, 'daily', later(1))).toBe(true);
    expect(shouldAlert('warning', { status: 'warning', alertedAt: t0 }, 'hourly', later(59))).toBe(false);
    expect(shouldAlert('warning', { status: 'warning', alertedAt: t0 }, 'hourly', later(60))).toBe(true);
    expect(shouldAlert('warning', { status: 'warning', alertedAt: t0 }, 'daily', later(60))).toBe(false);
  });

  it('checks each company at its interval, e-mails and posts to Slack when it turns unhealthy, and remembers what it saw', async () => {
    const { admin, tenant } = await makeTenant(t);
    await connectLedger(t, admin, fake, '7201');
    const put = await admin.put('/api/v1/quickbooks/health/config', {
      check_interval_minutes: 10,
      notification_settings: { email_recipients: ['ops@example.test'], slack_webhook: 'https://hooks.slack.example/T1/B1/x', alert_frequency: 'immediate' },
    });
    expect(put.statusCode, put.body).toBe(200);
    const mailer = new FakeMailer();
    const posts: { url: string; body: string }[] = [];
    let now = new Date();
    const provider = ledgerProviderOf(loadConfig(ledgerEnv(fake)));
    const connections = createConnectionsService({ db: t.database.db, secretBox: t.app.secretBox, provider, publicUrl: 'http://127.0.0.1:3000' });
    const deps: MonitorDeps = { db: t.database.db, health: createHealthService({ db: t.database.db, connections }), mailer, log: quiet, now: () => now, postJson: async (url, body) => { posts.push({ url, body }); return { status: 200 }; } };
    const row = () => t.database.db.selectFrom('ledger_connections').select(['health_checked_at', 'health_status', 'health_alerted_at']).where('tenant', '=', tenant).executeTakeFirstOrThrow();

    // Healthy: checked and remembered, nobody told.
    await monitorOnce(deps);
    expect(await row()).toMatchObject({ health_status: 'healthy', health_alerted_at: null });
    expect(mailer.sent).toHaveLength(0);

    // The refresh token dies. Within the interval nothing is checked; after it, an alert goes out once.
    fake.expireAccessTokens();
    fake.expireRefreshTokens();
    now = new Date(now.getTime() + 5 * 60_000);
    await monitorOnce(deps);
    expect((await row()).health_status).toBe('healthy');
    now = new Date(now.getTime() + 6 * 60_000);
    await monitorOnce(deps);
    expect(await row()).toMatchObject({ health_status: 'critical' });
    expect((await row()).health_alerted_at).not.toBeNull();
    expect(mailer.sent).toHaveLength(1);
    expect(mailer.sent[0]).toMatchObject({ to: ['ops@example.test'], subject: expect.stringMatching(/realm 7201\): critical$/) });
    expect(mailer.sent[0]!.text).toContain('authentication: critical');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.url).toBe('https://hooks.slack.example/T1/B1/x');
    expect(JSON.parse(posts[0]!.body).text).toContain('critical');

    // Still critical ten minutes later: no second alert (immediate alerts on changes only).
    now = new Date(now.getTime() + 11 * 60_000);
    await monitorOnce(deps);
    expect(mailer.sent).toHaveLength(1);

    // Monitoring switched off: nothing is checked.
    await admin.put('/api/v1/quickbooks/health/config', { is_active: false });
    const checkedAt = (await row()).health_checked_at;
    now = new Date(now.getTime() + 60 * 60_000);
    await monitorOnce(deps);
    expect((await row()).health_checked_at).toEqual(checkedAt);
  });
});
