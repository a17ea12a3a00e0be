import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import type { OpportunityMeetingReviewsTable, OpportunityMeetingSessionsTable } from '../../../platform/db/schema.opportunities.ts';

export type SessionRow = Selectable<OpportunityMeetingSessionsTable>;
export type ReviewRow = Selectable<OpportunityMeetingReviewsTable>;

/** Inserts the user's session of the day unless it exists; true when this call created it. */
export async function insertSessionOnce(db: Executor, row: Insertable<OpportunityMeetingSessionsTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('opportunity_meeting_sessions')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant', 'started_by', 'session_date']).doNothing())
    .returning('session_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export function findSessionOfDay(db: Executor, tenant: string, userId: string, day: string): Promise<SessionRow | undefined> {
  return db.selectFrom('opportunity_meeting_sessions').selectAll().where('tenant', '=', tenant).where('started_by', '=', userId).where('session_date', '=', day).executeTakeFirst();
}

/** The user's own session (another user's is "not found"); `lock` holds it FOR UPDATE so its reviews are written one at a time. */
export async function findOwnSession(db: Executor, tenant: string, userId: string, sessionId: string, lock = false): Promise<SessionRow | undefined> {
  let q = db.selectFrom('opportunity_meeting_sessions').selectAll().where('tenant', '=', tenant).where('started_by', '=', userId).where('session_id', '=', sessionId);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export function reviewsOf(db: Executor, tenant: string, sessionId: string): Promise<ReviewRow[]> {
  return db.selectFrom('opportunity_meeting_reviews').selectAll().where('tenant', '=', tenant).where('session_id', '=', sessionId).orderBy('reviewed_at').orderBy('review_id').execute();
}

export function findReview(db: Executor, tenant: string, sessionId: string, opportunityId: string): Promise<ReviewRow | undefined> {
  return db.selectFrom('opportunity_meeting_reviews').selectAll().where('tenant', '=', tenant).where('session_id', '=', sessionId).where('opportunity_id', '=', opportunityId).executeTakeFirst();
}

export async function insertReview(db: Executor, row: Insertable<OpportunityMeetingReviewsTable>): Promise<void> {
  await db.insertInto('opportunity_meeting_reviews').values(row).execute();
}

export async function touchReview(db: Executor, tenant: string, reviewId: string, set: { reviewed_at: Date; note?: string | null }): Promise<void> {
  await db.updateTable('opportunity_meeting_reviews').set(set).where('tenant', '=', tenant).where('review_id', '=', reviewId).execute();
}

export function findOpportunityRef(db: Executor, tenant: string, opportunityId: string): Promise<{ opportunity_id: string; client_id: string } | undefined> {
  return db.selectFrom('opportunities').select(['opportunity_id', 'client_id']).where('tenant', '=', tenant).where('opportunity_id', '=', opportunityId).executeTakeFirst();
}
