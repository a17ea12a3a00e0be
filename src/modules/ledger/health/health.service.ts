import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { iso } from '../../../platform/time.ts';
import { findConnection, type ConnectionRow } from '../connection/connections.repo.ts';
import type { Connected, ConnectionsService } from '../connection/connections.service.ts';
import { LedgerProviderError, type LedgerCompany } from '../providers/provider.ts';
import { findHealthConfig, lastFinishedAt, mappingCounts, recentFailures, saveHealthConfig, topLevelRunsSince, type MappingCount } from './health.repo.ts';
import {
  CHECK_TYPES,
  type CheckStatus,
  type CheckType,
  type Diagnostics,
  type Health,
  type HealthCheck,
  type HealthConfig,
  type HealthConfigBody,
  type OverallStatus,
  type Probe,
  type ProbeName,
  type Recommendation,
  type StoredHealthConfig,
} from './health.schemas.ts';

export interface HealthDeps {
  db: Kysely<DB>;
  connections: ConnectionsService;
}

export const HEALTH_CONFIG_DEFAULTS: StoredHealthConfig = {
  check_interval_minutes: 15,
  enabled_checks: [...CHECK_TYPES],
  alert_thresholds: { sync_failure_rate: 0.1, api_limit_threshold: 0.8, response_time_threshold_ms: 5000 },
  notification_settings: { email_alerts: true, email_recipients: [], slack_webhook: null, alert_frequency: 'immediate' },
  is_active: true,
};

const DAY_MS = 86_400_000;
/** The reference product notifies at 14, 7 and 2 days before the refresh token expires: warning from 14, critical from 2. */
export const REFRESH_NOTICE_DAYS = [14, 7, 2] as const;
const REFRESH_WARNING_DAYS = 14;
const REFRESH_CRITICAL_DAYS = 2;
const FAILURE_LIMIT = 10;
const DRIFT_STATUSES = ['drift', 'conflict', 'error'] as const;
const RANK: Record<CheckStatus, number> = { healthy: 0, warning: 1, critical: 2 };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The stored JSON over the defaults (fields unknown to this version are dropped, missing ones defaulted). */
export function configOf(stored: Record<string, unknown> | undefined): StoredHealthConfig {
  const d = HEALTH_CONFIG_DEFAULTS;
  const s = stored ?? {};
  const pick = <T extends object>(defaults: T, value: unknown): T => {
    const v = isObject(value) ? value : {};
    return Object.fromEntries(Object.entries(defaults).map(([k, def]) => [k, k in v ? v[k] : def])) as T;
  };
  return {
    check_interval_minutes: typeof s.check_interval_minutes === 'number' ? s.check_interval_minutes : d.check_interval_minutes,
    enabled_checks: Array.isArray(s.enabled_checks) ? CHECK_TYPES.filter((c) => (s.enabled_checks as unknown[]).includes(c)) : [...d.enabled_checks],
    alert_thresholds: pick(d.alert_thresholds, s.alert_thresholds),
    notification_settings: pick(d.notification_settings, s.notification_settings),
    is_active: typeof s.is_active === 'boolean' ? s.is_active : d.is_active,
  };
}

/** Whether an error is a ledger failure a check reports (502 from `call`, a refused or unreadable token), not a bug. */
function isLedgerFailure(err: unknown): err is LedgerProviderError | AppError {
  return err instanceof LedgerProviderError || (err instanceof AppError && (err.code === 'UPSTREAM_ERROR' || err.code === 'CONFLICT'));
}

function reasonOf(err: LedgerProviderError | AppError): { reason: string | null; upstream_status: number | null; upstream_code: string | null } {
  if (err instanceof LedgerProviderError) return { reason: err.reason, upstream_status: err.upstreamStatus ?? null, upstream_code: err.upstreamCode ?? null };
  const d = isObject(err.details) ? err.details : {};
  return {
    reason: typeof d.reason === 'string' ? d.reason : null,
    upstream_status: typeof d.upstream_status === 'number' ? d.upstream_status : null,
    upstream_code: typeof d.upstream_code === 'string' ? d.upstream_code : null,
  };
}

/** `reason: message`, as sync outcomes show a ledger failure. */
function describe(err: LedgerProviderError | AppError): string {
  const { reason } = reasonOf(err);
  return reason ? `${reason}: ${err.message}` : err.message;
}

const elapsed = (started: number): number => Math.max(0, Math.round(performance.now() - started));
const share = (n: number, of: number): number => (of === 0 ? 0 : Math.round((n / of) * 10_000) / 10_000);

/**
 * Health of a ledger connection, computed from what is true now: a live call to the ledger, the token expiry
 * dates, this server's call counters for the company, the sync runs of the last 24 hours and the mappings'
 * sync states. The configuration (per tenant) picks the checks and their thresholds; diagnostics adds probes of
 * the ledger's lists and the recent failures.
 */
export function createHealthService(deps: HealthDeps) {
  const { db, connections } = deps;

  async function readConfig(tenant: string): Promise<HealthConfig> {
    const row = await findHealthConfig(db, tenant);
    return { ...configOf(row?.config), updated_at: row ? iso(row.updated_at) : null, updated_by: row?.updated_by ?? null };
  }

  async function reload(tenant: string, row: ConnectionRow): Promise<ConnectionRow> {
    return (await findConnection(db, tenant, row.connection_id)) ?? row;
  }

  // ---------------------------------------------------------------- checks

  interface Finding {
    status: CheckStatus;
    message: string;
    details: Record<string, unknown>;
  }

  async function timed(type: CheckType, fn: () => Finding | Promise<Finding>): Promise<HealthCheck> {
    const started = performance.now();
    const r = await fn();
    return { check_type: type, status: r.status, message: r.message, details: r.details, checked_at: iso(new Date()), response_time_ms: elapsed(started) };
  }

  /** A live companyInfo call; response_time_ms is the call's. */
  async function connectionCheck(tenant: string, c: Connected, config: StoredHealthConfig): Promise<HealthCheck> {
    const threshold = config.alert_thresholds.response_time_threshold_ms;
    const started = performance.now();
    let status: CheckStatus;
    let message: string;
    let details: Record<string, unknown>;
    try {
      const company = await connections.call(tenant, c.connection, () => c.provider.companyInfo(c.session));
      const ms = elapsed(started);
      details = { company_name: company.name, response_time_threshold_ms: threshold };
      if (ms > threshold) {
        status = 'warning';
        message = `${c.provider.label} answered in ${ms} ms, slower than the ${threshold} ms threshold`;
      } else {
        status = 'healthy';
        message = `${c.provider.label} answered in ${ms} ms`;
      }
    } catch (err) {
      if (!isLedgerFailure(err)) throw err;
      status = 'critical';
      message = `The live call to ${c.provider.label} failed: ${describe(err)}`;
      details = { ...reasonOf(err), error: err.message, response_time_threshold_ms: threshold };
    }
    return { check_type: 'connection', status, message, details, checked_at: iso(new Date()), response_time_ms: elapsed(started) };
  }

  function authenticationCheck(row: ConnectionRow, now: Date): Finding {
    const refreshAt = row.refresh_token_expires_at;
    const accessAt = row.access_token_expires_at;
    const daysLeft = refreshAt ? (refreshAt.getTime() - now.getTime()) / DAY_MS : null;
    const details: Record<string, unknown> = {
      connection_status: row.status,
      refresh_token_expires_at: iso(refreshAt),
      refresh_token_days_remaining: daysLeft === null ? null : Math.max(0, Math.floor(daysLeft * 10) / 10),
      notice_threshold_days: daysLeft === null ? null : ([...REFRESH_NOTICE_DAYS].reverse().find((d) => daysLeft <= d) ?? null),
      access_token_expires_at: iso(accessAt),
      access_token_expired: accessAt ? accessAt.getTime() <= now.getTime() : null,
      access_token_seconds_remaining: accessAt ? Math.max(0, Math.round((accessAt.getTime() - now.getTime()) / 1000)) : null,
      last_refreshed_at: iso(row.last_refreshed_at),
    };
    if (row.status === 'expired') {
      return { status: 'critical', message: `The ledger refused the refresh token${row.last_error ? ` (${row.last_error})` : ''}; connect the company again`, details };
    }
    if (daysLeft !== null && daysLeft <= 0) return { status: 'critical', message: 'The refresh token has expired; connect the company again', details };
    if (daysLeft !== null && daysLeft <= REFRESH_CRITICAL_DAYS) {
      return { status: 'critical', message: `The refresh token expires within ${REFRESH_CRITICAL_DAYS} days (${iso(refreshAt)}); connect the company again`, details };
    }
    if (daysLeft !== null && daysLeft <= REFRESH_WARNING_DAYS) {
      return { status: 'warning', message: `The refresh token expires in ${Math.floor(daysLeft)} days (${iso(refreshAt)}); connect the company again before then`, details };
    }
    return { status: 'healthy', message: daysLeft === null ? 'The tokens are valid (the ledger did not say when the refresh token expires)' : `The refresh token is valid for ${Math.floor(daysLeft)} more days`, details };
  }

  function apiLimitsOf(c: Connected) {
    const u = c.provider.usage(c.connection.realm_id);
    return {
      limit_per_minute: u.limitPerMinute,
      calls_last_minute: u.callsLastMinute,
      remaining: Math.max(0, u.limitPerMinute - u.callsLastMinute),
      throttled_last_hour: u.throttledLastHour,
      last_throttled_at: u.lastThrottledAt,
    };
  }

  function apiLimitsCheck(limits: Health['api_limits'], config: StoredHealthConfig): Finding {
    const threshold = config.alert_thresholds.api_limit_threshold;
    const usage = limits.limit_per_minute > 0 ? share(limits.calls_last_minute, limits.limit_per_minute) : 0;
    const details = { ...limits, usage_ratio: usage, api_limit_threshold: threshold };
    const parts: string[] = [];
    if (limits.limit_per_minute > 0 && usage >= threshold) parts.push(`${limits.calls_last_minute} of ${limits.limit_per_minute} calls used in the last minute (threshold ${Math.round(threshold * 100)}%)`);
    if (limits.throttled_last_hour > 0) parts.push(`the ledger throttled ${limits.throttled_last_hour} call(s) in the last hour`);
    if (parts.length > 0) return { status: 'warning', message: `Near the API limit: ${parts.join('; ')}`, details };
    return { status: 'healthy', message: `${limits.calls_last_minute} of ${limits.limit_per_minute} calls used in the last minute, none throttled in the last hour`, details };
  }

  async function syncStatistics(tenant: string, connectionId: string, now: Date) {
    const runs = await topLevelRunsSince(db, tenant, connectionId, new Date(now.getTime() - DAY_MS));
    const count = (s: string) => runs.filter((r) => r.status === s).length;
    const finished = runs.filter((r) => r.status === 'completed' || r.status === 'partial' || r.status === 'failed');
    const durations = finished.filter((r) => r.started_at && r.completed_at).map((r) => r.completed_at!.getTime() - r.started_at!.getTime());
    const last = await lastFinishedAt(db, tenant, connectionId);
    return {
      stats: {
        last_sync_date: iso(last),
        successful_syncs_24h: count('completed'),
        failed_syncs_24h: count('failed'),
        partial_syncs_24h: count('partial'),
        avg_sync_duration_ms: durations.length > 0 ? Math.round(durations.reduce((a, b) => a + b, 0) / durations.length) : null,
      },
      // Newest first: the run that finished last.
      lastRun: finished[0],
      finished: finished.length,
      running: runs.filter((r) => r.status === 'pending' || r.status === 'in_progress').length,
      cancelled: count('cancelled'),
    };
  }

  function syncStatusCheck(s: Awaited<ReturnType<typeof syncStatistics>>, config: StoredHealthConfig): Finding {
    const threshold = config.alert_thresholds.sync_failure_rate;
    const failed = s.stats.failed_syncs_24h;
    const rate = share(failed, s.finished);
    const details = {
      finished_runs_24h: s.finished,
      successful_runs_24h: s.stats.successful_syncs_24h,
      partial_runs_24h: s.stats.partial_syncs_24h,
      failed_runs_24h: failed,
      cancelled_runs_24h: s.cancelled,
      running: s.running,
      failure_rate: rate,
      sync_failure_rate_threshold: threshold,
      last_run: s.lastRun ? { sync_id: s.lastRun.sync_id, operation_type: s.lastRun.operation_type, status: s.lastRun.status, completed_at: iso(s.lastRun.completed_at), error_message: s.lastRun.error_message } : null,
    };
    if (s.finished === 0) return { status: 'healthy', message: 'No sync run finished in the last 24 hours', details };
    const pct = `${Math.round(rate * 1000) / 10}%`;
    if (failed > 0 && rate >= threshold) {
      if (s.lastRun?.status === 'failed') {
        return { status: 'critical', message: `${failed} of ${s.finished} sync runs failed in the last 24 hours (${pct}), including the latest`, details };
      }
      return { status: 'warning', message: `${failed} of ${s.finished} sync runs failed in the last 24 hours (${pct}, threshold ${Math.round(threshold * 1000) / 10}%)`, details };
    }
    return { status: 'healthy', message: `${s.finished - failed} of ${s.finished} sync runs in the last 24 hours succeeded${s.stats.partial_syncs_24h > 0 ? ` (${s.stats.partial_syncs_24h} partly)` : ''}`, details };
  }

  function dataIntegrityCheck(counts: MappingCount[]): Finding {
    const bad = counts.filter((c) => (DRIFT_STATUSES as readonly string[]).includes(c.sync_status));
    const byStatus: Record<string, number> = { drift: 0, conflict: 0, error: 0 };
    const byType: Record<string, Record<string, number>> = {};
    for (const c of bad) {
      byStatus[c.sync_status] = (byStatus[c.sync_status] ?? 0) + c.n;
      (byType[c.entity_type] ??= {})[c.sync_status] = c.n;
    }
    const total = bad.reduce((a, c) => a + c.n, 0);
    const mappings = counts.reduce((a, c) => a + c.n, 0);
    const details = { mappings_total: mappings, needing_attention: total, by_status: byStatus, by_entity_type: byType };
    if (total > 0) {
      const parts = Object.entries(byStatus).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`);
      return { status: 'warning', message: `${total} of ${mappings} mappings need attention (${parts.join(', ')})`, details };
    }
    return { status: 'healthy', message: `All ${mappings} mappings are in sync or pending`, details };
  }

  // ---------------------------------------------------------------- recommendations

  function recommendationsOf(checks: HealthCheck[], realmId: string): Recommendation[] {
    const out: Recommendation[] = [];
    const reconnect = { realm_id: realmId, endpoint: 'POST /api/v1/quickbooks/oauth/initiate' };
    for (const c of checks) {
      if (c.status === 'healthy') continue;
      const d = c.details;
      switch (c.check_type) {
        case 'authentication':
          out.push(c.status === 'critical'
            ? { type: 'action_required', message: 'Reconnect QuickBooks Online: the refresh token has expired or is about to, and syncs will stop', details: { ...reconnect, refresh_token_expires_at: d.refresh_token_expires_at ?? null } }
            : { type: 'warning', message: `Reconnect QuickBooks Online before ${String(d.refresh_token_expires_at)} to renew the refresh token`, details: { ...reconnect, refresh_token_expires_at: d.refresh_token_expires_at ?? null, days_remaining: d.refresh_token_days_remaining ?? null } });
          break;
        case 'connection':
          out.push(c.status === 'critical'
            ? { type: 'action_required', message: d.reason === 'auth_failed' ? 'QuickBooks refused the tokens: reconnect the company' : 'QuickBooks could not be reached: test the connection again later, and check the ledger status if it persists', details: { realm_id: realmId, reason: d.reason ?? null, endpoint: d.reason === 'auth_failed' ? reconnect.endpoint : 'POST /api/v1/quickbooks/connection/test' } }
            : { type: 'optimization', message: `QuickBooks answered slowly (${c.response_time_ms} ms); raise response_time_threshold_ms if this is normal for the company, or check the network path`, details: { realm_id: realmId, response_time_ms: c.response_time_ms, response_time_threshold_ms: d.response_time_threshold_ms ?? null } });
          break;
        case 'api_limits':
          out.push({ type: 'optimization', message: 'Calls to QuickBooks are near the per-minute limit or were throttled: run large syncs as one bulk or full run in the worker instead of many requests, and avoid polling reference data', details: { realm_id: realmId, calls_last_minute: d.calls_last_minute ?? null, throttled_last_hour: d.throttled_last_hour ?? null, endpoint: 'POST /api/v1/quickbooks/sync/bulk' } });
          break;
        case 'sync_status':
          out.push({ type: c.status === 'critical' ? 'action_required' : 'warning', message: 'Sync runs failed in the last 24 hours: read their errors and retry them once the cause is fixed', details: { realm_id: realmId, failed_runs_24h: d.failed_runs_24h ?? null, history: 'GET /api/v1/quickbooks/sync/history?status=failed', retry: 'POST /api/v1/quickbooks/sync/{syncId}/retry' } });
          break;
        case 'data_integrity':
          out.push({ type: 'warning', message: 'Some mappings drifted (changed in QuickBooks), conflict or failed: review them, then accept both sides as they are (PUT the mapping with sync_status synced) or bring them back in line and sync again (a customer sync with force_update overwrites QuickBooks)', details: { realm_id: realmId, by_status: d.by_status ?? null, review: 'GET /api/v1/quickbooks/mappings?sync_status=drift', accept: 'PUT /api/v1/quickbooks/mappings/{mappingId} {"sync_status":"synced"}', export: 'POST /api/v1/quickbooks/invoices/export', customers: 'POST /api/v1/quickbooks/customers/sync' } });
          break;
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- health

  async function healthOf(tenant: string, c: Connected, config: StoredHealthConfig, counts?: MappingCount[]): Promise<Health> {
    const enabled = new Set<CheckType>(config.enabled_checks);
    const checks: HealthCheck[] = [];
    // The live call first: a refresh it makes (or a refresh token the ledger refuses) shows in the authentication check.
    if (enabled.has('connection')) checks.push(await connectionCheck(tenant, c, config));
    const now = new Date();
    const row = await reload(tenant, c.connection);
    if (enabled.has('authentication')) checks.push(await timed('authentication', () => authenticationCheck(row, now)));
    const limits = apiLimitsOf(c);
    if (enabled.has('api_limits')) checks.push(await timed('api_limits', () => apiLimitsCheck(limits, config)));
    // The statistics are reported whether or not the sync_status check runs.
    const sync = await syncStatistics(tenant, row.connection_id, now);
    if (enabled.has('sync_status')) checks.push(await timed('sync_status', () => syncStatusCheck(sync, config)));
    if (enabled.has('data_integrity')) checks.push(await timed('data_integrity', async () => dataIntegrityCheck(counts ?? await mappingCounts(db, tenant, row.connection_id))));
    // Pushed in CHECK_TYPES order.
    const ordered = checks;
    const overall: OverallStatus = ordered.length === 0 ? 'unknown' : ordered.reduce<CheckStatus>((w, x) => (RANK[x.status] > RANK[w] ? x.status : w), 'healthy');
    return {
      realm_id: row.realm_id,
      overall_status: overall,
      last_health_check: iso(now),
      connection_status: row.status,
      api_limits: limits,
      sync_statistics: sync.stats,
      health_checks: ordered,
      recommendations: recommendationsOf(ordered, row.realm_id),
    };
  }

  // ---------------------------------------------------------------- diagnostics

  async function probe<T>(tenant: string, c: Connected, name: ProbeName, fn: () => Promise<T>, detail: (v: T) => string): Promise<{ probe: Probe; value?: T }> {
    const started = performance.now();
    try {
      const value = await connections.call(tenant, c.connection, fn);
      return { probe: { name, ok: true, response_time_ms: elapsed(started), detail: detail(value) }, value };
    } catch (err) {
      if (!isLedgerFailure(err)) throw err;
      return { probe: { name, ok: false, response_time_ms: elapsed(started), detail: describe(err) } };
    }
  }

  return {
    /** The health of one company with the tenant's configuration (the monitor's entry, no actor needed). */
    async healthFor(tenant: string, realmId: string): Promise<{ health: Health; config: StoredHealthConfig }> {
      const config = configOf((await findHealthConfig(db, tenant))?.config);
      return { health: await healthOf(tenant, await connections.connected(tenant, realmId), config), config };
    },

    async health(actor: Actor, realmId: string | undefined): Promise<Health> {
      const c = await connections.connected(actor.tenant, realmId);
      return healthOf(actor.tenant, c, configOf((await findHealthConfig(db, actor.tenant))?.config));
    },

    config: (actor: Actor): Promise<HealthConfig> => readConfig(actor.tenant),

    async updateConfig(actor: Actor, body: HealthConfigBody): Promise<HealthConfig> {
      await withTransaction(db, async (trx) => {
        const current = configOf((await findHealthConfig(trx, actor.tenant, true))?.config);
        const next: StoredHealthConfig = {
          check_interval_minutes: body.check_interval_minutes ?? current.check_interval_minutes,
          enabled_checks: body.enabled_checks ? CHECK_TYPES.filter((t) => body.enabled_checks!.includes(t)) : current.enabled_checks,
          alert_thresholds: { ...current.alert_thresholds, ...body.alert_thresholds },
          notification_settings: { ...current.notification_settings, ...body.notification_settings },
          is_active: body.is_active ?? current.is_active,
        };
        await saveHealthConfig(trx, actor.tenant, next, actor.userId);
      });
      return readConfig(actor.tenant);
    },

    async diagnostics(actor: Actor, realmId: string | undefined): Promise<Diagnostics> {
      const tenant = actor.tenant;
      const c = await connections.connected(tenant, realmId);
      const { provider: p, session: s } = c;
      const count = (rows: unknown[]) => `${rows.length} found`;
      // One after another: the probes are what the ledger is asked, and they count against its per-minute limit.
      const company = await probe<LedgerCompany>(tenant, c, 'company_info', () => p.companyInfo(s), (v) => `${v.name} (${v.country ?? 'no country'}, ${v.currency ?? 'no currency'})`);
      const probes = [
        company.probe,
        (await probe(tenant, c, 'accounts', () => p.listAccounts(s), count)).probe,
        (await probe(tenant, c, 'items', () => p.listItems(s), count)).probe,
        (await probe(tenant, c, 'tax_codes', () => p.listTaxCodes(s), count)).probe,
        (await probe(tenant, c, 'customers_count', () => p.listCustomers(s), count)).probe,
      ];
      const counts = await mappingCounts(db, tenant, c.connection.connection_id);
      const health = await healthOf(tenant, c, configOf((await findHealthConfig(db, tenant))?.config), counts);
      const row = await reload(tenant, c.connection);
      const byEntity: Record<string, number> = {};
      const byStatus: Record<string, number> = {};
      for (const m of counts) {
        byEntity[m.entity_type] = (byEntity[m.entity_type] ?? 0) + m.n;
        byStatus[m.sync_status] = (byStatus[m.sync_status] ?? 0) + m.n;
      }
      const failures = await recentFailures(db, tenant, row.connection_id, FAILURE_LIMIT);
      return {
        realm_id: row.realm_id,
        generated_at: iso(new Date()),
        connection: {
          status: row.status,
          display_name: row.display_name,
          country: row.country,
          currency_code: row.currency_code,
          access_token_expires_at: iso(row.access_token_expires_at),
          refresh_token_expires_at: iso(row.refresh_token_expires_at),
          last_validated_at: iso(row.last_validated_at),
          last_refreshed_at: iso(row.last_refreshed_at),
          last_error: row.last_error,
        },
        company: company.value ? { name: company.value.name, country: company.value.country, currency: company.value.currency } : null,
        probes,
        mappings: { by_entity_type: byEntity, by_sync_status: byStatus },
        recent_failures: failures.map((r) => ({ sync_id: r.sync_id, operation_type: r.operation_type, status: r.status as 'failed' | 'partial', error_message: r.error_message, completed_at: iso(r.completed_at) })),
        health,
      };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
