/**
 * The actor a configuration's direct actions run as: its creator (see the platform's loadOwnerActor;
 * the webhook's id stands where services note the API key).
 */
export { loadOwnerActor } from '../../platform/auth/owner-actor.ts';
