import type { Transaction } from 'kysely';
import { notifyAfterCommit } from '../../platform/db/executor.ts';
import type { DB } from '../../platform/db/schema.ts';
import { emit, EVENTS_CHANNEL, type DomainEvent } from '../../platform/events/outbox.ts';
import { newId } from '../../platform/ids.ts';
import { announced } from '../../platform/events/vocabulary.ts';

/** The billing area's event types (announced: listed for webhooks, payloads carry ids and changed fields). */
export const BILLING_EVENT_TYPES = [
  ...announced('billing_settings', [['billing_settings.updated', "The tenant's billing settings changed"]]),
  ...announced('tax_rate', [
    ['tax_rate.created', 'A tax rate was created'],
    ['tax_rate.updated', 'A tax rate changed'],
    ['tax_rate.deleted', 'A tax rate was deleted'],
  ]),
  ...announced('client_tax_settings', [['client_tax_settings.updated', "A client's tax settings (exemption, default rate) changed"]]),
  ...announced('usage_record', [
    ['usage_record.created', "Usage of an item was recorded for a client"],
    ['usage_record.updated', 'A usage record was corrected'],
    ['usage_record.deleted', 'A usage record was deleted'],
  ]),
  ...announced('service_type', [
    ['service_type.created', 'A service type was created'],
    ['service_type.updated', 'A service type changed'],
    ['service_type.deleted', 'A service type was deleted'],
  ]),
  ...announced('service', [
    ['service.created', 'A catalogue service was created'],
    ['service.updated', 'A catalogue service changed'],
    ['service.deleted', 'A catalogue service was deleted'],
  ]),
  ...announced('product', [
    ['product.created', 'A catalogue product was created'],
    ['product.updated', 'A catalogue product changed'],
    ['product.deleted', 'A catalogue product was deleted'],
  ]),
  ...announced('contract', [
    ['contract.created', 'A contract was created (with its assignment to the client)'],
    ['contract.updated', 'A contract changed'],
    ['contract.deleted', 'A contract was deleted'],
    ['contract.line_attached', 'A contract line was attached to a contract'],
    ['contract.line_detached', 'A contract line was detached from a contract'],
  ]),
  ...announced('client_contract', [
    ['client_contract.created', "A contract was assigned to a client's billing profile"],
    ['client_contract.updated', "A contract's assignment changed (dates, billing profile, active)"],
  ]),
  ...announced('contract_line', [
    ['contract_line.created', 'A contract line was created'],
    ['contract_line.updated', 'A contract line changed'],
    ['contract_line.deleted', 'A contract line was deleted'],
    ['contract_line.service_added', 'A service was added to a contract line'],
    ['contract_line.service_updated', "A service's quantity or rate on a contract line changed"],
    ['contract_line.service_removed', 'A service was removed from a contract line'],
  ]),
  ...announced('invoice', [
    ['invoice.created', 'A draft invoice was created (by hand or generated from contracts)'],
    ['invoice.updated', "A draft invoice changed (its fields or items)"],
    ['invoice.deleted', 'A draft invoice was deleted'],
    ['invoice.finalized', 'An invoice was finalized and took its number'],
    ['invoice.sent', 'An invoice was sent'],
    ['invoice.voided', 'An invoice was voided'],
    ['invoice.payment_recorded', 'A payment was recorded against an invoice'],
    ['invoice.payment_reversed', 'A payment was reversed: its money went back onto the invoice (and off the client credit)'],
    ['invoice.credited', 'A credit note or client credit reduced an invoice'],
    ['invoice.paid', 'An invoice was paid in full'],
    ['invoice.annotation_added', 'A note was added to an invoice'],
  ]),
  ...announced('quote', [
    ['quote.created', 'A quote was created'],
    ['quote.updated', 'A draft quote changed (its fields or items)'],
    ['quote.deleted', 'A draft quote was deleted'],
    ['quote.sent', 'A quote was sent to the client'],
    ['quote.accepted', 'A quote was accepted'],
    ['quote.rejected', 'A quote was rejected'],
    ['quote.converted', 'An accepted quote was converted into a draft contract'],
  ]),
];

export type BillingEntity = 'service_type' | 'service' | 'product' | 'contract' | 'client_contract' | 'contract_line' | 'tax_rate' | 'client_tax_settings' | 'usage_record' | 'invoice' | 'quote';
export type BillingChange =
  | 'created' | 'updated' | 'deleted' | 'line_attached' | 'line_detached' | 'service_added' | 'service_updated' | 'service_removed'
  | 'finalized' | 'sent' | 'voided' | 'payment_recorded' | 'payment_reversed' | 'credited' | 'paid' | 'annotation_added' | 'accepted' | 'rejected' | 'converted';

/** The payload key naming the record: `<entity>_id`, except where the table's key says otherwise. */
function idKeyOf(entity: BillingEntity): string {
  return entity === 'service' || entity === 'product' ? 'service_id' : entity === 'client_tax_settings' ? 'client_id' : entity === 'usage_record' ? 'usage_id' : `${entity}_id`;
}

/** `<entity>.<change>` through the outbox in the write's transaction; the payload names the record by `<entity>_id`. */
export function emitBillingEvent(trx: Transaction<DB>, tenant: string, entity: BillingEntity, change: BillingChange, id: string, extra: Record<string, unknown> = {}): Promise<string> {
  return emit(trx, { tenant, event_type: `${entity}.${change}`, aggregate_type: entity, aggregate_id: id, payload: { [idKeyOf(entity)]: id, ...extra } });
}

/** One record of a bulk emission: its id and the rest of its payload. */
export interface BillingEventRow {
  id: string;
  extra?: Record<string, unknown>;
}

/**
 * `<entity>.<change>` for many records at once (invoice generation, a client merge): the same events
 * `emitBillingEvent` records one by one, written by `emitEvents` in a few multi-row statements.
 */
export function emitBillingEvents(trx: Transaction<DB>, tenant: string, entity: BillingEntity, change: BillingChange, rows: readonly BillingEventRow[]): Promise<string[]> {
  const key = idKeyOf(entity);
  return emitEvents(trx, rows.map((r) => ({
    tenant, event_type: `${entity}.${change}`, aggregate_type: entity, aggregate_id: r.id, payload: { [key]: r.id, ...r.extra },
  })));
}

const EVENT_CHUNK = 1000;

/**
 * Many outbox events in the write's transaction, as `emit` (src/platform/events/outbox.ts) records one: the
 * same row shape, a few multi-row statements instead of a statement per event, and one wake-up notice
 * (none when there is nothing to emit).
 */
export async function emitEvents(trx: Transaction<DB>, events: readonly DomainEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  // One timestamp for the batch, passed as text: the same instant `emit` records, without a Date to serialise per row.
  const now = new Date().toISOString();
  const rows = events.map((e) => ({ ...e, event_id: newId(), payload: JSON.stringify(e.payload), occurred_at: now, next_attempt_at: now }));
  for (let i = 0; i < rows.length; i += EVENT_CHUNK) await trx.insertInto('events').values(rows.slice(i, i + EVENT_CHUNK)).execute();
  notifyAfterCommit(trx, EVENTS_CHANNEL);
  return rows.map((r) => r.event_id);
}
