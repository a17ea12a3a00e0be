import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { notFound, validation } from '../../../platform/http/errors.ts';
import { optionalText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { iso, utcDate } from '../../../platform/time.ts';
import { canSeeClient } from '../../clients/index.ts';
import { findOpportunityRef, findOwnSession, findReview, findSessionOfDay, insertReview, insertSessionOnce, reviewsOf, touchReview, type ReviewRow, type SessionRow } from './meetings.repo.ts';
import type { MeetingReview, MeetingSession, ReviewBody } from './meetings.schemas.ts';

const toReview = (r: ReviewRow): MeetingReview => ({ review_id: r.review_id, session_id: r.session_id, opportunity_id: r.opportunity_id, reviewed_at: iso(r.reviewed_at), note: r.note });

async function toSession(db: Executor, s: SessionRow): Promise<MeetingSession> {
  return {
    session_id: s.session_id,
    started_by: s.started_by,
    session_date: s.session_date,
    started_at: iso(s.started_at),
    created_at: iso(s.created_at),
    reviews: (await reviewsOf(db, s.tenant, s.session_id)).map(toReview),
  };
}

/** Pipeline review meetings: a user's session of the (UTC) day and the deals reviewed in it. */
export function createMeetingsService(deps: { db: Kysely<DB>; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    /** The caller's session of today, created by the first call of the day (created: true) and returned by every later one. */
    async start(actor: Actor): Promise<{ session: MeetingSession; created: boolean }> {
      const at = now();
      const day = utcDate(at);
      const created = await insertSessionOnce(db, { tenant: actor.tenant, session_id: newId(), started_by: actor.userId, session_date: day, started_at: at, created_at: at });
      const row = await findSessionOfDay(db, actor.tenant, actor.userId, day);
      return { session: await toSession(db, row!), created };
    },

    async active(actor: Actor): Promise<MeetingSession | null> {
      const row = await findSessionOfDay(db, actor.tenant, actor.userId, utcDate(now()));
      return row ? toSession(db, row) : null;
    },

    async get(actor: Actor, sessionId: string): Promise<MeetingSession> {
      const row = await findOwnSession(db, actor.tenant, actor.userId, sessionId);
      if (!row) throw notFound('Meeting session', sessionId);
      return toSession(db, row);
    },

    /**
     * Records that a deal was reviewed in the session: the first time creates the review (created: true),
     * a repeat refreshes reviewed_at (and the note when one is sent).
     */
    async review(actor: Actor, sessionId: string, body: ReviewBody): Promise<{ review: MeetingReview; created: boolean }> {
      const note = optionalText(body.note);
      return withTransaction(db, async (trx) => {
        if (!(await findOwnSession(trx, actor.tenant, actor.userId, sessionId, true))) throw notFound('Meeting session', sessionId);
        const opp = await findOpportunityRef(trx, actor.tenant, body.opportunity_id);
        if (!opp || !canSeeClient(actor, opp.client_id)) throw validation('body.opportunity_id', `no opportunity '${body.opportunity_id}' in this tenant`);
        const at = now();
        const existing = await findReview(trx, actor.tenant, sessionId, opp.opportunity_id);
        if (existing) {
          await touchReview(trx, actor.tenant, existing.review_id, { reviewed_at: at, ...(note === undefined ? {} : { note }) });
        } else {
          await insertReview(trx, { tenant: actor.tenant, review_id: newId(), session_id: sessionId, opportunity_id: opp.opportunity_id, note: note ?? null, reviewed_at: at });
        }
        const row = await findReview(trx, actor.tenant, sessionId, opp.opportunity_id);
        return { review: toReview(row!), created: !existing };
      });
    },
  };
}

export type MeetingsService = ReturnType<typeof createMeetingsService>;
