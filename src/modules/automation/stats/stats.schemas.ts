import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf } from '../../../platform/http/schemas.ts';

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const AutomationStatistics = Type.Object({
  total_rules: count('Rules of the tenant'),
  active_rules: count('Rules with status active'),
  inactive_rules: count('Rules with status inactive'),
  draft_rules: count('Rules with status draft'),
  error_rules: count('Rules the engine set to error'),
  total_executions: count('Executions of any status'),
  successful_executions: count('Executions with status completed'),
  failed_executions: count('Executions with status failed or timeout'),
  executions_today: count('Executions created since 00:00 UTC today'),
  executions_this_week: count('Executions created since Monday 00:00 UTC'),
  executions_this_month: count('Executions created since the 1st of the month, 00:00 UTC'),
  avg_execution_time_ms: Nullable(Type.Number({ description: 'Mean duration of the executions that finished; null when none did' })),
  success_rate_percent: Nullable(Type.Number({ description: 'successful / (successful + failed) × 100, two decimals; null when none finished' })),
  most_used_trigger_types: Type.Array(Type.Object({ trigger_type: Type.String(), count: Type.Integer() }), { description: 'By number of executions, most first' }),
  most_used_action_types: Type.Array(Type.Object({ action_type: Type.String(), count: Type.Integer() }), { description: 'By number of action steps run, most first' }),
});
export type AutomationStatistics = Static<typeof AutomationStatistics>;

export const GROUP_BY = ['hour', 'day', 'week', 'month'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

const Moment = (what: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.String({ format: 'date' })], {
    description: `${what}: a timestamp, or a date (YYYY-MM-DD, UTC)`,
  });

export const PerformanceQuery = Type.Object(
  {
    date_from: Type.Optional(Moment('Start (inclusive; default: date_to less 24 hours, 30 days, 12 weeks or 12 months by group_by)')),
    date_to: Type.Optional(Moment('End (exclusive; a date includes that whole day; default now)')),
    rule_ids: Type.Optional(Type.Array(Id, { maxItems: 100, description: 'Only these rules (repeat the parameter)' })),
    group_by: Type.Optional(Type.Enum([...GROUP_BY], { description: 'Period length (default day); UTC, weeks start on Monday. At most 31 days by hour, 366 by day, 731 by week, 1,827 by month' })),
  },
  { additionalProperties: false },
);
export type PerformanceQuery = Static<typeof PerformanceQuery>;

export const PerformancePoint = Type.Object({
  period_start: Timestamp,
  execution_count: Type.Integer({ description: 'Executions created in the period' }),
  successful: Type.Integer({ description: 'Of them, completed' }),
  failed: Type.Integer({ description: 'Of them, failed or timed out' }),
  success_rate: Nullable(Type.Number({ description: 'successful / (successful + failed) × 100; null when none finished' })),
  error_rate: Nullable(Type.Number({ description: 'failed / (successful + failed) × 100; null when none finished' })),
  avg_duration_ms: Nullable(Type.Number({ description: 'Mean duration of the finished executions; null when none' })),
  throughput_per_hour: Type.Number({ description: 'execution_count / the period\'s length in hours' }),
});
export type PerformancePoint = Static<typeof PerformancePoint>;

export const StatisticsResponse = dataOf(AutomationStatistics);
export const PerformanceResponse = Type.Object({
  data: Type.Array(PerformancePoint, { description: 'Every period of the range, oldest first (empty periods included)' }),
  meta: Type.Object({ group_by: Type.Enum([...GROUP_BY]), date_from: Timestamp, date_to: Timestamp }),
});
