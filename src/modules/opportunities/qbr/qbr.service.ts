import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { unprocessable } from '../../../platform/http/errors.ts';
import { emptyPage } from '../../../platform/http/list.ts';
import { pageOf, paginated } from '../../../platform/http/pagination.ts';
import { portalClientId, requireVisibleClient } from '../../clients/index.ts';
import type { Opportunity } from '../opportunities.schemas.ts';
import { loadOpportunity } from '../opportunities.service.ts';
import { opportunitySettingsOf } from '../opportunities.settings.ts';
import { createOpportunityIn } from '../opportunities.writes.ts';
import { DAY_MS, NEXT_ACTION_DUE_DAYS } from '../suggestions/generators/common.ts';
import { lockTrigger, qbrYield, setTriggerOpportunity, triggersOfClient } from './qbr.repo.ts';
import type { QbrPack, QbrYieldQuery } from './qbr.schemas.ts';
import { qbrTriggers, type QbrTrigger } from './qbr.triggers.ts';

/**
 * Quarterly business reviews: a client's trigger pack computed live (renewals, aging assets, ticket trend,
 * service whitespace), turning chosen triggers into opportunities (once per trigger), and the yield of
 * triggers per client. Reading the pack writes nothing.
 */
export function createQbrService(deps: { db: Kysely<DB>; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  async function current(actor: Actor, clientId: string, at: Date) {
    const client = await requireVisibleClient(db, actor, clientId);
    const settings = await opportunitySettingsOf(db, actor.tenant);
    const triggers = await qbrTriggers(db, { tenant: actor.tenant, clientId: client.client_id }, at, settings);
    const recorded = await triggersOfClient(db, actor.tenant, client.client_id);
    return { client, triggers, recorded };
  }

  return {
    async pack(actor: Actor, clientId: string): Promise<QbrPack> {
      const { client, triggers, recorded } = await current(actor, clientId, now());
      const acted = new Map(recorded.filter((r) => r.opportunity_id !== null).map((r) => [r.trigger_key, r.opportunity_id]));
      return {
        client_id: client.client_id,
        client_name: client.client_name,
        triggers: triggers.map((t) => ({
          trigger_key: t.trigger_key,
          kind: t.kind,
          title: t.title,
          evidence: t.evidence,
          opportunity_type: t.opportunity_type,
          generator_key: t.generator_key,
          mrr_cents: t.mrr_cents,
          nrr_cents: t.nrr_cents,
          currency_code: t.currency_code,
          default_next_action: t.default_next_action,
          opportunity_id: acted.get(t.trigger_key) ?? null,
        })),
      };
    },

    /**
     * One opportunity per trigger key, in one transaction, in the order given (a repeated key once). A key
     * already acted on returns the deal made then; a key that is neither a current trigger of the client
     * nor acted on for it is a 422 naming every such key.
     */
    async createOpportunities(actor: Actor, clientId: string, keys: readonly string[]): Promise<Opportunity[]> {
      const at = now();
      const { client, triggers, recorded } = await current(actor, clientId, at);
      const wanted = [...new Set(keys)];
      const live = new Map(triggers.map((t) => [t.trigger_key, t]));
      const acted = new Set(recorded.filter((r) => r.opportunity_id !== null).map((r) => r.trigger_key));
      const unknown = wanted.filter((k) => !live.has(k) && !acted.has(k));
      if (unknown.length > 0) {
        throw unprocessable(`Not current QBR triggers of client '${client.client_name}': ${unknown.join(', ')}`, { trigger_keys: unknown });
      }
      const kinds = new Map(recorded.map((r) => [r.trigger_key, r.kind]));
      const ids = await withTransaction(db, async (trx) => {
        const out: string[] = [];
        for (const key of wanted) {
          const trigger = live.get(key);
          const row = await lockTrigger(trx, actor.tenant, { trigger_key: key, client_id: client.client_id, kind: trigger?.kind ?? kinds.get(key)! }, at);
          if (row.opportunity_id !== null) {
            out.push(row.opportunity_id);
            continue;
          }
          // Acted on earlier, but its deal was deleted meanwhile and the trigger no longer fires.
          if (!trigger) throw unprocessable(`Not current QBR triggers of client '${client.client_name}': ${key}`, { trigger_keys: [key] });
          const id = await createFromTrigger(trx, actor, trigger, at);
          await setTriggerOpportunity(trx, actor.tenant, key, id);
          out.push(id);
        }
        return out;
      });
      const result: Opportunity[] = [];
      for (const id of ids) result.push(await loadOpportunity(db, actor, id));
      return result;
    },

    async yield(actor: Actor, query: QbrYieldQuery) {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return emptyPage(query);
      const page = pageOf(query);
      const { rows, total } = await qbrYield(db, actor.tenant, { clientId: only ?? query.client_id, limit: page.limit, offset: page.offset });
      return paginated(rows, total, page);
    },
  };
}

function createFromTrigger(trx: Parameters<typeof createOpportunityIn>[0], actor: Actor, t: QbrTrigger, at: Date): Promise<string> {
  return createOpportunityIn(trx, actor, {
    client_id: t.client_id,
    title: t.title,
    opportunity_type: t.opportunity_type,
    currency_code: t.currency_code,
    next_action: t.default_next_action,
    next_action_due: new Date(at.getTime() + NEXT_ACTION_DUE_DAYS * DAY_MS).toISOString(),
    confidence: 'medium',
    mrr_cents: t.mrr_cents,
    nrr_cents: t.nrr_cents,
    generator_key: t.generator_key,
    generator_context: { qbr: true, qbr_trigger_key: t.trigger_key, qbr_trigger_kind: t.kind, qbr_evidence: t.evidence },
  }, 'body');
}

export type QbrService = ReturnType<typeof createQbrService>;
