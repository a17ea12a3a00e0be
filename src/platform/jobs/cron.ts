import { CronExpressionParser } from 'cron-parser';

/** The first time strictly after `after` that matches `cron` (UTC). Throws on an invalid expression. */
export function nextCronTime(cron: string, after: Date): Date {
  return CronExpressionParser.parse(cron, { currentDate: after, tz: 'UTC', strict: false }).next().toDate();
}
