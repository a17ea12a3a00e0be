export { createTenant, findTenantBySlug, type CreateTenantInput, type ProvisionedTenant } from './tenants.service.ts';
