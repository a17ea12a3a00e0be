import type { Executor } from '../../../../platform/db/executor.ts';
import { whitespaceSignals, type SignalScope } from '../signals.repo.ts';
import { clip, dayOf, type SuggestionCandidate } from './common.ts';

/**
 * Whitespace: a service type (the catalogue's category) carried by the active contracts of at least half
 * of the clients with an active contract, missing from this client's (`whitespace:<client>:<service_type_id>`).
 * Priced in the client's default currency; the value is left for the seller (0).
 */
export async function whitespaceCandidates(db: Executor, scope: SignalScope, now: Date): Promise<SuggestionCandidate[]> {
  const rows = await whitespaceSignals(db, scope, dayOf(now));
  return rows.map((r) => ({
    generator_key: 'whitespace',
    client_id: r.client_id,
    title: clip(`Offer ${r.service_type_name} (used by ${r.adopting_clients} of ${r.clients_with_active_contracts} contracted clients)`),
    evidence: {
      reason: `${r.adopting_clients} of ${r.clients_with_active_contracts} clients with an active contract have ${r.service_type_name} on it; this client has none`,
      service_type_id: r.service_type_id,
      service_type_name: r.service_type_name,
      adopting_clients: r.adopting_clients,
      clients_with_active_contracts: r.clients_with_active_contracts,
      adoption_rate: Math.round((r.adopting_clients / r.clients_with_active_contracts) * 1000) / 1000,
    },
    mrr_cents: 0,
    nrr_cents: 0,
    currency_code: r.default_currency_code,
    dedupe_key: `whitespace:${r.client_id}:${r.service_type_id}`,
  }));
}
