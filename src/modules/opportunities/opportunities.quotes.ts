import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { conflict, notFound } from '../../platform/http/errors.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import { quoteSummaryOf, type QuoteChange, type QuoteSummary } from '../billing/index.ts';
import { assertOpen, requireOpportunity, type OpportunityRow } from './opportunities.access.ts';
import { emitOpportunityEvent } from './opportunities.events.ts';
import { linkedQuoteIds } from './opportunities.repo.ts';
import type { Opportunity } from './opportunities.schemas.ts';
import { appendEvidence, correctEvidence, recomputeStage } from './opportunities.stage.ts';
import { loadOpportunity } from './opportunities.view.ts';
import { touchActivity } from './opportunities.writes.ts';

const ACCEPTED = new Set(['accepted']);

/**
 * The deal's value from its accepted linked quotes: their recurring, one-off service and hardware parts
 * summed in their (single) currency, and locked. Without an accepted quote the value stays as entered
 * (only the lock is released) — unlinking a draft never zeroes a deal. Accepted quotes in two currencies
 * cannot make one value: 409.
 */
async function recomputeValue(trx: Transaction<DB>, actor: Actor, opp: OpportunityRow): Promise<void> {
  const quotes: QuoteSummary[] = [];
  for (const link of await linkedQuoteIds(trx, actor.tenant, opp.opportunity_id)) quotes.push(await quoteSummaryOf(trx, actor, link.quote_id));
  const accepted = quotes.filter((q) => ACCEPTED.has(q.status));
  const before = { mrr_cents: opp.mrr_cents, nrr_cents: opp.nrr_cents, hardware_cents: opp.hardware_cents, currency_code: opp.currency_code, values_locked_by_quote: opp.values_locked_by_quote };
  let after = { ...before, values_locked_by_quote: false };
  if (accepted.length > 0) {
    const currencies = [...new Set(accepted.map((q) => q.currency_code))].sort();
    if (currencies.length > 1) {
      throw conflict(`Opportunity ${opp.opportunity_number} would have accepted quotes in ${currencies.join(' and ')}; a deal's value is in one currency`, { currencies, quote_ids: accepted.map((q) => q.quote_id) });
    }
    after = {
      mrr_cents: accepted.reduce((s, q) => s + q.mrr_cents, 0),
      nrr_cents: accepted.reduce((s, q) => s + q.nrr_cents, 0),
      hardware_cents: accepted.reduce((s, q) => s + q.hardware_cents, 0),
      currency_code: currencies[0]!,
      values_locked_by_quote: true,
    };
  }
  const changed = (Object.keys(after) as (keyof typeof after)[]).filter((k) => after[k] !== before[k]);
  if (changed.length === 0) return;
  await trx.updateTable('opportunities').set({ ...after, updated_at: new Date() }).where('tenant', '=', actor.tenant).where('opportunity_id', '=', opp.opportunity_id).execute();
  await emitOpportunityEvent(trx, actor.tenant, 'updated', opp.opportunity_id, {
    opportunity_number: opp.opportunity_number,
    changed_fields: changed,
    changes: Object.fromEntries(changed.map((k) => [k, { previous: before[k], new: after[k] }])),
    reason: 'quote_value',
  });
}

/** What a linked quote's state says about the deal: sent → proposed; accepted → verbal (with the value). */
async function applyQuoteState(trx: Transaction<DB>, actor: Actor, opp: OpportunityRow, quote: QuoteSummary): Promise<void> {
  const ref = { refType: 'quote' as const, refId: quote.quote_id, source: 'system' as const, recordedBy: null };
  if (quote.sent_at !== null) await appendEvidence(trx, actor.tenant, opp.opportunity_id, { ...ref, checkpoint: 'proposed', detail: `Quote ${quote.quote_number} sent` });
  if (ACCEPTED.has(quote.status)) await appendEvidence(trx, actor.tenant, opp.opportunity_id, { ...ref, checkpoint: 'verbal', detail: `Quote ${quote.quote_number} accepted` });
  await recomputeValue(trx, actor, opp);
  await recomputeStage(trx, actor.tenant, opp.opportunity_id);
  await touchActivity(trx, actor.tenant, opp.opportunity_id);
  await syncSearch(trx, actor.tenant, 'opportunity', [opp.opportunity_id]);
}

/**
 * The quote hook billing runs inside a quote's own transaction: a quote linked to an open deal that is
 * sent, accepted or converted records its evidence and (accepted) sets the deal's value.
 */
export async function onQuoteChange(trx: Transaction<DB>, actor: Actor, quote: QuoteSummary, change: QuoteChange): Promise<void> {
  if (change === 'rejected') return;
  const link = await trx.selectFrom('opportunity_quotes').select('opportunity_id').where('tenant', '=', actor.tenant).where('quote_id', '=', quote.quote_id).executeTakeFirst();
  if (!link) return;
  const opp = await trx.selectFrom('opportunities').selectAll().where('tenant', '=', actor.tenant).where('opportunity_id', '=', link.opportunity_id).forUpdate().executeTakeFirstOrThrow();
  if (opp.status === 'open') await applyQuoteState(trx, actor, opp, quote);
}

/** Linking quotes to a deal (same client only) and unlinking them; the value follows accepted linked quotes. */
export function createOpportunityQuotes(deps: { db: Kysely<DB>; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    link(actor: Actor, id: string, quoteId: string): Promise<Opportunity> {
      return withTransaction(db, async (trx) => {
        const opp = await requireOpportunity(trx, actor, id, true);
        const quote = await quoteSummaryOf(trx, actor, quoteId, true);
        assertOpen(opp, 'link quotes');
        if (quote.client_id !== opp.client_id) {
          throw conflict(`Quote ${quote.quote_number} belongs to another client (${quote.client_name}); a deal links only its own client's quotes`, { quote_client_id: quote.client_id, opportunity_client_id: opp.client_id });
        }
        const existing = await trx.selectFrom('opportunity_quotes').select('opportunity_id').where('tenant', '=', actor.tenant).where('quote_id', '=', quoteId).executeTakeFirst();
        if (existing && existing.opportunity_id !== id) {
          throw conflict(`Quote ${quote.quote_number} is already linked to another opportunity; unlink it there first`, { opportunity_id: existing.opportunity_id });
        }
        if (!existing) {
          await trx.insertInto('opportunity_quotes').values({ tenant: actor.tenant, quote_id: quoteId, opportunity_id: id, linked_by: actor.userId }).execute();
          await applyQuoteState(trx, actor, opp, quote);
          await emitOpportunityEvent(trx, actor.tenant, 'updated', id, { opportunity_number: opp.opportunity_number, changed_fields: ['linked_quotes'], linked_quote_id: quoteId });
        }
        return loadOpportunity(trx, actor, id, now());
      });
    },

    /** Unlinks a quote: its evidence is corrected ("Quote Q-1 unlinked") and the value recomputed from what stays accepted. */
    unlink(actor: Actor, id: string, quoteId: string): Promise<Opportunity> {
      return withTransaction(db, async (trx) => {
        const opp = await requireOpportunity(trx, actor, id, true);
        const link = await trx.selectFrom('opportunity_quotes').select('quote_id').where('tenant', '=', actor.tenant).where('opportunity_id', '=', id).where('quote_id', '=', quoteId).executeTakeFirst();
        if (!link) throw notFound('Quote linked to this opportunity', quoteId);
        assertOpen(opp, 'unlink quotes');
        const quote = await quoteSummaryOf(trx, actor, quoteId);
        const evidence = await trx
          .selectFrom('opportunity_evidence')
          .select('evidence_id')
          .where('tenant', '=', actor.tenant)
          .where('opportunity_id', '=', id)
          .where('ref_type', '=', 'quote')
          .where('ref_id', '=', quoteId)
          .where('corrected_at', 'is', null)
          .execute();
        await correctEvidence(trx, actor.tenant, evidence.map((e) => e.evidence_id), `Quote ${quote.quote_number} unlinked`, actor.userId);
        await trx.deleteFrom('opportunity_quotes').where('tenant', '=', actor.tenant).where('quote_id', '=', quoteId).execute();
        await recomputeValue(trx, actor, opp);
        await recomputeStage(trx, actor.tenant, id);
        await syncSearch(trx, actor.tenant, 'opportunity', [id]);
        await emitOpportunityEvent(trx, actor.tenant, 'updated', id, { opportunity_number: opp.opportunity_number, changed_fields: ['linked_quotes'], unlinked_quote_id: quoteId });
        return loadOpportunity(trx, actor, id, now());
      });
    },
  };
}

export type OpportunityQuotes = ReturnType<typeof createOpportunityQuotes>;
