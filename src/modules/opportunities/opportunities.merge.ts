import { sql, type Transaction } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import type { MergeContext, MergeParticipant } from '../clients/index.ts';
import { emitInteractionEvent, emitOpportunityEvent } from './opportunities.events.ts';

const n = sql<number>`count(*)::int`.as('n');

export type OpportunitiesMergeCounts = {
  opportunities: number;
  interactions: number;
  opportunity_suggestions: number;
  opportunity_qbr_triggers: number;
  /** Only when non-zero: the source's suggestions / QBR triggers the target already has (the target's are kept). */
  opportunity_suggestions_dropped?: number;
  opportunity_qbr_triggers_dropped?: number;
};

/**
 * Suggestions and QBR triggers are deduplicated by a key that embeds the client's id
 * (`tm:<client>:<quarter>`, …). On a merge the source's keys are rewritten to name the target, so the
 * generators keep deduplicating against them; a key the target already holds is a duplicate, and the
 * target's row is kept (the source's is dropped).
 */
const renamed = (column: 'dedupe_key' | 'trigger_key', ctx: MergeContext) => sql<string>`replace(${sql.ref(column)}, ${ctx.sourceId}, ${ctx.targetId})`;

/** The source's suggestions whose renamed key the target (or anyone) already holds. */
function duplicateSuggestions(db: Executor, ctx: MergeContext) {
  return db
    .selectFrom('opportunity_suggestions as s')
    .where('s.tenant', '=', ctx.tenant)
    .where('s.client_id', '=', ctx.sourceId)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('opportunity_suggestions as b')
          .select(sql`1`.as('one'))
          .where('b.tenant', '=', ctx.tenant)
          .whereRef('b.suggestion_id', '<>', 's.suggestion_id')
          .where(sql<boolean>`b.dedupe_key = replace(s.dedupe_key, ${ctx.sourceId}, ${ctx.targetId})`),
      ),
    );
}

function duplicateTriggers(db: Executor, ctx: MergeContext) {
  return db
    .selectFrom('opportunity_qbr_triggers as q')
    .where('q.tenant', '=', ctx.tenant)
    .where('q.client_id', '=', ctx.sourceId)
    .where(sql<boolean>`replace(q.trigger_key, ${ctx.sourceId}, ${ctx.targetId}) <> q.trigger_key`)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('opportunity_qbr_triggers as b')
          .select(sql`1`.as('one'))
          .where('b.tenant', '=', ctx.tenant)
          .where(sql<boolean>`b.trigger_key = replace(q.trigger_key, ${ctx.sourceId}, ${ctx.targetId})`),
      ),
    );
}

async function countWhere(db: Executor, table: 'opportunities' | 'interactions' | 'opportunity_suggestions' | 'opportunity_qbr_triggers', ctx: MergeContext): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select(n)
    .where('tenant', '=', ctx.tenant)
    .where('client_id', '=', ctx.sourceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function withDropped(counts: OpportunitiesMergeCounts, suggestions: number, triggers: number): OpportunitiesMergeCounts {
  if (suggestions > 0) counts.opportunity_suggestions_dropped = suggestions;
  if (triggers > 0) counts.opportunity_qbr_triggers_dropped = triggers;
  return counts;
}

/**
 * The opportunities area's part in a client merge (`POST /clients/{id}/merge`, run by the clients area in
 * one transaction with the source and target client rows locked). The rows naming the source move to the
 * target: its opportunities (their contact stays: the contacts move too; steps, evidence, commitments and
 * linked quotes follow the deal), its interactions, its suggestions and its QBR triggers (keys renamed;
 * duplicates of the target's dropped, the target's kept).
 *
 * Each moved deal emits `opportunity.updated` and each moved interaction `interaction.updated`, with
 * `changes.client_id` and `merge: true`; both are re-synced in search (their documents carry the client).
 */
export function opportunitiesMergeParticipant(): MergeParticipant {
  return {
    name: 'opportunities',

    async count(db: Executor, ctx: MergeContext): Promise<OpportunitiesMergeCounts> {
      const [opportunities, interactions, suggestions, triggers, dupSuggestions, dupTriggers] = await Promise.all([
        countWhere(db, 'opportunities', ctx),
        countWhere(db, 'interactions', ctx),
        countWhere(db, 'opportunity_suggestions', ctx),
        countWhere(db, 'opportunity_qbr_triggers', ctx),
        duplicateSuggestions(db, ctx).select(n).executeTakeFirstOrThrow().then((r) => Number(r.n)),
        duplicateTriggers(db, ctx).select(n).executeTakeFirstOrThrow().then((r) => Number(r.n)),
      ]);
      return withDropped(
        { opportunities, interactions, opportunity_suggestions: suggestions - dupSuggestions, opportunity_qbr_triggers: triggers - dupTriggers },
        dupSuggestions,
        dupTriggers,
      );
    },

    async move(trx: Transaction<DB>, ctx: MergeContext): Promise<OpportunitiesMergeCounts> {
      const { tenant, sourceId, targetId } = ctx;
      const changes = { client_id: { previous: sourceId, new: targetId } };

      const deals = await trx
        .updateTable('opportunities')
        .set({ client_id: targetId, updated_at: sql<Date>`now()` })
        .where('tenant', '=', tenant)
        .where('client_id', '=', sourceId)
        .returning(['opportunity_id', 'opportunity_number'])
        .execute();
      deals.sort((a, b) => a.opportunity_number.localeCompare(b.opportunity_number, 'en', { numeric: true }));
      const dealIds = deals.map((d) => d.opportunity_id);
      if (dealIds.length > 0) await syncSearch(trx, tenant, 'opportunity', dealIds);
      for (const id of dealIds) await emitOpportunityEvent(trx, tenant, 'updated', id, { client_id: targetId, changes, merge: true });

      const moved = await trx
        .updateTable('interactions')
        .set({ client_id: targetId, updated_at: sql<Date>`now()` })
        .where('tenant', '=', tenant)
        .where('client_id', '=', sourceId)
        .returning(['interaction_id', 'opportunity_id'])
        .execute();
      moved.sort((a, b) => (a.interaction_id < b.interaction_id ? -1 : 1));
      if (moved.length > 0) await syncSearch(trx, tenant, 'interaction', moved.map((i) => i.interaction_id));
      for (const i of moved) await emitInteractionEvent(trx, tenant, 'updated', i.interaction_id, { client_id: targetId, opportunity_id: i.opportunity_id, changes, merge: true });

      const droppedSuggestions = await trx
        .deleteFrom('opportunity_suggestions')
        .where('tenant', '=', tenant)
        .where('suggestion_id', 'in', duplicateSuggestions(trx, ctx).select('s.suggestion_id'))
        .returning('suggestion_id')
        .execute();
      const suggestions = await trx
        .updateTable('opportunity_suggestions')
        .set({ client_id: targetId, dedupe_key: renamed('dedupe_key', ctx), updated_at: sql<Date>`now()` })
        .where('tenant', '=', tenant)
        .where('client_id', '=', sourceId)
        .returning('suggestion_id')
        .execute();

      const droppedTriggers = await trx
        .deleteFrom('opportunity_qbr_triggers')
        .where('tenant', '=', tenant)
        .where('trigger_key', 'in', duplicateTriggers(trx, ctx).select('q.trigger_key'))
        .returning('trigger_key')
        .execute();
      const triggers = await trx
        .updateTable('opportunity_qbr_triggers')
        .set({ client_id: targetId, trigger_key: renamed('trigger_key', ctx) })
        .where('tenant', '=', tenant)
        .where('client_id', '=', sourceId)
        .returning('trigger_key')
        .execute();

      return withDropped(
        { opportunities: deals.length, interactions: moved.length, opportunity_suggestions: suggestions.length, opportunity_qbr_triggers: triggers.length },
        droppedSuggestions.length,
        droppedTriggers.length,
      );
    },
  };
}
