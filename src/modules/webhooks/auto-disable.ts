import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { Consumer } from '../../platform/events/relay.ts';
import type { Mailer } from '../../platform/mail/mailer.ts';
import { findUserById } from '../users/index.ts';
import { WEBHOOK_EVENTS } from './webhooks.events.ts';

interface AutoDisabledPayload {
  webhook_id: string;
  name: string;
  failing_since: string;
  disabled_at: string;
  created_by_user_id: string | null;
}

/** Control characters (a CR/LF in a name) never reach a mail header. */
const oneLine = (s: string) => [...s].map((c) => (c < ' ' || c === '\u007f' ? ' ' : c)).join('').replace(/ {2,}/g, ' ').trim();

/**
 * E-mails the creator of a webhook that 24 hours of failures disabled. It runs from the outbox event
 * the dispatcher writes in the same transaction as the disable, so the mail survives a crash (and, at
 * least once, may be sent twice). No creator any more, or no address: nothing to send.
 */
export function autoDisabledMail(deps: { db: Kysely<DB>; mailer: Mailer }): Consumer {
  return {
    name: 'webhook-auto-disabled-mail',
    async handle(event) {
      if (event.event_type !== WEBHOOK_EVENTS.autoDisabled) return;
      const p = event.payload as unknown as AutoDisabledPayload;
      if (!p.created_by_user_id) return;
      const user = await findUserById(deps.db, event.tenant, p.created_by_user_id);
      if (!user?.email) return;
      const name = oneLine(p.name);
      await deps.mailer.send({
        to: user.email,
        subject: `Webhook "${name}" was disabled after 24 hours of failed deliveries`,
        text: [
          `Hello ${oneLine([user.first_name, user.last_name].filter(Boolean).join(' ') || user.username)},`,
          '',
          `The outbound webhook "${name}" (${p.webhook_id}) has had only failed deliveries since ${p.failing_since},`,
          `so it was disabled at ${p.disabled_at}. Events are no longer sent to it; attempts that were waiting`,
          'are kept and will be sent once it is enabled again.',
          '',
          'Check the receiver, look at the failed attempts (GET /api/v1/webhooks/{id}/deliveries?status=retrying),',
          'then re-enable it with PUT /api/v1/webhooks/{id} and {"is_active": true}.',
        ].join('\n'),
      });
    },
  };
}
