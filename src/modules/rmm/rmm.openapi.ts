import { ErrorEnvelope } from '../../platform/http/schemas.ts';

const { $id: _id, ...errorBody } = ErrorEnvelope as typeof ErrorEnvelope & { $id?: string };

/** Error responses the platform does not add to every route: 409 on reads, and 502 where the RMM is called. */
export const NOT_LINKED_409 = { 409: { description: 'The asset has no RMM link (CONFLICT, details.reason not_linked) or its integration is inactive', ...errorBody } };
export const UPSTREAM_502 = { 502: { description: 'The RMM failed or refused (UPSTREAM_ERROR; details.reason, details.upstream_status)', ...errorBody } };
