import type { Selectable } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { Executor } from '../../platform/db/executor.ts';
import type { OpportunityEvidenceTable, OpportunityStepsTable } from '../../platform/db/schema.opportunities.ts';
import { notFound } from '../../platform/http/errors.ts';
import { iso } from '../../platform/time.ts';
import { quoteSummaryOf } from '../billing/index.ts';
import { canSeeClient } from '../clients/index.ts';
import { openCommitmentCount } from './commitments/commitments.repo.ts';
import { evidenceOf, findOpportunityView, linkedQuoteIds, type OpportunityViewRow } from './opportunities.repo.ts';
import type { Evidence, Opportunity, OpportunitySummary, Step } from './opportunities.schemas.ts';
import { opportunitySettingsOf } from './opportunities.settings.ts';
import { RANK } from './opportunities.stage.ts';

const DAY_MS = 86_400_000;

export function toSummary(r: OpportunityViewRow, nudgeDays: number, now: Date): OpportunitySummary {
  const idleMs = now.getTime() - r.last_activity_at.getTime();
  return {
    opportunity_id: r.opportunity_id,
    opportunity_number: r.opportunity_number,
    title: r.title,
    client_id: r.client_id,
    client_name: r.client_name,
    contact_id: r.contact_id,
    contact_name: r.contact_name,
    owner_id: r.owner_id,
    owner_name: r.owner_name,
    opportunity_type: r.opportunity_type,
    status: r.status,
    stage: r.stage,
    confidence: r.confidence,
    mrr_cents: r.mrr_cents,
    nrr_cents: r.nrr_cents,
    hardware_cents: r.hardware_cents,
    currency_code: r.currency_code,
    values_locked_by_quote: r.values_locked_by_quote,
    expected_close_date: r.expected_close_date,
    next_action: r.next_action,
    next_action_due: iso(r.next_action_due),
    current_step_id: r.current_step_id,
    last_activity_at: iso(r.last_activity_at),
    days_since_activity: Math.max(0, Math.floor(idleMs / DAY_MS)),
    is_stalled: r.status === 'open' && idleMs > nudgeDays * DAY_MS,
    loss_reason: r.loss_reason,
    loss_notes: r.loss_notes,
    lost_to: r.lost_to,
    generator_key: r.generator_key,
    generator_context: r.generator_context,
    suggestion_id: r.suggestion_id,
    converted_contract_id: r.converted_contract_id,
    converted_project_id: r.converted_project_id,
    won_at: iso(r.won_at),
    lost_at: iso(r.lost_at),
    created_by: r.created_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function toEvidence(e: Selectable<OpportunityEvidenceTable>): Evidence {
  return {
    evidence_id: e.evidence_id,
    opportunity_id: e.opportunity_id,
    checkpoint: e.checkpoint,
    source: e.source,
    ref_type: e.ref_type,
    ref_id: e.ref_id,
    detail: e.detail,
    recorded_by: e.recorded_by,
    recorded_at: iso(e.recorded_at),
    correction_note: e.correction_note,
    corrected_by: e.corrected_by,
    corrected_at: iso(e.corrected_at),
  };
}

export function toStep(s: Selectable<OpportunityStepsTable>): Step {
  return {
    step_id: s.step_id,
    opportunity_id: s.opportunity_id,
    title: s.title,
    due_at: iso(s.due_at),
    status: s.status,
    sort_order: s.sort_order,
    interaction_id: s.interaction_id,
    completed_at: iso(s.completed_at),
    completed_by: s.completed_by,
    created_by: s.created_by,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
  };
}

const RUNGS = ['identified', 'qualified', 'assessment', 'proposed', 'verbal', 'won'] as const;

/** Each checkpoint with the newest active evidence that reached it; below the stage without evidence = skipped. */
function ladderOf(stage: OpportunityViewRow['stage'], evidence: readonly Evidence[]): Opportunity['ladder'] {
  const reachedRank = stage === 'lost' ? Math.max(-1, ...evidence.filter((e) => e.corrected_at === null).map((e) => RANK[e.checkpoint])) : RANK[stage];
  return RUNGS.map((checkpoint) => {
    const active = evidence.filter((e) => e.checkpoint === checkpoint && e.corrected_at === null).at(-1) ?? null;
    const rank = RANK[checkpoint];
    const state = active !== null || checkpoint === 'identified' ? 'reached' : rank < reachedRank ? 'skipped' : 'pending';
    return { checkpoint, state, evidence: active };
  });
}

/** The full detail of a deal the actor may see (404 otherwise): summary, ladder, linked quotes, open commitments. */
export async function loadOpportunity(db: Executor, actor: Actor, id: string, now = new Date()): Promise<Opportunity> {
  const row = await findOpportunityView(db, actor.tenant, id);
  if (!row || !canSeeClient(actor, row.client_id)) throw notFound('Opportunity', id);
  const [settings, evidence, links, commitments] = await Promise.all([
    opportunitySettingsOf(db, actor.tenant),
    evidenceOf(db, actor.tenant, id),
    linkedQuoteIds(db, actor.tenant, id),
    openCommitmentCount(db, actor.tenant, id),
  ]);
  const linked_quotes: Opportunity['linked_quotes'] = [];
  for (const link of links) {
    const q = await quoteSummaryOf(db, actor, link.quote_id);
    linked_quotes.push({
      quote_id: q.quote_id,
      quote_number: q.quote_number,
      status: q.status,
      total_cents: q.total_cents,
      mrr_cents: q.mrr_cents,
      nrr_cents: q.nrr_cents,
      hardware_cents: q.hardware_cents,
      currency_code: q.currency_code,
      sent_at: q.sent_at,
      accepted_at: q.accepted_at,
      linked_at: iso(link.linked_at),
    });
  }
  return {
    ...toSummary(row, settings.nudge_days, now),
    ladder: ladderOf(row.stage, evidence.map(toEvidence)),
    linked_quotes,
    open_commitment_count: commitments,
  };
}
