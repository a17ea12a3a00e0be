import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { InteractionType } from '../../../platform/db/schema.opportunities.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { emptyPage, listPage, type ListPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { iso } from '../../../platform/time.ts';
import { canSeeClient, portalClientId } from '../../clients/index.ts';
import { requireOpportunity } from '../opportunities.access.ts';
import { emitInteractionEvent } from '../opportunities.events.ts';
import { clientRef, contactOfClient, internalUser } from '../opportunities.refs.ts';
import { deleteInteraction, findInteraction, interactionList, opportunityRef, timelineList, updateInteraction, type InteractionRow } from './interactions.repo.ts';
import type { CreateInteractionBody, Interaction, ListInteractionsQuery, TimelineEntry, TimelineQuery, UpdateInteractionBody } from './interactions.schemas.ts';
import { insertInteractionIn } from './interactions.writes.ts';

export function toInteraction(r: InteractionRow): Interaction {
  return {
    interaction_id: r.interaction_id,
    client_id: r.client_id,
    client_name: r.client_name,
    contact_id: r.contact_id,
    contact_name: r.contact_name,
    opportunity_id: r.opportunity_id,
    opportunity_number: r.opportunity_number,
    interaction_type: r.interaction_type,
    title: r.title,
    notes: r.notes,
    interaction_date: iso(r.interaction_date),
    duration_minutes: r.duration_minutes,
    user_id: r.user_id,
    user_name: r.user_name,
    created_by: r.created_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** The interaction, or 404 (another tenant's, or a client the actor may not see). */
async function row(ex: Executor, actor: Actor, id: string, lock = false): Promise<InteractionRow> {
  const found = await findInteraction(ex, actor.tenant, id, lock);
  if (!found || !canSeeClient(actor, found.client_id)) throw notFound('Interaction', id);
  return found;
}

const view = async (ex: Executor, actor: Actor, id: string): Promise<Interaction> => toInteraction(await row(ex, actor, id));

/** An opportunity the interaction may name: one of the tenant's, of the same client (400 when unknown, 422 when another client's). */
async function opportunityOfClient(ex: Executor, actor: Actor, id: string, clientId: string, path: string): Promise<void> {
  const opp = await opportunityRef(ex, actor.tenant, id);
  if (!opp || !canSeeClient(actor, opp.client_id)) throw validation(path, `no opportunity '${id}' in this tenant`);
  if (opp.client_id !== clientId) {
    throw unprocessable(`${path}: opportunity ${opp.opportunity_number} belongs to another client; an interaction's opportunity must be of its client '${clientId}'`, {
      opportunity_id: id,
      opportunity_client_id: opp.client_id,
      client_id: clientId,
    });
  }
}

/** A date-time the schema accepted, as a Date; one the calendar does not have is a 400 naming the field. */
function dateOf(value: string, path: string): Date {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw validation(path, 'is not a valid date-time');
  return d;
}

/** Interactions: logged calls, e-mails, meetings and notes with a client, optionally on one of its deals. */
export function createInteractionsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    list(actor: Actor, query: ListInteractionsQuery): Promise<ListPage<Interaction>> {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return Promise.resolve(emptyPage(query));
      const list = interactionList(db, actor.tenant, {
        clientId: query.client_id,
        onlyClientId: only,
        contactId: query.contact_id,
        opportunityId: query.opportunity_id,
        type: query.interaction_type,
        userId: query.user_id,
        from: query.from === undefined ? undefined : dateOf(query.from, 'querystring.from'),
        to: query.to === undefined ? undefined : dateOf(query.to, 'querystring.to'),
        search: query.search?.trim() || undefined,
      });
      return listPage(query, list, (rows) => rows.map(toInteraction));
    },

    get: (actor: Actor, id: string): Promise<Interaction> => view(db, actor, id),

    /** Logs an interaction (client visible and not merged; contact and opportunity of that client; user active and internal). */
    async create(actor: Actor, body: CreateInteractionBody): Promise<Interaction> {
      return withTransaction(db, async (trx) => {
        const { tenant } = actor;
        const title = requiredText(body.title, 'body.title');
        const client = await clientRef(trx, actor, body.client_id, 'body.client_id');
        if (body.contact_id) await contactOfClient(trx, tenant, body.contact_id, client.client_id, 'body.contact_id');
        if (body.opportunity_id) await opportunityOfClient(trx, actor, body.opportunity_id, client.client_id, 'body.opportunity_id');
        if (body.user_id) await internalUser(trx, tenant, body.user_id, 'body.user_id');
        const userId = body.user_id === undefined ? (actor.userType === 'client' ? null : actor.userId) : body.user_id;
        const id = await insertInteractionIn(trx, tenant, actor.userId, {
          client_id: client.client_id,
          contact_id: body.contact_id ?? null,
          opportunity_id: body.opportunity_id ?? null,
          interaction_type: body.interaction_type as InteractionType,
          title,
          notes: optionalText(body.notes) ?? null,
          interaction_date: body.interaction_date === undefined ? new Date() : dateOf(body.interaction_date, 'body.interaction_date'),
          duration_minutes: body.duration_minutes ?? null,
          user_id: userId,
        });
        return view(trx, actor, id);
      });
    },

    /**
     * Partial update. Moving it to another client re-checks the contact and opportunity it keeps; each
     * changed field is in the event's `changes` ({previous, new}).
     */
    async update(actor: Actor, id: string, body: UpdateInteractionBody, ifMatch?: string): Promise<Interaction> {
      return withTransaction(db, async (trx) => {
        const { tenant } = actor;
        const current = await row(trx, actor, id, true);
        assertIfMatch(ifMatch, toInteraction(current));
        const clientId = body.client_id ?? current.client_id;
        if (clientId !== current.client_id) await clientRef(trx, actor, clientId, 'body.client_id');
        const contactId = body.contact_id === undefined ? current.contact_id : body.contact_id;
        const opportunityId = body.opportunity_id === undefined ? current.opportunity_id : body.opportunity_id;
        if (contactId !== null && (body.contact_id !== undefined || clientId !== current.client_id)) {
          await contactOfClient(trx, tenant, contactId, clientId, 'body.contact_id');
        }
        if (opportunityId !== null && (body.opportunity_id !== undefined || clientId !== current.client_id)) {
          await opportunityOfClient(trx, actor, opportunityId, clientId, 'body.opportunity_id');
        }
        if (body.user_id && body.user_id !== current.user_id) await internalUser(trx, tenant, body.user_id, 'body.user_id');

        const next = {
          client_id: clientId,
          contact_id: contactId,
          opportunity_id: opportunityId,
          interaction_type: (body.interaction_type as InteractionType | undefined) ?? current.interaction_type,
          title: body.title === undefined ? current.title : requiredText(body.title, 'body.title'),
          notes: body.notes === undefined ? current.notes : (optionalText(body.notes) ?? null),
          interaction_date: body.interaction_date === undefined ? current.interaction_date : dateOf(body.interaction_date, 'body.interaction_date'),
          duration_minutes: body.duration_minutes === undefined ? current.duration_minutes : body.duration_minutes,
          user_id: body.user_id === undefined ? current.user_id : body.user_id,
        };
        const changes: Record<string, { previous: unknown; new: unknown }> = {};
        for (const key of Object.keys(next) as (keyof typeof next)[]) {
          const before = key === 'interaction_date' ? iso(current.interaction_date) : current[key];
          const after = key === 'interaction_date' ? iso(next.interaction_date) : next[key];
          if (before !== after) changes[key] = { previous: before, new: after };
        }
        if (Object.keys(changes).length === 0) return toInteraction(current);
        await updateInteraction(trx, tenant, id, { ...next, updated_at: new Date() });
        await syncSearch(trx, tenant, 'interaction', [id]);
        await emitInteractionEvent(trx, tenant, 'updated', id, { client_id: clientId, opportunity_id: opportunityId, changes });
        return view(trx, actor, id);
      });
    },

    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await row(trx, actor, id, true);
        assertIfMatch(ifMatch, toInteraction(current));
        await deleteInteraction(trx, actor.tenant, id);
        await syncSearch(trx, actor.tenant, 'interaction', [id]);
        await emitInteractionEvent(trx, actor.tenant, 'deleted', id, { client_id: current.client_id, opportunity_id: current.opportunity_id });
      });
    },

    /** A deal's interactions, newest first, paged (404 for a deal the caller cannot see). */
    async timeline(actor: Actor, opportunityId: string, query: TimelineQuery): Promise<ListPage<TimelineEntry>> {
      await requireOpportunity(db, actor, opportunityId);
      return listPage(query, timelineList(db, actor.tenant, opportunityId), (rows) =>
        rows.map((r) => ({
          interaction_id: r.interaction_id,
          interaction_type: r.interaction_type,
          title: r.title,
          notes: r.notes,
          interaction_date: iso(r.interaction_date),
          user_id: r.user_id,
          user_name: r.user_name,
        })),
      );
    },
  };
}

export type InteractionsService = ReturnType<typeof createInteractionsService>;
