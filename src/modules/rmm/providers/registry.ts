import type { OutboundClient } from '../../../platform/net/outbound-http.ts';
import type { RmmProvider } from './provider.ts';
import { tacticalRmmProvider, type TacticalRmmOptions } from './tactical-rmm.ts';

/** Every provider a tenant can connect; a second product (e.g. NinjaOne) is one adapter file and one entry here. */
export const PROVIDER_NAMES = ['tactical_rmm'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export type ProviderRegistry = ReadonlyMap<string, RmmProvider>;

export function createProviderRegistry(client: OutboundClient, opts: TacticalRmmOptions = {}): ProviderRegistry {
  const providers: RmmProvider[] = [tacticalRmmProvider(client, opts)];
  return new Map(providers.map((p) => [p.name, p]));
}
