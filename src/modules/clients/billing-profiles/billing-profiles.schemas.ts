import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp } from '../../../platform/http/schemas.ts';

export const BillingProfile = Type.Object({
  billing_profile_id: Id,
  client_id: Id,
  name: Type.String(),
  is_default: Type.Boolean({ description: 'Every client has exactly one default profile, created with it' }),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type BillingProfile = Static<typeof BillingProfile>;

export const ProfileContact = Type.Object({
  contact_id: Id,
  full_name: Type.String(),
  email: Nullable(Type.String()),
  can_view_profile_tickets: Type.Boolean({ description: 'The contact may read this profile\'s tickets in the client portal' }),
});
export type ProfileContact = Static<typeof ProfileContact>;

export const MAX_PROFILE_CONTACTS = 500;

export const PutProfileContactsBody = Type.Object(
  {
    contacts: Type.Array(
      Type.Object(
        {
          contact_id: Id,
          can_view_profile_tickets: Type.Optional(Type.Boolean({ default: false })),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_PROFILE_CONTACTS, description: 'The complete list; contacts not named are removed. Each contact_id at most once.' },
    ),
  },
  { additionalProperties: false },
);
export type PutProfileContactsBody = Static<typeof PutProfileContactsBody>;

export const ProfileParams = Type.Object({ id: Id, profileId: Id }, { additionalProperties: false });

export const BillingProfileListResponse = Type.Object({ data: Type.Array(BillingProfile) });
export const ProfileContactListResponse = Type.Object({ data: Type.Array(ProfileContact) });
