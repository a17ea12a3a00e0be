import { alwaysIncludedFields, payloadEntityFields, payloadEntityOf } from '../../platform/events/vocabulary.ts';
import type { PayloadFields } from './webhooks.schemas.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The keys of `obj` in the entity's curated order (the outbox keeps payloads as jsonb, which reorders
 * keys), then any others in their own order; kept only when `keep` allows them.
 */
function ordered(obj: Json, curated: readonly string[], keep: (key: string) => boolean): Json {
  const out: Json = {};
  for (const key of curated) if (key in obj && keep(key)) out[key] = obj[key];
  for (const [key, value] of Object.entries(obj)) if (!(key in out) && keep(key)) out[key] = value;
  return out;
}

/**
 * The `data` (and `changes`) a webhook receives: the event's own, projected through the webhook's
 * allowlist for the event's entity (null or absent: everything), always keeping the entity ids.
 */
export function projectPayload(eventType: string, payload: unknown, fields: PayloadFields | null): { data: Json; changes?: Json } {
  const source = isObject(payload) ? payload : {};
  const data = isObject(source.data) ? source.data : {};
  const changes = isObject(source.changes) ? source.changes : undefined;
  const entity = payloadEntityOf(eventType);
  const curated: readonly string[] = entity ? (payloadEntityFields()[entity] ?? []) : [];
  const list = entity ? fields?.[entity] : undefined;
  const allowed = list == null ? undefined : new Set([...list, ...alwaysIncludedFields(eventType)]);
  const keep = (key: string) => allowed === undefined || allowed.has(key);
  return {
    data: ordered(data, curated, keep),
    ...(changes === undefined ? {} : { changes: ordered(changes, curated, keep) }),
  };
}

/** Whether an event passes a webhook's entity filter: its ticket_id, project_id or task_id is listed. */
export function matchesFilter(payload: unknown, filter: { entity_ids: string[] } | null): boolean {
  if (!filter || filter.entity_ids.length === 0) return true;
  const data = isObject(payload) && isObject(payload.data) ? payload.data : {};
  const ids = new Set(filter.entity_ids.map((id) => id.toLowerCase()));
  return ['ticket_id', 'project_id', 'task_id'].some((key) => typeof data[key] === 'string' && ids.has((data[key] as string).toLowerCase()));
}

export interface EnvelopeInput {
  event_id: string;
  event_type: string;
  occurred_at: Date;
  tenant_id: string;
  data: Json;
  changes?: Json;
}

/** The envelope text, keys in this order. Stored once; every attempt sends these exact bytes. */
export function envelopeText(e: EnvelopeInput): string {
  return JSON.stringify({
    event_id: e.event_id,
    event_type: e.event_type,
    occurred_at: e.occurred_at.toISOString(),
    tenant_id: e.tenant_id,
    data: e.data,
    ...(e.changes === undefined ? {} : { changes: e.changes }),
  });
}
