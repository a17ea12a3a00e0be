import type { QuickBooksConfig } from '../../../config.ts';
import type { LedgerProvider } from './provider.ts';
import { createQuickBooksProvider } from './quickbooks.ts';

/** The ledger the server is configured for (QuickBooks Online today); undefined when none is. */
export function ledgerProviderOf(config: { quickbooks: QuickBooksConfig | undefined }): LedgerProvider | undefined {
  const q = config.quickbooks;
  if (!q) return undefined;
  return createQuickBooksProvider({
    clientId: q.clientId,
    clientSecret: q.clientSecret,
    apiBaseUrl: q.apiBaseUrl,
    authorizeUrl: q.authorizeUrl,
    tokenUrl: q.tokenUrl,
    revokeUrl: q.revokeUrl,
    retryBaseMs: q.retryBaseMs,
  });
}
