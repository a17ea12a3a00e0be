import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { billingSettingsOf } from './settings.ts';

export type NumberedDocument = 'invoice' | 'credit_note' | 'quote';

/**
 * The next number of the tenant's sequence for a document kind ('INV-0042'), taken inside the caller's
 * transaction. The settings row stays locked until that transaction ends, so concurrent callers queue and
 * a rolled-back caller gives its number back: the sequence has no gaps and no repeats.
 */
export async function takeNumber(trx: Executor, tenant: string, kind: NumberedDocument): Promise<string> {
  await trx.insertInto('billing_settings').values({ tenant, updated_at: new Date() }).onConflict((oc) => oc.column('tenant').doNothing()).execute();
  const next = sql.ref(`next_${kind}_number`);
  const prefix = sql.ref(`${kind}_number_prefix`);
  const { rows } = await sql<{ prefix: string; n: number | string }>`
    update billing_settings set ${next} = ${next} + 1 where tenant = ${tenant}
    returning ${prefix} as prefix, ${next} - 1 as n
  `.execute(trx);
  const row = rows[0]!;
  return `${row.prefix}${String(row.n).padStart(4, '0')}`;
}

/**
 * Days from issue to due for a client's free-text payment terms: the number they name ('Net 30',
 * '45 days'), 0 for 'Due on receipt' / 'immediate', otherwise the tenant's default.
 */
export async function paymentTermsDays(db: Executor, tenant: string, terms: string | null): Promise<number> {
  const days = termsDays(terms);
  return days ?? (await billingSettingsOf(db, tenant)).default_payment_terms_days;
}

export function termsDays(terms: string | null): number | undefined {
  if (!terms) return undefined;
  const n = /(\d{1,3})/.exec(terms);
  if (n) return Math.min(Number(n[1]), 365);
  if (/receipt|immediate|cod\b/i.test(terms)) return 0;
  return undefined;
}
