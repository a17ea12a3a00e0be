import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';

/**
 * Shared helpers for the users suites. Not a test file, and typed structurally so that it needs
 * nothing from test/ (the build compiles src/ only).
 */

interface TestApp {
  database: { db: Kysely<DB> };
}
interface Res {
  statusCode: number;
  body: string;
  json(): { data?: unknown };
}
interface Api {
  post(url: string, body?: unknown): Promise<Res>;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter++}`;

function assertStatus(res: Res, status: number): void {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
}

export const STRONG_PASSWORD = 'Lantern-Orbit-Quill-42';

export interface UserJson {
  user_id: string;
  username: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  timezone: string | null;
  user_type: string;
  client_id: string | null;
  contact_id: string | null;
  is_inactive: boolean;
  two_factor_enabled: boolean;
  image: string | null;
  last_login_at: string | null;
  roles: { role_id: string; role_name: string }[];
  created_at: string;
  updated_at: string;
}

export const USER_FIELDS = [
  'client_id', 'contact_id', 'created_at', 'email', 'first_name', 'image', 'is_inactive', 'last_login_at', 'last_name', 'phone',
  'roles', 'timezone', 'two_factor_enabled', 'updated_at', 'user_id', 'user_type', 'username',
];

export const randomId = (): string => randomUUID();

export function newUserBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const name = unique('user').replace(/[^A-Za-z0-9._@-]/g, '').slice(-40);
  return { username: name, email: `${name}@example.test`, password: STRONG_PASSWORD, ...extra };
}

export async function createUser(api: Api, extra: Record<string, unknown> = {}): Promise<UserJson> {
  const res = await api.post('/api/v1/users', newUserBody(extra));
  assertStatus(res, 201);
  return res.json().data as UserJson;
}

export interface ActivityJson {
  activity_type: string;
  user_id: string;
  actor_user_id: string | null;
  details: Record<string, unknown>;
  ip: string | null;
  user_agent: string | null;
}

/** The user's activity rows, oldest first. */
export async function activityOf(t: TestApp, tenant: string, userId: string): Promise<ActivityJson[]> {
  return t.database.db
    .selectFrom('user_activity')
    .select(['activity_type', 'user_id', 'actor_user_id', 'details', 'ip', 'user_agent'])
    .where('tenant', '=', tenant)
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('activity_id')
    .execute();
}

export async function userEvents(t: TestApp, tenant: string, userId: string): Promise<{ event_type: string; payload: Record<string, unknown> }[]> {
  const rows = await t.database.db
    .selectFrom('events')
    .select(['event_type', 'payload'])
    .where('tenant', '=', tenant)
    .where('aggregate_type', '=', 'user')
    .where('aggregate_id', '=', userId)
    .orderBy('event_id')
    .execute();
  return rows.map((r) => ({ event_type: r.event_type, payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown> }));
}

/** An open sign-in session for the user, written directly (sign-in itself belongs to the auth area). */
export async function openSession(t: TestApp, tenant: string, userId: string): Promise<string> {
  const sessionId = randomUUID();
  await t.database.db
    .insertInto('sessions')
    .values({
      tenant,
      session_id: sessionId,
      user_id: userId,
      token_hash: randomUUID(),
      login_method: 'credentials',
      expires_at: new Date(Date.now() + 3_600_000),
    })
    .execute();
  return sessionId;
}

export async function sessionRevoked(t: TestApp, tenant: string, sessionId: string): Promise<boolean> {
  const row = await t.database.db.selectFrom('sessions').select('revoked_at').where('tenant', '=', tenant).where('session_id', '=', sessionId).executeTakeFirstOrThrow();
  return row.revoked_at !== null;
}

export async function roleId(t: TestApp, tenant: string, roleName: string): Promise<string> {
  const row = await t.database.db.selectFrom('roles').select('role_id').where('tenant', '=', tenant).where('role_name', '=', roleName).executeTakeFirstOrThrow();
  return row.role_id;
}

export async function grantRole(t: TestApp, tenant: string, userId: string, roleName: string): Promise<void> {
  await t.database.db.insertInto('user_roles').values({ tenant, user_id: userId, role_id: await roleId(t, tenant, roleName) }).execute();
}

export async function makeClientRecord(api: Api): Promise<string> {
  const res = await api.post('/api/v1/clients', { client_name: unique('Client'), billing_cycle: 'monthly' });
  assertStatus(res, 201);
  return (res.json().data as { client_id: string }).client_id;
}

/** A custom role with exactly these permissions (the roles API belongs to another area). */
export async function makeRole(t: TestApp, tenant: string, permissions: string[], opts: { clientPortal?: boolean } = {}): Promise<string> {
  const name = unique('Role');
  const id = randomUUID();
  await t.database.db
    .insertInto('roles')
    .values({ tenant, role_id: id, role_name: name, description: null, is_client_portal: opts.clientPortal ?? false })
    .execute();
  if (permissions.length > 0) await t.database.db.insertInto('role_permissions').values(permissions.map((permission) => ({ tenant, role_id: id, permission }))).execute();
  return name;
}
