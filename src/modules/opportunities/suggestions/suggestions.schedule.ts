import type { Kysely } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { RunSchedule } from '../../../platform/jobs/types.ts';
import { opportunitySettingsOf } from '../opportunities.settings.ts';
import { qbrTriggers, recordQbrTriggers } from '../qbr/qbr.triggers.ts';
import { runSuggestionGenerators, type GenerationResult } from './generators/index.ts';
import { allTenantIds } from './suggestions.repo.ts';

export interface TenantGeneration extends GenerationResult {
  qbr_triggers_recorded: number;
}

/**
 * One tenant's scheduled pass: the suggestion generators, then the QBR triggers firing now recorded as
 * fired (without an opportunity), so the QBR yield counts triggers nobody acted on. Both idempotent.
 */
export async function runTenantGeneration(db: Executor, tenant: string, now: Date): Promise<TenantGeneration> {
  const result = await runSuggestionGenerators(db, tenant, now);
  const triggers = await qbrTriggers(db, { tenant }, now, await opportunitySettingsOf(db, tenant));
  return { ...result, qbr_triggers_recorded: await recordQbrTriggers(db, tenant, triggers, now) };
}

export interface SuggestionScheduleOptions {
  cron?: string;
  now?: () => Date;
  log?: { error(obj: object, msg: string): void };
  /** The per-tenant pass (tests replace it). */
  run?: (db: Kysely<DB>, tenant: string, now: Date) => Promise<unknown>;
}

/**
 * The worker's schedule: every hour (minute 17) each tenant's generators run in turn. A tenant that fails
 * is logged and skipped so the others still run; the run then fails naming how many did, and the next
 * hour is its retry.
 */
export function suggestionGenerationSchedule(db: Kysely<DB>, opts: SuggestionScheduleOptions = {}): RunSchedule {
  const run = opts.run ?? runTenantGeneration;
  return {
    name: 'opportunity-suggestions',
    cron: opts.cron ?? '17 * * * *',
    run: async () => {
      const failed: string[] = [];
      for (const tenant of await allTenantIds(db)) {
        try {
          await run(db, tenant, opts.now?.() ?? new Date());
        } catch (err) {
          failed.push(tenant);
          opts.log?.error({ err, tenant }, 'opportunity suggestion generation failed for a tenant');
        }
      }
      if (failed.length > 0) throw new Error(`Opportunity suggestion generation failed for ${failed.length} tenant(s): ${failed.join(', ')}`);
    },
  };
}
