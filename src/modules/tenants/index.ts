import { defineModule } from '../deps.ts';

export { createTenant, findTenantBySlug, type CreateTenantInput, type ProvisionedTenant } from './tenants.service.ts';

/** Tenants: provisioning (CLI and first start) and the tenant-wide settings permission. */
export const tenantsModule = defineModule({
  name: 'tenants',
  permissions: [{ resource: 'settings', actions: ['read', 'update'], roles: { Manager: ['read'] } }],
});
