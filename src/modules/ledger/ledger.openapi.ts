import { Type } from 'typebox';
import { ErrorEnvelope } from '../../platform/http/schemas.ts';

/** The error envelope without its $id, to embed in a response declaration. */
export const { $id: _id, ...errorBody } = ErrorEnvelope as typeof ErrorEnvelope & { $id?: string };

/** Error responses the platform does not add to every route: 409 without a connection, 502 where the ledger is called. */
export const LEDGER_ERRORS = {
  409: { description: 'No ledger connected (CONFLICT, details.reason not_connected), the server has no ledger app configured (not_configured), or the refresh token expired (expired)', ...errorBody },
  502: { description: 'The ledger failed or refused (UPSTREAM_ERROR; details.reason, upstream_status, upstream_code)', ...errorBody },
};

export const tags = ['Ledger (QuickBooks Online)'];

/** The ledger company a route acts on (QuickBooks realm id); the default connection when absent. */
export const RealmId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The ledger company (QuickBooks realm id); default: the default connection' });

/** Every ledger route takes the company it acts on. */
export const RealmQuery = Type.Object({ realm_id: Type.Optional(RealmId) }, { additionalProperties: false });
