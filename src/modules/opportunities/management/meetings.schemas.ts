import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf } from '../../../platform/http/schemas.ts';

export const MeetingReview = Type.Object({
  review_id: Id,
  session_id: Id,
  opportunity_id: Id,
  reviewed_at: Timestamp,
  note: Nullable(Type.String()),
});
export type MeetingReview = Static<typeof MeetingReview>;

/** A pipeline review meeting: one per user per UTC day, with the deals looked at in it. */
export const MeetingSession = Type.Object({
  session_id: Id,
  started_by: Id,
  session_date: Type.String({ format: 'date', description: 'The UTC day of the session' }),
  started_at: Timestamp,
  created_at: Timestamp,
  reviews: Type.Array(MeetingReview, { description: 'The deals reviewed in the session, by reviewed_at' }),
});
export type MeetingSession = Static<typeof MeetingSession>;

export const NoBody = Type.Object({}, { additionalProperties: false, description: 'No body (an empty object is accepted)' });

export const ReviewBody = Type.Object(
  {
    opportunity_id: Type.Unsafe<string>({ ...Id, description: "An opportunity of the tenant (else a 400 naming body.opportunity_id)" }),
    note: Type.Optional(Nullable(Type.String({ maxLength: 4000, description: 'Trimmed; blank or null clears it; omitted keeps the note of an earlier review' }))),
  },
  { additionalProperties: false },
);
export type ReviewBody = Static<typeof ReviewBody>;

export const SessionParams = Type.Object({ sessionId: Id }, { additionalProperties: false });

export const MeetingSessionResponse = dataOf(MeetingSession);
export const ActiveSessionResponse = Type.Object({ data: Nullable(MeetingSession) });
export const MeetingReviewResponse = dataOf(MeetingReview);
