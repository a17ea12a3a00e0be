/**
 * The service types every tenant has (the billing area's data, kept in the platform because migration
 * 0015 seeds existing tenants from it while tenant creation seeds new ones: both always agree).
 */
export interface BuiltinServiceType {
  name: string;
  description: string;
}

export const BUILTIN_SERVICE_TYPES: readonly BuiltinServiceType[] = [
  { name: 'Managed Services', description: 'Recurring managed IT services (monitoring, patching, helpdesk)' },
  { name: 'Professional Services', description: 'Project and consulting work billed by time' },
  { name: 'Hardware', description: 'Devices and equipment sold to clients' },
  { name: 'Software Licenses', description: 'Software subscriptions and licences resold to clients' },
  { name: 'Cloud Services', description: 'Hosting, backup and other consumption-based services' },
];
