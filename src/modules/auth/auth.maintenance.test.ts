import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { newId } from '../../platform/ids.ts';
import { authMaintenance } from './auth.maintenance.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

const DAY = 24 * 60 * 60_000;

describe('auth housekeeping', () => {
  it('deletes sessions ended over 30 days ago and expired sign-in flows, and keeps the rest', async () => {
    const { tenant, adminUserId } = await makeTenant(t);
    const session = (name: string, expires: number, revoked: number | null) => ({
      tenant, session_id: newId(), user_id: adminUserId, token_hash: `${name}-${newId()}`, login_method: 'credentials',
      expires_at: new Date(Date.now() + expires), revoked_at: revoked === null ? null : new Date(Date.now() + revoked),
    });
    const rows = [session('live', DAY, null), session('recently-expired', -DAY, null), session('old-expired', -40 * DAY, null), session('old-revoked', DAY, -40 * DAY)];
    await t.database.db.insertInto('sessions').values(rows).execute();
    await t.database.db.insertInto('auth_flows').values([
      { state: `live-${newId()}`, provider: 'p', nonce: 'n', code_verifier: 'v', expires_at: new Date(Date.now() + 60_000) },
      { state: `dead-${newId()}`, provider: 'p', nonce: 'n', code_verifier: 'v', expires_at: new Date(Date.now() - 60_000) },
    ]).execute();

    await authMaintenance(t.database.db).run();

    const left = await t.database.db.selectFrom('sessions').select('token_hash').where('tenant', '=', tenant).execute();
    expect(left.map((r) => r.token_hash.split('-').slice(0, -5).join('-')).sort()).toEqual(['live', 'recently-expired']);
    const flows = await t.database.db.selectFrom('auth_flows').select('state').execute();
    expect(flows.some((f) => f.state.startsWith('live-'))).toBe(true);
    expect(flows.some((f) => f.state.startsWith('dead-'))).toBe(false);
  });
});
