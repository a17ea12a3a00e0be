import type { Database } from './platform/db/database.ts';
import type { Consumer } from './platform/events/relay.ts';
import type { Mailer } from './platform/mail/mailer.ts';
import { autoDisabledMail, webhookFanOut } from './modules/webhooks/index.ts';

/** What the consumers need besides the events. */
export interface ConsumerDeps {
  database: Database;
  /** Sends the e-mails consumers write (a webhook's auto-disable notice). */
  mailer: Mailer;
}

/**
 * The outbox consumers the worker runs, in order. Areas that react to events after commit (outbound
 * webhooks, search indexing, automation) add theirs here.
 */
export function eventConsumers(deps: ConsumerDeps): Consumer[] {
  return [webhookFanOut({ db: deps.database.db }), autoDisabledMail({ db: deps.database.db, mailer: deps.mailer })];
}
