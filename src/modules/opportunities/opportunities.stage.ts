import type { Transaction } from 'kysely';
import type { Checkpoint, EvidenceRefType, EvidenceSource, OpportunityStage } from '../../platform/db/schema.opportunities.ts';
import type { DB } from '../../platform/db/schema.ts';
import { newId } from '../../platform/ids.ts';
import { emitOpportunityEvent } from './opportunities.events.ts';

/** The ladder a deal climbs; the stage is the highest uncorrected checkpoint reached (won and lost both rank 5). */
export const LADDER = ['identified', 'qualified', 'assessment', 'proposed', 'verbal'] as const;
export const DECLARABLE = LADDER;
export const RANK: Readonly<Record<OpportunityStage, number>> = { identified: 0, qualified: 1, assessment: 2, proposed: 3, verbal: 4, won: 5, lost: 5 };

export interface EvidenceInput {
  checkpoint: Checkpoint;
  source: EvidenceSource;
  refType?: EvidenceRefType;
  refId?: string;
  detail?: string | null;
  recordedBy: string | null;
}

/**
 * Appends a fact to the deal's evidence log. Re-recording an identical active fact (same checkpoint and
 * reference) is a no-op, so a replayed hook cannot double an entry. Returns the evidence id (new or existing).
 */
export async function appendEvidence(trx: Transaction<DB>, tenant: string, opportunityId: string, e: EvidenceInput): Promise<string> {
  if (e.refId !== undefined) {
    const same = await trx
      .selectFrom('opportunity_evidence')
      .select('evidence_id')
      .where('tenant', '=', tenant)
      .where('opportunity_id', '=', opportunityId)
      .where('checkpoint', '=', e.checkpoint)
      .where('ref_id', '=', e.refId)
      .where('corrected_at', 'is', null)
      .executeTakeFirst();
    if (same) return same.evidence_id;
  }
  const evidenceId = newId();
  await trx
    .insertInto('opportunity_evidence')
    .values({
      tenant,
      evidence_id: evidenceId,
      opportunity_id: opportunityId,
      checkpoint: e.checkpoint,
      source: e.source,
      ref_type: e.refType ?? null,
      ref_id: e.refId ?? null,
      detail: e.detail ?? null,
      recorded_by: e.recordedBy,
    })
    .execute();
  return evidenceId;
}

/** Stamps a correction on active evidence rows (they stay in the log). */
export async function correctEvidence(trx: Transaction<DB>, tenant: string, evidenceIds: readonly string[], note: string, by: string | null): Promise<void> {
  if (evidenceIds.length === 0) return;
  await trx
    .updateTable('opportunity_evidence')
    .set({ correction_note: note, corrected_by: by, corrected_at: new Date() })
    .where('tenant', '=', tenant)
    .where('evidence_id', 'in', [...evidenceIds])
    .where('corrected_at', 'is', null)
    .execute();
}

/**
 * Derives an open deal's stage from its uncorrected evidence and stores it; emits
 * opportunity.stage_changed when it moved. Closed deals keep won/lost.
 */
export async function recomputeStage(trx: Transaction<DB>, tenant: string, opportunityId: string): Promise<OpportunityStage> {
  const opp = await trx.selectFrom('opportunities').select(['status', 'stage']).where('tenant', '=', tenant).where('opportunity_id', '=', opportunityId).executeTakeFirstOrThrow();
  if (opp.status !== 'open') return opp.stage;
  const active = await trx
    .selectFrom('opportunity_evidence')
    .select('checkpoint')
    .where('tenant', '=', tenant)
    .where('opportunity_id', '=', opportunityId)
    .where('corrected_at', 'is', null)
    .where('checkpoint', '<>', 'won')
    .execute();
  const stage = active.reduce<OpportunityStage>((best, e) => (RANK[e.checkpoint] > RANK[best] ? e.checkpoint : best), 'identified');
  if (stage !== opp.stage) {
    await trx.updateTable('opportunities').set({ stage, stage_rank: RANK[stage], updated_at: new Date() }).where('tenant', '=', tenant).where('opportunity_id', '=', opportunityId).execute();
    await emitOpportunityEvent(trx, tenant, 'stage_changed', opportunityId, { previous_stage: opp.stage, stage });
  }
  return stage;
}
