import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { ScheduleDefinition } from '../../../platform/jobs/types.ts';
import type { Mailer } from '../../../platform/mail/mailer.ts';
import { monitoredConnections, updateConnection } from '../connection/connections.repo.ts';
import type { Health, StoredHealthConfig } from './health.schemas.ts';
import { configOf, type HealthService } from './health.service.ts';

export interface MonitorDeps {
  db: Kysely<DB>;
  health: HealthService;
  mailer: Mailer;
  /** Posts a JSON body to the Slack webhook (the SSRF-guarded outbound client in the worker). */
  postJson: (url: string, body: string) => Promise<{ status: number }>;
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  now?: () => Date;
}

const WINDOW_MS = { immediate: 0, hourly: 3_600_000, daily: 86_400_000 } as const;

/**
 * Whether this look at a company alerts: only when it is unhealthy, and then when its status changed since the
 * last look, or (hourly, daily) when the last alert is older than the frequency's window.
 */
export function shouldAlert(status: string, last: { status: string | null; alertedAt: Date | null }, frequency: StoredHealthConfig['notification_settings']['alert_frequency'], now: Date): boolean {
  if (status !== 'warning' && status !== 'critical') return false;
  if (status !== last.status) return true;
  const window = WINDOW_MS[frequency];
  return window > 0 && (last.alertedAt === null || now.getTime() - last.alertedAt.getTime() >= window);
}

function alertText(health: Health, name: string | null): { subject: string; text: string } {
  const who = `${name ?? 'QuickBooks company'} (realm ${health.realm_id})`;
  const failing = health.health_checks.filter((c) => c.status !== 'healthy').map((c) => `- ${c.check_type}: ${c.status} — ${c.message}`);
  const todo = health.recommendations.map((r) => `- ${r.message}`);
  return {
    subject: `QuickBooks Online ${who}: ${health.overall_status}`,
    text: [`The ledger connection of ${who} is ${health.overall_status}.`, '', 'Checks:', ...failing, ...(todo.length ? ['', 'What to do:', ...todo] : []), '', `Checked at ${health.last_health_check}.`].join('\n'),
  };
}

/**
 * One round of the health monitor: every connected company whose tenant's monitoring is active and whose
 * `check_interval_minutes` has passed is checked, the outcome remembered on the connection, and an alert sent by
 * e-mail and to Slack as the notification settings say. One company's failure never stops the round.
 */
export async function monitorOnce(deps: MonitorDeps): Promise<number> {
  const now = deps.now?.() ?? new Date();
  let checked = 0;
  for (const row of await monitoredConnections(deps.db)) {
    const config = configOf(row.config ?? undefined);
    if (!config.is_active) continue;
    if (row.health_checked_at && now.getTime() - row.health_checked_at.getTime() < config.check_interval_minutes * 60_000) continue;
    try {
      const { health } = await deps.health.healthFor(row.tenant, row.realm_id);
      checked++;
      const n = config.notification_settings;
      const alert = shouldAlert(health.overall_status, { status: row.health_status, alertedAt: row.health_alerted_at }, n.alert_frequency, now);
      let alerted = false;
      if (alert) {
        const { subject, text } = alertText(health, row.display_name);
        if (n.email_alerts && n.email_recipients.length > 0) {
          await deps.mailer.send({ to: n.email_recipients, subject, text, headers: { 'Auto-Submitted': 'auto-generated' } });
          alerted = true;
        }
        if (n.slack_webhook) {
          const res = await deps.postJson(n.slack_webhook, JSON.stringify({ text: `*${subject}*\n${text}` }));
          if (res.status >= 200 && res.status < 300) alerted = true;
          else deps.log.error({ tenant: row.tenant, realm_id: row.realm_id, status: res.status }, 'ledger health: the Slack webhook refused the alert');
        }
      }
      await updateConnection(deps.db, row.tenant, row.connection_id, { health_checked_at: now, health_status: health.overall_status, ...(alerted ? { health_alerted_at: now } : {}) });
    } catch (err) {
      deps.log.error({ err, tenant: row.tenant, realm_id: row.realm_id }, 'ledger health: the check failed');
    }
  }
  return checked;
}

/** The worker's schedule: a round every five minutes (each company at its own check interval). */
export const healthMonitorSchedule = (deps: MonitorDeps): ScheduleDefinition => ({ name: 'ledger-health-monitor', cron: '*/5 * * * *', run: () => monitorOnce(deps).then(() => undefined) });
