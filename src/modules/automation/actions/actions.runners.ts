import type { Kysely } from 'kysely';
import type { Config } from '../../../config.ts';
import type { SecretBox } from '../../../platform/crypto/secret-box.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { Mailer } from '../../../platform/mail/mailer.ts';
import { OutboundClient } from '../../../platform/net/outbound-http.ts';
import type { ActionRunner } from '../automation.types.ts';
import { ACTION_TYPES } from './actions.catalog.ts';
import { callUrlRunner } from './call-url.ts';
import { recordRunners } from './records.ts';
import { sendEmailRunner } from './send-email.ts';

export interface ActionRunnerDeps {
  db: Kysely<DB>;
  mailer: Mailer;
  /** Not used by the runners today (the engine hands call_url the rule's decrypted signing secret). */
  secretBox?: SecretBox;
  config: Pick<Readonly<Config>, 'publicUrl' | 'mailFrom' | 'webhookAllowPrivate'>;
  /**
   * The SSRF-guarded client call_url uses (WorkerDeps.outbound). Without one, a client configured like the
   * webhook dispatcher's (PSA_WEBHOOK_ALLOW_PRIVATE) is made on first use and lives as long as the process.
   */
  outbound?: OutboundClient;
  /** The clock of call_url's signatures (tests). */
  now?: () => number;
}

/**
 * The runner of every action type of ACTION_DEFINITIONS, built once per worker. Each checks the owner's
 * permissions and the filled-in config against the action's schema at every run; transactional ones
 * write in the `trx` they get (the engine's step transaction), external ones get null.
 */
export function createActionRunners(deps: ActionRunnerDeps): Record<string, ActionRunner> {
  let own: OutboundClient | undefined;
  const outbound = () => deps.outbound ?? (own ??= new OutboundClient({ allowPrivate: deps.config.webhookAllowPrivate }));
  const runners: Record<string, ActionRunner> = {
    ...recordRunners({ db: deps.db, publicUrl: deps.config.publicUrl }),
    send_email: sendEmailRunner({ mailer: deps.mailer, mailFrom: deps.config.mailFrom }),
    call_url: callUrlRunner({ outbound, now: deps.now }),
  };
  const missing = ACTION_TYPES.filter((type) => !(type in runners));
  if (missing.length > 0) throw new Error(`no runner for action type(s) ${missing.join(', ')}`);
  return runners;
}
