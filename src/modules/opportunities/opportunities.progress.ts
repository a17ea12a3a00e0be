import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { Checkpoint } from '../../platform/db/schema.opportunities.ts';
import type { DB } from '../../platform/db/schema.ts';
import { conflict, notFound, validation } from '../../platform/http/errors.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import { assertOpen, requireOpportunity, type OpportunityRow } from './opportunities.access.ts';
import { emitOpportunityEvent } from './opportunities.events.ts';
import { evidenceOf, stepsOf } from './opportunities.repo.ts';
import type { CompleteActionBody, CompleteStepBody, CorrectEvidenceBody, DeclareEvidenceBody, Evidence, Opportunity, Step } from './opportunities.schemas.ts';
import { appendEvidence, correctEvidence, RANK, recomputeStage } from './opportunities.stage.ts';
import { loadOpportunity, toEvidence, toStep } from './opportunities.view.ts';
import { completeCurrentStep, nextActionOf, touchActivity } from './opportunities.writes.ts';

/**
 * Declares the deal has reached a checkpoint: moving backward corrects every active evidence above the
 * target ("Stage manually set to X"); declaring identified only corrects. The stage follows the log.
 */
async function declareStage(trx: Transaction<DB>, actor: Actor, opp: OpportunityRow, checkpoint: Exclude<Checkpoint, 'won'>, detail: string | null): Promise<void> {
  const above = (await evidenceOf(trx, actor.tenant, opp.opportunity_id)).filter((e) => e.corrected_at === null && e.checkpoint !== 'won' && RANK[e.checkpoint] > RANK[checkpoint]);
  await correctEvidence(trx, actor.tenant, above.map((e) => e.evidence_id), `Stage manually set to ${checkpoint}`, actor.userId);
  if (checkpoint !== 'identified') await appendEvidence(trx, actor.tenant, opp.opportunity_id, { checkpoint, source: 'user_declared', detail, recordedBy: actor.userId });
  await recomputeStage(trx, actor.tenant, opp.opportunity_id);
}

/** A deal's progress: its steps and next action, and its evidence log (the stage's source). */
export function createOpportunityProgress(deps: { db: Kysely<DB>; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  /** Completes the current step and installs the replacement, in one transaction with the deal row locked. */
  async function complete(trx: Transaction<DB>, actor: Actor, opp: OpportunityRow, body: CompleteActionBody, checkpoint?: CompleteStepBody['checkpoint']): Promise<void> {
    assertOpen(opp, 'complete actions');
    const next = nextActionOf(body.next_action, body.next_action_due);
    const done = await completeCurrentStep(trx, actor, opp, next);
    if (checkpoint !== undefined) await declareStage(trx, actor, opp, checkpoint, `Declared on completing a step`);
    await syncSearch(trx, actor.tenant, 'opportunity', [opp.opportunity_id]);
    await emitOpportunityEvent(trx, actor.tenant, 'updated', opp.opportunity_id, {
      opportunity_number: opp.opportunity_number,
      changed_fields: ['next_action', 'next_action_due'],
      changes: { next_action: { previous: opp.next_action, new: next.title }, next_action_due: { previous: opp.next_action_due?.toISOString() ?? null, new: next.due.toISOString() } },
      completed_step_id: done.completedStepId,
      interaction_id: done.interactionId,
    });
  }

  return {
    /** Records the finished next action as an interaction and installs the replacement, atomically. */
    completeAction(actor: Actor, id: string, body: CompleteActionBody): Promise<Opportunity> {
      return withTransaction(db, async (trx) => {
        await complete(trx, actor, await requireOpportunity(trx, actor, id, true), body);
        return loadOpportunity(trx, actor, id, now());
      });
    },

    async steps(actor: Actor, id: string): Promise<Step[]> {
      await requireOpportunity(db, actor, id);
      return (await stepsOf(db, actor.tenant, id)).map(toStep);
    },

    /** Completes the deal's current step (the only one that can be), optionally declaring a checkpoint; returns the steps. */
    completeStep(actor: Actor, id: string, stepId: string, body: CompleteStepBody): Promise<Step[]> {
      return withTransaction(db, async (trx) => {
        const opp = await requireOpportunity(trx, actor, id, true);
        const step = (await stepsOf(trx, actor.tenant, id)).find((s) => s.step_id === stepId);
        if (!step) throw notFound('Step of this opportunity', stepId);
        assertOpen(opp, 'have steps completed');
        if (step.status === 'done') throw conflict(`Step '${step.title}' is already done`, { status: step.status });
        if (step.step_id !== opp.current_step_id) throw conflict(`Step '${step.title}' is ${step.status}; only the current step can be completed`, { status: step.status, current_step_id: opp.current_step_id });
        await complete(trx, actor, opp, body, body.checkpoint);
        return (await stepsOf(trx, actor.tenant, id)).map(toStep);
      });
    },

    async evidence(actor: Actor, id: string): Promise<Evidence[]> {
      await requireOpportunity(db, actor, id);
      return (await evidenceOf(db, actor.tenant, id)).map(toEvidence);
    },

    /** Appends declared evidence (or corrects back to a lower checkpoint); returns the deal with its new stage. */
    declare(actor: Actor, id: string, body: DeclareEvidenceBody): Promise<Opportunity> {
      return withTransaction(db, async (trx) => {
        const opp = await requireOpportunity(trx, actor, id, true);
        assertOpen(opp, 'change stage');
        await declareStage(trx, actor, opp, body.checkpoint, body.detail?.trim() || null);
        await touchActivity(trx, actor.tenant, id);
        await syncSearch(trx, actor.tenant, 'opportunity', [id]);
        return loadOpportunity(trx, actor, id, now());
      });
    },

    /** Stamps a correction (the audit note) on active evidence; the stage is derived again. */
    correct(actor: Actor, id: string, evidenceId: string, body: CorrectEvidenceBody): Promise<Opportunity> {
      return withTransaction(db, async (trx) => {
        const opp = await requireOpportunity(trx, actor, id, true);
        const entry = (await evidenceOf(trx, actor.tenant, id)).find((e) => e.evidence_id === evidenceId);
        if (!entry) throw notFound('Evidence of this opportunity', evidenceId);
        assertOpen(opp, 'have evidence corrected');
        if (entry.corrected_at !== null) throw conflict(`Evidence '${evidenceId}' was already corrected (${entry.correction_note}); the log is append-only`, { corrected_at: entry.corrected_at.toISOString() });
        const note = body.correction_note.trim();
        if (note === '') throw validation('body.correction_note', 'must not be blank: a correction needs an audit note');
        await correctEvidence(trx, actor.tenant, [evidenceId], note, actor.userId);
        await recomputeStage(trx, actor.tenant, id);
        await touchActivity(trx, actor.tenant, id);
        await syncSearch(trx, actor.tenant, 'opportunity', [id]);
        return loadOpportunity(trx, actor, id, now());
      });
    },
  };
}

export type OpportunityProgress = ReturnType<typeof createOpportunityProgress>;
