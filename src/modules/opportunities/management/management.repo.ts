import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { Confidence, OpportunityStage, OpportunityType } from '../../../platform/db/schema.opportunities.ts';
import { ATTACH_WINDOW_DAYS, STAGES, type ClosedDeal, type ForecastDeal, type Period } from './management.math.ts';

/**
 * Reads of the management views. Every query is the tenant's (and, for a client-portal actor, its one
 * client's). Contracts are read (never written) to tell whether a won new logo attached an agreement.
 */

interface Scope {
  tenant: string;
  /** A client-portal actor's client: only its deals count. */
  onlyClientId?: string;
}

function deals(db: Executor, s: Scope) {
  let q = db.selectFrom('opportunities as o').where('o.tenant', '=', s.tenant);
  if (s.onlyClientId !== undefined) q = q.where('o.client_id', '=', s.onlyClientId);
  return q;
}

/** Open deals expected to close in the period and deals won in it. */
export async function forecastDeals(db: Executor, s: Scope, p: Period): Promise<ForecastDeal[]> {
  const rows = await deals(db, s)
    .select(['o.opportunity_id', 'o.opportunity_number', 'o.title', 'o.owner_id', 'o.currency_code', 'o.stage', 'o.status', 'o.mrr_cents', 'o.nrr_cents', 'o.hardware_cents'])
    .where((eb) =>
      eb.or([
        eb.and([eb('o.status', '=', 'open'), eb('o.expected_close_date', '>=', p.start), eb('o.expected_close_date', '<=', p.end)]),
        eb.and([eb('o.status', '=', 'won'), eb('o.won_at', '>=', p.startAt), eb('o.won_at', '<', p.endBefore)]),
      ]),
    )
    .execute();
  return rows.map((r) => ({ ...r, status: r.status as 'open' | 'won', mrr_cents: Number(r.mrr_cents), nrr_cents: Number(r.nrr_cents), hardware_cents: Number(r.hardware_cents) }));
}

export interface ClosedDealRow extends Omit<ClosedDeal, 'owner_id'> {
  owner_id: string | null;
  mrr_cents: number;
  nrr_cents: number;
  hardware_cents: number;
}

/**
 * Closed deals with their stage at close (the highest uncorrected checkpoint other than won recorded at or
 * before won_at/lost_at; identified when none) and, for won new logos, whether the client started a
 * contract (beyond draft) within the attach window after the win (UTC dates, both ends included).
 */
export async function closedDeals(db: Executor, s: Scope, f: { ownerIds?: readonly string[]; closedIn?: Period; ownedOnly?: boolean }): Promise<ClosedDealRow[]> {
  if (f.ownerIds?.length === 0) return [];
  const rank = sql.raw(STAGES.map((stage, i) => `when '${stage}' then ${i}`).join(' '));
  let q = deals(db, s)
    .select(['o.opportunity_id', 'o.owner_id', 'o.status', 'o.confidence', 'o.opportunity_type', 'o.currency_code', 'o.mrr_cents', 'o.nrr_cents', 'o.hardware_cents'])
    .select([
      sql<number | null>`(
        select max(case e.checkpoint ${rank} end) from opportunity_evidence e
        where e.tenant = o.tenant and e.opportunity_id = o.opportunity_id and e.corrected_at is null and e.checkpoint <> 'won'
          and e.recorded_at <= coalesce(o.won_at, o.lost_at)
      )`.as('rank_at_close'),
      sql<boolean>`(o.status = 'won' and o.opportunity_type = 'new_logo' and exists (
        select 1 from client_contracts cc
        join contracts k on k.tenant = cc.tenant and k.contract_id = cc.contract_id
        where cc.tenant = o.tenant and cc.client_id = o.client_id and k.status <> 'draft'
          and cc.start_date >= (o.won_at at time zone 'UTC')::date
          and cc.start_date <= (o.won_at at time zone 'UTC')::date + ${sql.lit(ATTACH_WINDOW_DAYS)}
      ))`.as('attached'),
    ])
    .where('o.status', 'in', ['won', 'lost']);
  if (f.ownerIds) q = q.where('o.owner_id', 'in', [...f.ownerIds]);
  if (f.ownedOnly) q = q.where('o.owner_id', 'is not', null);
  if (f.closedIn) {
    const p = f.closedIn;
    q = q.where((eb) =>
      eb.or([
        eb.and([eb('o.status', '=', 'won'), eb('o.won_at', '>=', p.startAt), eb('o.won_at', '<', p.endBefore)]),
        eb.and([eb('o.status', '=', 'lost'), eb('o.lost_at', '>=', p.startAt), eb('o.lost_at', '<', p.endBefore)]),
      ]),
    );
  }
  const rows = await q.execute();
  return rows.map((r) => ({
    opportunity_id: r.opportunity_id,
    owner_id: r.owner_id,
    status: r.status as 'won' | 'lost',
    confidence: r.confidence as Confidence,
    opportunity_type: r.opportunity_type as OpportunityType,
    currency_code: r.currency_code,
    mrr_cents: Number(r.mrr_cents),
    nrr_cents: Number(r.nrr_cents),
    hardware_cents: Number(r.hardware_cents),
    stage_at_close: STAGES[Number(r.rank_at_close ?? 0)]!,
    attached: r.attached === true,
  }));
}

export interface OpenAmountRow {
  owner_id: string | null;
  currency_code: string;
  mrr_cents: number;
  nrr_cents: number;
  hardware_cents: number;
}

/** Open deals expected to close in the period (for rollups). */
export async function openInPeriod(db: Executor, s: Scope, p: Period): Promise<OpenAmountRow[]> {
  const rows = await deals(db, s)
    .select(['o.owner_id', 'o.currency_code', 'o.mrr_cents', 'o.nrr_cents', 'o.hardware_cents'])
    .where('o.status', '=', 'open')
    .where('o.expected_close_date', '>=', p.start)
    .where('o.expected_close_date', '<=', p.end)
    .execute();
  return rows.map((r) => ({ ...r, mrr_cents: Number(r.mrr_cents), nrr_cents: Number(r.nrr_cents), hardware_cents: Number(r.hardware_cents) }));
}

/** Display names of users: "First Last", else the e-mail address. */
export async function userNames(db: Executor, tenant: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(['user_id', 'first_name', 'last_name', 'email']).where('tenant', '=', tenant).where('user_id', 'in', [...ids]).execute();
  return new Map(rows.map((u) => [u.user_id, `${u.first_name ?? ''} ${u.last_name ?? ''}`.trim() || u.email]));
}

export async function firstNameOf(db: Executor, tenant: string, userId: string): Promise<string | null> {
  const row = await db.selectFrom('users').select('first_name').where('tenant', '=', tenant).where('user_id', '=', userId).executeTakeFirst();
  return row?.first_name ?? null;
}

export interface QueueDealRow {
  opportunity_id: string;
  opportunity_number: string;
  title: string;
  client_id: string;
  client_name: string;
  stage: OpportunityStage;
  mrr_cents: number;
  nrr_cents: number;
  hardware_cents: number;
  currency_code: string;
  next_action: string | null;
  next_action_due: Date | null;
  last_activity_at: Date;
}

/** The owner's open deals with their client's name. */
export async function openDealsOf(db: Executor, s: Scope, ownerId: string): Promise<QueueDealRow[]> {
  const rows = await deals(db, s)
    .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'o.tenant').onRef('c.client_id', '=', 'o.client_id'))
    .select([
      'o.opportunity_id', 'o.opportunity_number', 'o.title', 'o.client_id', 'c.client_name', 'o.stage', 'o.mrr_cents', 'o.nrr_cents', 'o.hardware_cents',
      'o.currency_code', 'o.next_action', 'o.next_action_due', 'o.last_activity_at',
    ])
    .where('o.owner_id', '=', ownerId)
    .where('o.status', '=', 'open')
    .orderBy('o.opportunity_number')
    .execute();
  return rows.map((r) => ({ ...r, mrr_cents: Number(r.mrr_cents), nrr_cents: Number(r.nrr_cents), hardware_cents: Number(r.hardware_cents) }));
}

/**
 * Suggestions waiting for a decision (pending, or snoozed until now or earlier) on clients of any of the
 * owner's deals, newest first.
 */
export async function waitingSuggestions(db: Executor, s: Scope, ownerId: string, now: Date, limit: number) {
  let q = db
    .selectFrom('opportunity_suggestions as g')
    .innerJoin('clients as c', (j) => j.onRef('c.tenant', '=', 'g.tenant').onRef('c.client_id', '=', 'g.client_id'))
    .select(['g.suggestion_id', 'g.generator_key', 'g.client_id', 'c.client_name', 'g.title', 'g.mrr_cents', 'g.nrr_cents', 'g.currency_code', 'g.status', 'g.snoozed_until', 'g.created_at'])
    .where('g.tenant', '=', s.tenant)
    .where((eb) => eb.or([eb('g.status', '=', 'pending'), eb.and([eb('g.status', '=', 'snoozed'), eb('g.snoozed_until', '<=', now)])]))
    .where('g.client_id', 'in', deals(db, s).select('o.client_id').where('o.owner_id', '=', ownerId));
  if (s.onlyClientId !== undefined) q = q.where('g.client_id', '=', s.onlyClientId);
  const rows = await q.orderBy('g.created_at', 'desc').orderBy('g.suggestion_id', 'desc').limit(limit).execute();
  return rows.map((r) => ({ ...r, mrr_cents: Number(r.mrr_cents), nrr_cents: Number(r.nrr_cents) }));
}
