import { Type, type Static } from 'typebox';
import { DateOnly, Id, dataOf } from '../../../platform/http/schemas.ts';
import { Client } from '../clients.schemas.ts';

export const MergeBody = Type.Object(
  {
    target_client_id: Type.Unsafe<string>({ ...Id, description: 'The client that absorbs the source (the path id)' }),
    cutover_date: Type.Optional(Type.String({ format: 'date', description: "YYYY-MM-DD (default today, UTC): from this day the source's contracts bill under the target" })),
  },
  { additionalProperties: false },
);
export type MergeBody = Static<typeof MergeBody>;

const Counts = Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
  description: 'Records that move, by kind: billing_profiles, locations, contacts, tickets, projects, assets, contracts, invoices, payments, quotes, …',
});

export const MergeBlocker = Type.Object({
  code: Type.String({ description: 'Stable reason code: source_merged, same_client, target_merged, target_inactive, parent_cycle, invalid_cutover_date' }),
  message: Type.String(),
  details: Type.Object({}, { additionalProperties: true }),
});

export const MergePlan = Type.Object({
  source_client_id: Id,
  source_client_name: Type.String(),
  target_client_id: Id,
  target_client_name: Type.String(),
  cutover_date: DateOnly,
  counts: Counts,
  billing_profiles: Type.Array(Type.Object({ billing_profile_id: Id, name: Type.String() }), { description: "The source's billing profiles, which move to the target with their ids, invoices and credit" }),
});

export const MergePreviewResponse = dataOf(Type.Object({ plan: MergePlan, blockers: Type.Array(MergeBlocker) }));
export const MergeResultResponse = dataOf(Type.Object({ source: Client, target: Client, counts: Counts }));
