import type { Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { QuoteSummary } from './quotes.schemas.ts';

export type QuoteChange = 'sent' | 'accepted' | 'rejected' | 'converted';
export type QuoteHook = (trx: Transaction<DB>, actor: Actor, quote: QuoteSummary, change: QuoteChange) => Promise<void>;

/**
 * What other areas do when a quote moves, inside the quote's own transaction (an opportunity records the
 * quote as evidence and takes its value from accepted quotes). A failing hook rolls the move back with it.
 */
export class QuoteHooks {
  readonly #hooks: QuoteHook[] = [];

  on(hook: QuoteHook): void {
    this.#hooks.push(hook);
  }

  async run(trx: Transaction<DB>, actor: Actor, quote: QuoteSummary, change: QuoteChange): Promise<void> {
    for (const hook of this.#hooks) await hook(trx, actor, quote, change);
  }
}
