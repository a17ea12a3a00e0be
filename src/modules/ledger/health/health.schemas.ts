import { Type, type Static } from 'typebox';
import { dataOf, Email, Id, Nullable, Timestamp } from '../../../platform/http/schemas.ts';

export const CHECK_TYPES = ['connection', 'authentication', 'api_limits', 'sync_status', 'data_integrity'] as const;
export type CheckType = (typeof CHECK_TYPES)[number];
export const CHECK_STATUSES = ['healthy', 'warning', 'critical'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];
export const OVERALL_STATUSES = ['healthy', 'warning', 'critical', 'unknown'] as const;
export type OverallStatus = (typeof OVERALL_STATUSES)[number];
export const RECOMMENDATION_TYPES = ['warning', 'action_required', 'optimization'] as const;
export const ALERT_FREQUENCIES = ['immediate', 'hourly', 'daily'] as const;
export const PROBE_NAMES = ['company_info', 'accounts', 'items', 'tax_codes', 'customers_count'] as const;
export type ProbeName = (typeof PROBE_NAMES)[number];

/** An output-only free-form object (what a check measured). */
const Details = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description: 'What the check measured' });
const Counts = Type.Record(Type.String(), Type.Integer({ minimum: 0 }));

// ------------------------------------------------------------------ configuration

/*
 * The input fields carry no `default`: the body validator fills defaults in (useDefaults), which would turn a
 * partial update into a reset of every field left out. The defaults are the service's (HEALTH_CONFIG_DEFAULTS).
 */
const checkInterval = Type.Integer({ minimum: 1, maximum: 1440, description: 'How often a monitor should run the checks, in minutes (default 15)' });
const enabledChecks = Type.Array(Type.Enum([...CHECK_TYPES]), { maxItems: CHECK_TYPES.length, uniqueItems: true, description: 'The checks GET /quickbooks/health runs (default all five; stored in the order connection, authentication, api_limits, sync_status, data_integrity); the others are left out' });
const syncFailureRate = Type.Number({ minimum: 0, maximum: 1, description: 'Failed ÷ finished top-level runs of the last 24 h at or above which sync_status warns (default 0.1)' });
const apiLimitThreshold = Type.Number({ minimum: 0, maximum: 1, description: 'Calls in the last minute ÷ the per-minute limit at or above which api_limits warns (default 0.8)' });
const responseTime = Type.Integer({ minimum: 100, maximum: 600_000, description: 'A live call slower than this (ms) makes the connection check warn (default 5000)' });
const emailRecipients = Type.Array(Email, { maxItems: 20, uniqueItems: true, description: 'Default none' });
const slackWebhook = Nullable(Type.String({ minLength: 9, maxLength: 2000, format: 'uri', pattern: '^https://', description: 'An https URL, or null (default)' }));
const alertFrequency = Type.Enum([...ALERT_FREQUENCIES], { description: 'Default immediate' });

export const HealthConfig = Type.Object({
  check_interval_minutes: checkInterval,
  enabled_checks: enabledChecks,
  alert_thresholds: Type.Object({ sync_failure_rate: syncFailureRate, api_limit_threshold: apiLimitThreshold, response_time_threshold_ms: responseTime }),
  notification_settings: Type.Object({ email_alerts: Type.Boolean({ description: 'Default true' }), email_recipients: emailRecipients, slack_webhook: slackWebhook, alert_frequency: alertFrequency }),
  is_active: Type.Boolean({ description: 'Whether monitoring is on (default true)' }),
  updated_at: Nullable(Timestamp),
  updated_by: Nullable(Id),
});
export type HealthConfig = Static<typeof HealthConfig>;
/** The stored part (updated_at and updated_by are columns). */
export type StoredHealthConfig = Omit<HealthConfig, 'updated_at' | 'updated_by'>;

export const HealthConfigBody = Type.Object(
  {
    check_interval_minutes: Type.Optional(checkInterval),
    enabled_checks: Type.Optional(enabledChecks),
    alert_thresholds: Type.Optional(Type.Object(
      { sync_failure_rate: Type.Optional(syncFailureRate), api_limit_threshold: Type.Optional(apiLimitThreshold), response_time_threshold_ms: Type.Optional(responseTime) },
      { additionalProperties: false, description: 'Merged into the stored thresholds' },
    )),
    notification_settings: Type.Optional(Type.Object(
      { email_alerts: Type.Optional(Type.Boolean()), email_recipients: Type.Optional(emailRecipients), slack_webhook: Type.Optional(slackWebhook), alert_frequency: Type.Optional(alertFrequency) },
      { additionalProperties: false, description: 'Merged into the stored settings' },
    )),
    is_active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, description: 'Any subset of the configuration; nested objects are merged, the rest is kept' },
);
export type HealthConfigBody = Static<typeof HealthConfigBody>;

export const HealthConfigResponse = dataOf(HealthConfig);

// ------------------------------------------------------------------ health

export const HealthCheck = Type.Object({
  check_type: Type.Enum([...CHECK_TYPES]),
  status: Type.Enum([...CHECK_STATUSES]),
  message: Type.String(),
  details: Details,
  checked_at: Timestamp,
  response_time_ms: Type.Integer({ description: 'How long the check took (for connection: the live call to the ledger)' }),
});
export type HealthCheck = Static<typeof HealthCheck>;

export const Recommendation = Type.Object({
  type: Type.Enum([...RECOMMENDATION_TYPES]),
  message: Type.String(),
  details: Details,
});
export type Recommendation = Static<typeof Recommendation>;

export const Health = Type.Object({
  realm_id: Type.String(),
  overall_status: Type.Enum([...OVERALL_STATUSES], { description: 'The worst status of the checks that ran; unknown when none is enabled' }),
  last_health_check: Timestamp,
  connection_status: Type.Enum(['active', 'expired', 'error', 'disconnected'], { description: "The connection's status after the checks" }),
  api_limits: Type.Object({
    limit_per_minute: Type.Integer(),
    calls_last_minute: Type.Integer({ description: 'Calls this server made to the company in the last minute' }),
    remaining: Type.Integer(),
    throttled_last_hour: Type.Integer({ description: 'Calls the ledger answered 429 in the last hour' }),
    last_throttled_at: Nullable(Timestamp),
  }),
  sync_statistics: Type.Object({
    last_sync_date: Nullable(Timestamp),
    successful_syncs_24h: Type.Integer(),
    failed_syncs_24h: Type.Integer(),
    partial_syncs_24h: Type.Integer(),
    avg_sync_duration_ms: Nullable(Type.Integer()),
  }, { description: 'Top-level runs (a bulk or full run counts once); last_sync_date is when the latest one finished (completed, partial or failed)' }),
  health_checks: Type.Array(HealthCheck),
  recommendations: Type.Array(Recommendation),
});
export type Health = Static<typeof Health>;

export const HealthResponse = dataOf(Health);

// ------------------------------------------------------------------ diagnostics

export const Probe = Type.Object({
  name: Type.Enum([...PROBE_NAMES]),
  ok: Type.Boolean(),
  response_time_ms: Type.Integer(),
  detail: Type.String({ description: 'What was read (a count, the company) or why the call failed' }),
});
export type Probe = Static<typeof Probe>;

export const Diagnostics = Type.Object({
  realm_id: Type.String(),
  generated_at: Timestamp,
  connection: Type.Object({
    status: Type.Enum(['active', 'expired', 'error', 'disconnected']),
    display_name: Nullable(Type.String()),
    country: Nullable(Type.String()),
    currency_code: Nullable(Type.String()),
    access_token_expires_at: Nullable(Timestamp),
    refresh_token_expires_at: Nullable(Timestamp),
    last_validated_at: Nullable(Timestamp),
    last_refreshed_at: Nullable(Timestamp),
    last_error: Nullable(Type.String()),
  }),
  company: Nullable(Type.Object({ name: Type.String(), country: Nullable(Type.String()), currency: Nullable(Type.String()) })),
  probes: Type.Array(Probe),
  mappings: Type.Object({
    by_entity_type: Counts,
    by_sync_status: Counts,
  }),
  recent_failures: Type.Array(Type.Object({
    sync_id: Id,
    operation_type: Type.String(),
    status: Type.Enum(['failed', 'partial']),
    error_message: Nullable(Type.String()),
    completed_at: Nullable(Timestamp),
  }), { description: 'The last 10 failed or partial top-level runs' }),
  health: Health,
});
export type Diagnostics = Static<typeof Diagnostics>;

export const DiagnosticsResponse = dataOf(Diagnostics);
