import type { Static } from 'typebox';
import { bodyChecker } from '../../../platform/actions/support.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { Mailer } from '../../../platform/mail/mailer.ts';
import type { ActionRunContext, ActionRunner } from '../automation.types.ts';
import { assertMayRun, assertNotAborted, definitionOf, untilAborted } from './action-support.ts';
import type { SendEmailConfig } from './actions.catalog.ts';

/** The domain of the sender's address (`PSA <psa@example.com>` → example.com); a fixed one when it has none. */
export function senderDomain(mailFrom: string): string {
  const match = /@([A-Za-z0-9.-]+)>?\s*$/.exec(mailFrom.trim());
  return match?.[1] ?? 'psa.invalid';
}

/** `<execution_id.action_index@domain>`: the same for every attempt of a step. */
export const messageIdOf = (idempotencyKey: string, domain: string): string => `<${idempotencyKey.replace(/[^A-Za-z0-9.-]/g, '.')}@${domain}>`;

/**
 * send_email: a plain-text message through the platform mailer. External (no transaction): a retried step
 * sends again, with the same Message-ID and X-Service-Idempotency-Key so receivers can recognise the repeat.
 * Marked Auto-Submitted (RFC 3834) so auto-responders do not answer it.
 */
export function sendEmailRunner(deps: { mailer: Mailer; mailFrom: string }): ActionRunner {
  const def = definitionOf('send_email');
  const check = bodyChecker(def.config);
  const domain = senderDomain(deps.mailFrom);
  return async (ctx: ActionRunContext, raw) => {
    assertMayRun(ctx.actor, def);
    const config = check(raw) as Static<typeof SendEmailConfig>;
    assertNotAborted(ctx, 'send_email');
    const messageId = messageIdOf(ctx.idempotencyKey, domain);
    const to = [...new Set(config.to)];
    const cc = [...new Set(config.cc ?? [])].filter((a) => !to.includes(a));
    const send = deps.mailer.send({
      to,
      cc,
      subject: config.subject.replace(/[\r\n]+/g, ' ').trim() || '(no subject)',
      text: config.body,
      messageId,
      headers: {
        'Auto-Submitted': 'auto-generated',
        'X-Service-Idempotency-Key': ctx.idempotencyKey,
        'X-Service-Automation-Rule-Id': ctx.ruleId,
        'X-Service-Automation-Execution-Id': ctx.executionId,
      },
    });
    try {
      await untilAborted(send, ctx.signal, () => new AppError('UPSTREAM_ERROR', 'send_email: the action\'s timeout elapsed before the mailer answered', { reason: 'timeout', retryable: true }));
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError('UPSTREAM_ERROR', `send_email: the mailer failed: ${(err as Error).message}`.slice(0, 1000), { reason: 'mailer', retryable: true });
    }
    return { message_id: messageId, to, cc };
  };
}
