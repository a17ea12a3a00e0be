import { expect } from 'vitest';
import type { Api } from './factories.ts';

export interface OpportunityJson {
  opportunity_id: string;
  opportunity_number: string;
  client_id: string;
  status: 'open' | 'won' | 'lost';
  stage: string;
  next_action: string | null;
  next_action_due: string | null;
  current_step_id: string | null;
  mrr_cents: number;
  nrr_cents: number;
  hardware_cents: number;
  currency_code: string;
  values_locked_by_quote: boolean;
  [key: string]: unknown;
}

/** A due time `days` from now, as the API takes it. */
export const dueIn = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString();

/** An open opportunity for the client (new logo, USD, a next action due in two days unless overridden). */
export async function makeOpportunity(api: Api, clientId: string, body: Record<string, unknown> = {}): Promise<OpportunityJson> {
  const res = await api.post('/api/v1/opportunities', {
    client_id: clientId,
    title: 'Managed services for the new office',
    opportunity_type: 'new_logo',
    currency_code: 'USD',
    next_action: 'Call the office manager',
    next_action_due: dueIn(2),
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as OpportunityJson;
}
