import { sql, type Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { isDeliveredEventType } from '../../platform/events/vocabulary.ts';
import type { Consumer, OutboxEvent } from '../../platform/events/relay.ts';
import { newId } from '../../platform/ids.ts';
import { envelopeText, matchesFilter, projectPayload } from './envelope.ts';
import { DELIVERY_CHANNEL } from './webhooks.repo.ts';
import type { EventFilter, PayloadFields } from './webhooks.schemas.ts';

interface Subscriber {
  tenant: string;
  event_type: string;
  webhook_id: string;
  payload_fields: PayloadFields | null;
  event_filter: EventFilter | null;
}

/** The active webhooks subscribed to each (tenant, event type) pair, in one query. */
async function subscribers(db: Kysely<DB>, pairs: readonly { tenant: string; event_type: string }[]): Promise<Subscriber[]> {
  const { rows } = await sql<Subscriber>`
    select p.tenant, p.event_type, w.webhook_id, w.payload_fields, w.event_filter
    from unnest(${pairs.map((p) => p.tenant)}::uuid[], ${pairs.map((p) => p.event_type)}::text[]) as p(tenant, event_type)
    join webhooks w on w.tenant = p.tenant and w.is_active and p.event_type = any(w.event_types)
    order by w.created_at`.execute(db);
  return rows;
}

/**
 * Turns delivered events into one pending first attempt per subscribed, active webhook whose entity
 * filter the event passes, with the envelope built (and projected through the webhook's allowlist)
 * once, here. One statement inserts them all and NOTIFYs the dispatchers at commit. Idempotent: a
 * redelivered event hits the unique key and adds nothing.
 */
async function fanOut(db: Kysely<DB>, events: readonly OutboxEvent[], at: Date): Promise<void> {
  const delivered = events.filter((e) => isDeliveredEventType(e.event_type));
  if (delivered.length === 0) return;
  const pairs = [...new Map(delivered.map((e) => [`${e.tenant}/${e.event_type}`, { tenant: e.tenant, event_type: e.event_type }])).values()];
  const byPair = new Map<string, Subscriber[]>();
  for (const s of await subscribers(db, pairs)) {
    const key = `${s.tenant}/${s.event_type}`;
    byPair.set(key, [...(byPair.get(key) ?? []), s]);
  }
  const rows: { tenant: string; delivery_id: string; webhook_id: string; event_id: string; event_type: string; body: string }[] = [];
  for (const event of delivered) {
    for (const hook of byPair.get(`${event.tenant}/${event.event_type}`) ?? []) {
      if (!matchesFilter(event.payload, hook.event_filter)) continue;
      const projected = projectPayload(event.event_type, event.payload, hook.payload_fields);
      const body = envelopeText({ event_id: event.event_id, event_type: event.event_type, occurred_at: new Date(event.occurred_at), tenant_id: event.tenant, ...projected });
      rows.push({ tenant: event.tenant, delivery_id: newId(), webhook_id: hook.webhook_id, event_id: event.event_id, event_type: event.event_type, body });
    }
  }
  if (rows.length === 0) return;
  const col = <K extends keyof (typeof rows)[number]>(k: K) => rows.map((r) => r[k]);
  await sql`
    with added as (
      insert into webhook_deliveries (tenant, delivery_id, webhook_id, event_id, event_type, cycle, attempt, status, request_body, next_attempt_at, created_at)
      select x.tenant, x.delivery_id, x.webhook_id, x.event_id, x.event_type, 1, 1, 'pending', x.body, ${at}::timestamptz, ${at}::timestamptz
      from unnest(${col('tenant')}::uuid[], ${col('delivery_id')}::uuid[], ${col('webhook_id')}::uuid[], ${col('event_id')}::uuid[],
        ${col('event_type')}::text[], ${col('body')}::text[]) as x(tenant, delivery_id, webhook_id, event_id, event_type, body)
      on conflict (tenant, webhook_id, event_id, cycle, attempt) do nothing
      returning 1
    )
    select pg_notify(${DELIVERY_CHANNEL}, '') from (select count(*) as n from added) c where c.n > 0`.execute(db);
}

/** The outbox consumer of outbound webhooks: fans each delivered event out to its subscribers (in batches). */
export function webhookFanOut(deps: { db: Kysely<DB>; now?: () => Date }): Consumer {
  const now = deps.now ?? (() => new Date());
  return {
    name: 'webhook-fan-out',
    handle: (event) => fanOut(deps.db, [event], now()),
    handleBatch: (events) => fanOut(deps.db, events, now()),
  };
}
