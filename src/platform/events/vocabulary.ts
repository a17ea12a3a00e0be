/**
 * The public event vocabulary: every event name integrators can subscribe to, which of them are
 * delivered to outbound webhooks, and the curated `data` fields each delivered entity carries. Areas
 * declare their events in their manifests; the composition root installs them here.
 *
 * Areas emit delivered events through the outbox with `payload = { data, changes? }`, where `data`
 * holds exactly the entity's payload fields (built inside the write's transaction, so a delivery never
 * shows a state other than the one the event describes) and `changes` (on `*.updated` only) is
 * `{ field: { previous, new } }`. The webhook fan-out wraps that into the envelope.
 */

export interface EventTypeInfo {
  event_type: string;
  entity: string;
  description: string;
  /** Whether outbound webhooks receive it (the spec delivers ticket and project events only). */
  delivered: boolean;
  /**
   * Delivered events: the payload allowlist entity whose fields `data` holds, and the fields every
   * delivery keeps whatever a webhook's allowlist says (the entity ids, flags the spec always sends).
   */
  payload?: { entity: string; always: readonly string[] };
}

/** What one area adds: its event types, and the selectable `data` fields of its payload entities. */
export interface EventContribution {
  types: readonly EventTypeInfo[];
  payloadEntities?: Readonly<Record<string, readonly string[]>>;
}

/** Event types announced in the vocabulary but not delivered to webhooks. */
export const announced = (entity: string, list: readonly (readonly [string, string])[]): EventTypeInfo[] =>
  list.map(([event_type, description]) => ({ event_type, entity, description, delivered: false }));

/** Delivered event types of one payload entity: `names` maps a key to the event type, `what` describes it. */
export const delivered = (
  entity: string,
  names: Readonly<Record<string, string>>,
  what: Readonly<Record<string, string>>,
  payload: { entity: string; always: readonly string[] },
): EventTypeInfo[] => Object.entries(names).map(([key, event_type]) => ({ event_type, entity, description: what[key]!, delivered: true, payload }));

let vocabulary: readonly EventTypeInfo[] = [];
let byType = new Map<string, EventTypeInfo>();
let payloadEntities: Readonly<Record<string, readonly string[]>> = {};
let installed = false;

/** Reading the vocabulary before the module list installed it would drop every delivery: a loud failure instead. */
function assertInstalled(): void {
  if (!installed) throw new Error('the event vocabulary is not installed: import src/modules.ts (the module list) first');
}

/** Installs the vocabulary from the manifests' contributions, in manifest order. */
export function installEventVocabulary(contributions: readonly EventContribution[]): void {
  const types = contributions.flatMap((c) => c.types);
  const seen = new Map<string, EventTypeInfo>();
  for (const t of types) {
    if (seen.has(t.event_type)) throw new Error(`event type ${t.event_type} is declared twice`);
    seen.set(t.event_type, t);
  }
  const entities: Record<string, readonly string[]> = {};
  for (const c of contributions) {
    for (const [entity, fields] of Object.entries(c.payloadEntities ?? {})) {
      if (entities[entity]) throw new Error(`payload entity ${entity} is declared twice`);
      entities[entity] = fields;
    }
  }
  vocabulary = types;
  byType = seen;
  payloadEntities = entities;
  installed = true;
}

export const eventVocabulary = (): readonly EventTypeInfo[] => (assertInstalled(), vocabulary);
export const eventTypeInfo = (type: string): EventTypeInfo | undefined => (assertInstalled(), byType.get(type));
export const isDeliveredEventType = (type: string): boolean => eventTypeInfo(type)?.delivered === true;

/** The payload-allowlist entities a webhook may restrict, with their selectable `data` fields. */
export const payloadEntityFields = (): Readonly<Record<string, readonly string[]>> => (assertInstalled(), payloadEntities);

/** The allowlist entity of a delivered event type, if it has one. */
export const payloadEntityOf = (type: string): string | undefined => eventTypeInfo(type)?.payload?.entity;

/** Fields every delivery of this event type keeps whatever its allowlist says. */
export const alwaysIncludedFields = (type: string): readonly string[] => eventTypeInfo(type)?.payload?.always ?? [];
