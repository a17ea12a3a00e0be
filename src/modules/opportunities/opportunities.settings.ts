import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { OpportunitySettingsTable } from '../../platform/db/schema.opportunities.ts';

export type OpportunitySettings = Selectable<OpportunitySettingsTable>;

/** The tenant's pipeline settings (defaults until a row exists: nudge after 14 days, renewals 120 days ahead…). */
export async function opportunitySettingsOf(db: Executor, tenant: string): Promise<OpportunitySettings> {
  const row = await db.selectFrom('opportunity_settings').selectAll().where('tenant', '=', tenant).executeTakeFirst();
  return row ?? { tenant, next_opportunity_number: 1, nudge_days: 14, renewal_lead_days: 120, tm_threshold_cents: 120_000, asset_age_years: 6, updated_at: new Date(0) };
}

/**
 * The next opportunity number ('OPP-000042'), taken inside the caller's transaction: the settings row
 * stays locked until it ends, so numbers are unique and a rolled-back create gives its number back.
 */
export async function takeOpportunityNumber(trx: Executor, tenant: string): Promise<string> {
  await trx.insertInto('opportunity_settings').values({ tenant, updated_at: new Date() }).onConflict((oc) => oc.column('tenant').doNothing()).execute();
  const { rows } = await sql<{ n: number | string }>`
    update opportunity_settings set next_opportunity_number = next_opportunity_number + 1 where tenant = ${tenant}
    returning next_opportunity_number - 1 as n
  `.execute(trx);
  return `OPP-${String(rows[0]!.n).padStart(6, '0')}`;
}
