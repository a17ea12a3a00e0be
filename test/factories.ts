import type { LightMyRequestResponse } from 'fastify';
import type { InjectOptions } from 'light-my-request';
import { withTransaction } from '../src/platform/db/executor.ts';
import { newId } from '../src/platform/ids.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { issueApiKey } from '../src/modules/api-keys/index.ts';
import { assignRole } from '../src/modules/roles/index.ts';
import { insertUser } from '../src/modules/users/index.ts';
import type { TestApp } from './harness.ts';

export type Res = LightMyRequestResponse;

/** A small HTTP client bound to one API key, over app.inject. */
export interface Api {
  key: string;
  request(opts: InjectOptions): Promise<Res>;
  get(url: string, headers?: Record<string, string>): Promise<Res>;
  post(url: string, body?: unknown, headers?: Record<string, string>): Promise<Res>;
  put(url: string, body?: unknown, headers?: Record<string, string>): Promise<Res>;
  delete(url: string, headers?: Record<string, string>): Promise<Res>;
}

export function apiFor(t: TestApp, key: string): Api {
  const request = (opts: InjectOptions) =>
    t.app.inject({ ...opts, headers: { 'x-api-key': key, ...(opts.headers ?? {}) } }) as Promise<Res>;
  const withBody = (method: 'POST' | 'PUT') => (url: string, body?: unknown, headers?: Record<string, string>) =>
    request({ method, url, headers, ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }) });
  return {
    key,
    request,
    get: (url, headers) => request({ method: 'GET', url, headers }),
    post: withBody('POST'),
    put: withBody('PUT'),
    delete: (url, headers) => request({ method: 'DELETE', url, headers }),
  };
}

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter++}`;

export interface TenantFixture {
  tenant: string;
  slug: string;
  adminUserId: string;
  admin: Api;
}

export async function makeTenant(t: TestApp): Promise<TenantFixture> {
  const slug = unique('t').toLowerCase();
  const p = await createTenant(t.database.db, { name: `Tenant ${slug}`, slug, adminEmail: `admin@${slug}.test` });
  return { tenant: p.tenant_id, slug, adminUserId: p.user_id, admin: apiFor(t, p.api_key) };
}

export interface UserOptions {
  role?: string;
  scopes?: string[];
  userType?: 'internal' | 'client';
  clientId?: string;
  /** The user's own contact (`users.contact_id`): a portal user's rights on billing profiles come through it. */
  contactId?: string;
  rateLimit?: { burst: number; per_minute: number };
  expiresAt?: Date;
}

/** A user holding one built-in role (by name), and an API key for them. */
export async function makeUser(t: TestApp, tenant: string, opts: UserOptions = {}): Promise<{ userId: string; api: Api; apiKeyId: string }> {
  const { db } = t.database;
  return withTransaction(db, async (trx) => {
    const email = `${unique('u')}@example.test`;
    const user = await insertUser(trx, {
      tenant,
      user_id: newId(),
      username: email,
      email,
      password_hash: null,
      first_name: 'Test',
      last_name: 'User',
      user_type: opts.userType ?? 'internal',
      client_id: opts.clientId ?? null,
      contact_id: opts.contactId ?? null,
    });
    if (opts.role) {
      const role = await trx.selectFrom('roles').select('role_id').where('tenant', '=', tenant).where('role_name', '=', opts.role).executeTakeFirstOrThrow();
      await assignRole(trx, tenant, user.user_id, role.role_id);
    }
    const key = await issueApiKey(trx, tenant, user.user_id, {
      name: 'test key',
      scopes: opts.scopes ?? null,
      rate_limit: opts.rateLimit ?? null,
      expires_at: opts.expiresAt ?? null,
    });
    return { userId: user.user_id, api: apiFor(t, key.api_key), apiKeyId: key.id };
  });
}
