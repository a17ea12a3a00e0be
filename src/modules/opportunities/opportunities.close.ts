import type { Kysely } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { AppError, conflict } from '../../platform/http/errors.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import { convertQuoteIn, type QuoteHooks } from '../billing/index.ts';
import { applyTemplateInTrx } from '../projects/index.ts';
import { assertOpen, requireOpportunity } from './opportunities.access.ts';
import { emitOpportunityEvent } from './opportunities.events.ts';
import { openCommitmentCount } from './commitments/commitments.repo.ts';
import type { LoseBody, Opportunity, WinBody } from './opportunities.schemas.ts';
import { appendEvidence } from './opportunities.stage.ts';
import { loadOpportunity } from './opportunities.view.ts';
import { skipCurrentStep } from './opportunities.writes.ts';

/** A conversion the caller could not do by itself is a 403 naming the permission it needs. */
function assertMay(actor: Actor, permission: string, what: string): void {
  if (!actor.permissions.has(permission)) throw new AppError('FORBIDDEN', `Winning with ${what} needs the ${permission} permission`, { required: permission });
}

/** Closing a deal: won (with its conversions) or lost (with a reason). Either ends the next-action discipline. */
export function createOpportunityClose(deps: { db: Kysely<DB>; publicUrl: string; quoteHooks: () => QuoteHooks; now?: () => Date }) {
  const { db, publicUrl } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    /**
     * Wins an open deal in one transaction: open commitments block it; an accepted linked quote may become a
     * draft contract and a project template may be applied for the client; then the deal is won, its current
     * step skipped and the won fact recorded. Any failure leaves nothing behind.
     */
    win(actor: Actor, id: string, body: WinBody): Promise<Opportunity> {
      if (body.convert_quote_id !== undefined) assertMay(actor, 'contract:create', 'a quote conversion');
      if (body.project_template_id !== undefined) assertMay(actor, 'project:create', 'a project template');
      return withTransaction(db, async (trx) => {
        const opp = await requireOpportunity(trx, actor, id, true);
        assertOpen(opp, 'be won');
        const commitments = await openCommitmentCount(trx, actor.tenant, id);
        if (commitments > 0) throw conflict(`Resolve or decline ${commitments} open commitment(s) before marking this opportunity won`, { open_commitment_count: commitments });
        let contractId: string | null = null;
        let projectId: string | null = null;
        if (body.convert_quote_id !== undefined) {
          const link = await trx.selectFrom('opportunity_quotes').select('quote_id').where('tenant', '=', actor.tenant).where('opportunity_id', '=', id).where('quote_id', '=', body.convert_quote_id).executeTakeFirst();
          if (!link) throw conflict(`Quote '${body.convert_quote_id}' is not linked to opportunity ${opp.opportunity_number}; the conversion quote must be linked`, { convert_quote_id: body.convert_quote_id });
          contractId = (await convertQuoteIn(trx, actor, body.convert_quote_id, undefined, deps.quoteHooks())).contract_id;
        }
        if (body.project_template_id !== undefined) {
          const project = await applyTemplateInTrx(trx, actor, body.project_template_id, {
            project_name: body.project_name ?? opp.title,
            client_id: opp.client_id,
            start_date: body.project_start_date ?? null,
          }, { publicUrl });
          projectId = project.project_id;
        }
        const at = new Date();
        await skipCurrentStep(trx, actor.tenant, opp.current_step_id);
        await trx
          .updateTable('opportunities')
          .set({
            status: 'won',
            stage: 'won',
            stage_rank: 5,
            won_at: at,
            current_step_id: null,
            next_action: null,
            next_action_due: null,
            converted_contract_id: contractId ?? opp.converted_contract_id,
            converted_project_id: projectId ?? opp.converted_project_id,
            last_activity_at: at,
            updated_at: at,
          })
          .where('tenant', '=', actor.tenant)
          .where('opportunity_id', '=', id)
          .execute();
        await appendEvidence(trx, actor.tenant, id, { checkpoint: 'won', source: 'user_declared', detail: 'Opportunity marked won', recordedBy: actor.userId });
        await syncSearch(trx, actor.tenant, 'opportunity', [id]);
        await emitOpportunityEvent(trx, actor.tenant, 'won', id, {
          opportunity_number: opp.opportunity_number,
          client_id: opp.client_id,
          previous_stage: opp.stage,
          currency_code: opp.currency_code,
          converted_contract_id: contractId,
          converted_project_id: projectId,
        });
        return loadOpportunity(trx, actor, id, now());
      });
    },

    /** Loses an open deal with a reason from the list (and optional notes and competitor). */
    lose(actor: Actor, id: string, body: LoseBody): Promise<Opportunity> {
      return withTransaction(db, async (trx) => {
        const opp = await requireOpportunity(trx, actor, id, true);
        assertOpen(opp, 'be lost');
        const at = new Date();
        await skipCurrentStep(trx, actor.tenant, opp.current_step_id);
        await trx
          .updateTable('opportunities')
          .set({
            status: 'lost',
            stage: 'lost',
            stage_rank: 5,
            lost_at: at,
            loss_reason: body.loss_reason,
            loss_notes: body.loss_notes?.trim() || null,
            lost_to: body.lost_to?.trim() || null,
            current_step_id: null,
            next_action: null,
            next_action_due: null,
            last_activity_at: at,
            updated_at: at,
          })
          .where('tenant', '=', actor.tenant)
          .where('opportunity_id', '=', id)
          .execute();
        await syncSearch(trx, actor.tenant, 'opportunity', [id]);
        await emitOpportunityEvent(trx, actor.tenant, 'lost', id, { opportunity_number: opp.opportunity_number, client_id: opp.client_id, previous_stage: opp.stage, loss_reason: body.loss_reason });
        return loadOpportunity(trx, actor, id, now());
      });
    },
  };
}

export type OpportunityClose = ReturnType<typeof createOpportunityClose>;
