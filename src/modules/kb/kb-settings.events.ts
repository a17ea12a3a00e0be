import type { Transaction } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { emit } from '../../platform/events/outbox.ts';
import { announced } from '../../platform/events/vocabulary.ts';

/** The knowledge base's category and template events (announced: listed for integrators, not delivered to webhooks). */
export const KB_SETTINGS_EVENT_TYPES = [
  ...announced('kb_category', [
    ['kb_category.created', 'A knowledge-base category was created'],
    ['kb_category.updated', 'A knowledge-base category changed (name, description, parent or display order)'],
    ['kb_category.deleted', 'A knowledge-base category was deleted'],
  ]),
  ...announced('kb_template', [
    ['kb_template.created', 'A knowledge-base article template was created'],
    ['kb_template.updated', 'A knowledge-base article template changed'],
    ['kb_template.deleted', 'A knowledge-base article template was deleted'],
  ]),
];

export type KbSettingsEntity = 'kb_category' | 'kb_template';
export type KbSettingsChange = 'created' | 'updated' | 'deleted';

/** `<entity>.<change>` through the outbox in the write's transaction; the payload names the record by `category_id` / `template_id`. */
export function emitKbSettingsEvent(
  trx: Transaction<DB>,
  tenant: string,
  entity: KbSettingsEntity,
  change: KbSettingsChange,
  id: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const key = entity === 'kb_category' ? 'category_id' : 'template_id';
  return emit(trx, { tenant, event_type: `${entity}.${change}`, aggregate_type: entity, aggregate_id: id, payload: { [key]: id, ...extra } });
}
