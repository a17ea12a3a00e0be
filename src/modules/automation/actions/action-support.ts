import type { Transaction } from 'kysely';
import { bodyChecker } from '../../../platform/actions/support.ts';
import type { Actor } from '../../../platform/auth/context.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { ActionDefinition, ActionRunContext, ActionRunner } from '../automation.types.ts';
import { actionDefinition } from './actions.catalog.ts';

/** The definition of a type this folder implements (a typo is a programming error). */
export function definitionOf(type: string): ActionDefinition {
  const def = actionDefinition(type);
  if (!def) throw new Error(`unknown action type '${type}'`);
  return def;
}

/** The owner must hold every permission the action needs, at every run (roles change after a rule is saved). */
export function assertMayRun(actor: Actor, def: ActionDefinition): void {
  const missing = def.permissions.filter((p) => !actor.permissions.has(p));
  if (missing.length > 0) {
    throw new AppError('FORBIDDEN', `The rule's owner lacks the permission ${missing.join(', ')} that ${def.type} needs`, { required: missing });
  }
}

/** Refuses to start a step whose deadline already passed. */
export function assertNotAborted(ctx: ActionRunContext, type: string): void {
  if (ctx.signal.aborted) throw new AppError('UPSTREAM_ERROR', `${type}: the action's timeout elapsed before it started`, { reason: 'timeout', retryable: true });
}

/**
 * A runner for a transactional action: checks the owner's permissions and the filled-in config against
 * the action's schema (the REST body's contract), then writes in the step's transaction.
 */
export function transactionalRunner<C>(
  type: string,
  write: (trx: Transaction<DB>, actor: Actor, config: C) => Promise<Record<string, unknown>>,
): ActionRunner {
  const def = definitionOf(type);
  const check = bodyChecker(def.config);
  return async (ctx, config, trx) => {
    if (trx === null) throw new Error(`${type} is transactional: it runs in the step's transaction`);
    assertMayRun(ctx.actor, def);
    const checked = check(config) as C;
    assertNotAborted(ctx, type);
    return write(trx, ctx.actor, checked);
  };
}

/** Resolves with `work`, or rejects once `signal` aborts (the work itself may still finish in the background). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
