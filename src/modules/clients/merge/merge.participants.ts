import type { Transaction } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';

/** What a merge hands every area taking part: whose records move where, and from when. */
export interface MergeContext {
  tenant: string;
  sourceId: string;
  targetId: string;
  /** YYYY-MM-DD: from this day the source's contracts bill under the target. */
  cutoverDate: string;
  /** The source's billing profiles (they move with their ids; the target keeps its own default). */
  profileIds: readonly string[];
  actorUserId: string | null;
}

/** A reason the merge cannot run: `code` is stable, `message` names the records. */
export interface MergeBlocker {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

/**
 * One area's part in a merge. `count` and `move` report the same kinds (keys of the plan's `counts`), so
 * the preview shows exactly what the merge then does. `move` runs inside the merge's transaction, with the
 * source and target rows locked: it re-attributes the area's records to the target, emits the area's own
 * events and keeps its search documents in step.
 */
export interface MergeParticipant {
  name: string;
  count(db: Executor, ctx: MergeContext): Promise<Record<string, number>>;
  blockers?(db: Executor, ctx: MergeContext): Promise<MergeBlocker[]>;
  move(trx: Transaction<DB>, ctx: MergeContext): Promise<Record<string, number>>;
}

/**
 * The areas whose records name a client. They import clients, so clients cannot import them back: each
 * registers here when built (clients is built first), and the merge runs them in registration order.
 */
export class ClientMerges {
  private readonly participants: MergeParticipant[] = [];

  participate(participant: MergeParticipant): void {
    if (this.participants.some((p) => p.name === participant.name)) throw new Error(`merge participant '${participant.name}' registered twice`);
    this.participants.push(participant);
  }

  all(): readonly MergeParticipant[] {
    return this.participants;
  }

}
