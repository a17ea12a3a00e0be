import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { newId } from '../../../platform/ids.ts';
import { cancelRequested, insertOutcomes } from './runs.repo.ts';

export type Outcome = 'created' | 'updated' | 'linked' | 'unchanged' | 'skipped' | 'applied' | 'reversed' | 'drift' | 'conflict' | 'unmatched' | 'failed';

const SUCCESS: readonly Outcome[] = ['created', 'updated', 'linked', 'applied', 'reversed'];
const SKIPPED: readonly Outcome[] = ['unchanged', 'skipped'];

/** Outcomes are written in batches of this many (and at the end), so a crash loses at most one batch's rows. */
const FLUSH_EVERY = 25;

/**
 * One run's per-record outcomes and counts. Drift, conflicts and unmatched records count as failed: they
 * need a person, and a run that found any is `partial`, never `completed`.
 */
export class Tally {
  processed = 0;
  successful = 0;
  failed = 0;
  skipped = 0;
  private pending: { entity_type: string; local_id: string | null; external_id: string | null; outcome: Outcome; message: string | null }[] = [];

  constructor(
    private readonly db: Kysely<DB>,
    readonly tenant: string,
    readonly syncId: string,
  ) {}

  async record(entityType: string, localId: string | null, externalId: string | null, outcome: Outcome, message: string | null = null): Promise<void> {
    this.processed++;
    if (SUCCESS.includes(outcome)) this.successful++;
    else if (SKIPPED.includes(outcome)) this.skipped++;
    else this.failed++;
    this.pending.push({ entity_type: entityType, local_id: localId, external_id: externalId, outcome, message: message?.slice(0, 1000) ?? null });
    if (this.pending.length >= FLUSH_EVERY) await this.flush();
  }

  async flush(): Promise<void> {
    const rows = this.pending.map((o) => ({ tenant: this.tenant, sync_id: this.syncId, outcome_id: newId(), ...o }));
    this.pending = [];
    await insertOutcomes(this.db, rows);
  }

  /** Whether someone asked to cancel the run (checked between records). */
  cancelled(): Promise<boolean> {
    return cancelRequested(this.db, this.tenant, this.syncId);
  }
}
