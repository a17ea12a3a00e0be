import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import { withTransaction } from '../../platform/db/executor.ts';
import { AppError } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import { issueApiKey } from '../api-keys/index.ts';
import { checkPassword, hashPassword, insertUser } from '../users/index.ts';
import { assignRole, seedBuiltinRoles } from '../roles/index.ts';
import { seedTicketDefaults } from '../tickets/index.ts';
import { seedAssetTypes } from '../assets/index.ts';
import { seedProjectDefaults } from '../projects/index.ts';
import { seedServiceTypes } from '../billing/index.ts';
import { seedKbTemplates } from '../kb/index.ts';

export interface CreateTenantInput {
  name: string;
  slug: string;
  adminEmail: string;
  adminPassword?: string;
}

export interface ProvisionedTenant {
  tenant_id: string;
  tenant_slug: string;
  user_id: string;
  api_key: string;
}

const SLUG_RE = /^[a-z0-9][a-z0-9-]{0,62}$/;
const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

/**
 * Creates a tenant ready to use: the built-in roles with their permissions, an Admin user and an
 * API key for that user, and the ticket defaults (board, statuses, priorities), all in one transaction.
 */
export async function createTenant(db: Kysely<DB>, input: CreateTenantInput): Promise<ProvisionedTenant> {
  if (!SLUG_RE.test(input.slug)) throw new AppError('VALIDATION_ERROR', 'slug must be 1–63 lowercase letters, digits or dashes, starting with a letter or digit');
  if (!input.name.trim() || input.name.length > 255) throw new AppError('VALIDATION_ERROR', 'name must be 1–255 characters');
  if (!EMAIL_RE.test(input.adminEmail)) throw new AppError('VALIDATION_ERROR', 'admin email is not a valid address');
  if (input.adminPassword !== undefined) checkPassword(input.adminPassword, { username: input.adminEmail, email: input.adminEmail }, 'admin-password');
  const passwordHash = input.adminPassword ? await hashPassword(input.adminPassword) : null;

  return withTransaction(db, async (trx) => {
    const taken = await trx.selectFrom('tenants').select('tenant_id').where('slug', '=', input.slug).executeTakeFirst();
    if (taken) throw new AppError('CONFLICT', `A tenant with slug '${input.slug}' already exists`);
    const tenant = newId();
    await trx.insertInto('tenants').values({ tenant_id: tenant, slug: input.slug, name: input.name.trim() }).execute();

    const adminRoleId = await seedBuiltinRoles(trx, tenant);

    const user = await insertUser(trx, {
      tenant,
      user_id: newId(),
      username: input.adminEmail.toLowerCase(),
      email: input.adminEmail.toLowerCase(),
      password_hash: passwordHash,
      first_name: 'Admin',
      last_name: null,
      user_type: 'internal',
      client_id: null,
      contact_id: null,
    });
    await assignRole(trx, tenant, user.user_id, adminRoleId);
    await seedTicketDefaults(trx, tenant);
    await seedAssetTypes(trx, tenant);
    await seedProjectDefaults(trx, tenant);
    await seedServiceTypes(trx, tenant);
    await seedKbTemplates(trx, tenant);
    const key = await issueApiKey(trx, tenant, user.user_id, { name: 'Initial admin key' });
    return { tenant_id: tenant, tenant_slug: input.slug, user_id: user.user_id, api_key: key.api_key };
  });
}

export async function findTenantBySlug(db: Kysely<DB>, slug: string) {
  return db.selectFrom('tenants').selectAll().where('slug', '=', slug).executeTakeFirst();
}
