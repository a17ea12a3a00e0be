import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import type { OpportunitiesTable } from '../../platform/db/schema.opportunities.ts';
import type { DB } from '../../platform/db/schema.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { conflict } from '../../platform/http/errors.ts';
import { emptyPage, listPage } from '../../platform/http/list.ts';
import { requiredText } from '../../platform/http/text.ts';
import { syncSearch } from '../../platform/search/writer.ts';
import type { Updateable } from 'kysely';
import { currencyCode } from '../billing/index.ts';
import { portalClientId } from '../clients/index.ts';
import { assertOpen, requireOpportunity } from './opportunities.access.ts';
import { emitOpportunityEvent } from './opportunities.events.ts';
import { contactOfClient, internalUser } from './opportunities.refs.ts';
import { linkedQuoteIds, opportunityList } from './opportunities.repo.ts';
import type { CreateOpportunityBody, ListOpportunitiesQuery, Opportunity, UpdateOpportunityBody } from './opportunities.schemas.ts';
import { opportunitySettingsOf } from './opportunities.settings.ts';
import { loadOpportunity, toSummary } from './opportunities.view.ts';
import { createOpportunityIn } from './opportunities.writes.ts';

export { loadOpportunity } from './opportunities.view.ts';

const DAY_MS = 86_400_000;
const VALUE_FIELDS = ['mrr_cents', 'nrr_cents', 'hardware_cents', 'currency_code'] as const;

/** Field → {previous, new} for the fields a write changed (the updated event's `changes`). */
function changesOf(before: Record<string, unknown>, set: Record<string, unknown>): Record<string, { previous: unknown; new: unknown }> {
  const out: Record<string, { previous: unknown; new: unknown }> = {};
  for (const [k, v] of Object.entries(set)) if (k !== 'updated_at' && before[k] !== v) out[k] = { previous: before[k], new: v };
  return out;
}

/** Opportunities: the deal record itself (list, read, create, edit, delete). */
export function createOpportunitiesService(deps: { db: Kysely<DB>; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    async list(actor: Actor, query: ListOpportunitiesQuery) {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return emptyPage(query);
      const at = now();
      const settings = await opportunitySettingsOf(db, actor.tenant);
      const list = opportunityList(db, actor.tenant, {
        status: query.status === 'all' ? undefined : query.status,
        stage: query.stage,
        ownerId: query.owner_id,
        clientId: query.client_id,
        onlyClientId: only,
        type: query.opportunity_type,
        currency: query.currency_code?.toUpperCase(),
        stalledBefore: query.stalled_only ? new Date(at.getTime() - settings.nudge_days * DAY_MS) : undefined,
        search: query.search?.trim() || undefined,
      });
      return listPage(query, list, (rows) => rows.map((r) => toSummary(r, settings.nudge_days, at)));
    },

    get: (actor: Actor, id: string): Promise<Opportunity> => loadOpportunity(db, actor, id, now()),

    /** An open deal at stage identified with its first next action (the invariant starts here). */
    create(actor: Actor, body: CreateOpportunityBody): Promise<Opportunity> {
      return withTransaction(db, async (trx) => loadOpportunity(trx, actor, await createOpportunityIn(trx, actor, body), now()));
    },

    /**
     * Partial edit of an open deal. The client is fixed and the next action moves only through
     * complete-action; value and currency are locked while an accepted quote is linked (409).
     */
    update(actor: Actor, id: string, body: UpdateOpportunityBody, ifMatch?: string): Promise<Opportunity> {
      return withTransaction(db, async (trx) => {
        const row = await requireOpportunity(trx, actor, id, true);
        if (ifMatch !== undefined) assertIfMatch(ifMatch, await loadOpportunity(trx, actor, id, now()));
        assertOpen(row, 'be edited');
        const set: Updateable<OpportunitiesTable> = {};
        if (body.title !== undefined) set.title = requiredText(body.title, 'body.title');
        if (body.opportunity_type !== undefined) set.opportunity_type = body.opportunity_type;
        if (body.confidence !== undefined) set.confidence = body.confidence;
        if (body.expected_close_date !== undefined) set.expected_close_date = body.expected_close_date;
        if (body.contact_id !== undefined) {
          if (body.contact_id !== null) await contactOfClient(trx, actor.tenant, body.contact_id, row.client_id, 'body.contact_id');
          set.contact_id = body.contact_id;
        }
        if (body.owner_id !== undefined) {
          if (body.owner_id !== null) await internalUser(trx, actor.tenant, body.owner_id, 'body.owner_id');
          set.owner_id = body.owner_id;
        }
        if (body.mrr_cents !== undefined) set.mrr_cents = body.mrr_cents;
        if (body.nrr_cents !== undefined) set.nrr_cents = body.nrr_cents;
        if (body.hardware_cents !== undefined) set.hardware_cents = body.hardware_cents;
        if (body.currency_code !== undefined) set.currency_code = currencyCode(body.currency_code, 'body.currency_code');
        const changes = changesOf(row, set);
        const lockedChange = VALUE_FIELDS.filter((f) => f in changes);
        if (row.values_locked_by_quote && lockedChange.length > 0) {
          throw conflict(`Opportunity ${row.opportunity_number}'s value is locked by an accepted quote (values_locked_by_quote); unlink the quote to edit ${lockedChange.join(', ')}`, { fields: lockedChange });
        }
        if (Object.keys(changes).length > 0) {
          await trx.updateTable('opportunities').set({ ...set, updated_at: new Date() }).where('tenant', '=', actor.tenant).where('opportunity_id', '=', id).execute();
          await syncSearch(trx, actor.tenant, 'opportunity', [id]);
          await emitOpportunityEvent(trx, actor.tenant, 'updated', id, { opportunity_number: row.opportunity_number, changed_fields: Object.keys(changes), changes });
        }
        return loadOpportunity(trx, actor, id, now());
      });
    },

    /** Only an open deal without linked quotes is deleted (409 naming the rule otherwise); its steps, evidence and commitments go with it. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx: Transaction<DB>) => {
        const row = await requireOpportunity(trx, actor, id, true);
        if (ifMatch !== undefined) assertIfMatch(ifMatch, await loadOpportunity(trx, actor, id, now()));
        if (row.status !== 'open') throw conflict(`Opportunity ${row.opportunity_number} is ${row.status}; only open opportunities can be deleted`, { status: row.status });
        const links = await linkedQuoteIds(trx, actor.tenant, id);
        if (links.length > 0) throw conflict(`Opportunity ${row.opportunity_number} has ${links.length} linked quote(s); unlink quotes before deleting an opportunity`, { quote_ids: links.map((l) => l.quote_id) });
        await trx.deleteFrom('opportunities').where('tenant', '=', actor.tenant).where('opportunity_id', '=', id).execute();
        await syncSearch(trx, actor.tenant, 'opportunity', [id]);
        await emitOpportunityEvent(trx, actor.tenant, 'deleted', id, { opportunity_number: row.opportunity_number, client_id: row.client_id });
      });
    },
  };
}

export type OpportunitiesService = ReturnType<typeof createOpportunitiesService>;
