/**
 * The permission catalogue (`resource:action`) and the built-in roles every tenant gets.
 * Route configs name one of these; the route-contract test rejects names not listed here.
 */
const CRUD = ['create', 'read', 'update', 'delete'] as const;

export const RESOURCES: Record<string, readonly string[]> = {
  client: CRUD,
  contact: CRUD,
  asset: CRUD,
  project: CRUD,
  project_task: CRUD,
  ticket: CRUD,
  opportunity: CRUD,
  invoice: CRUD,
  contract: CRUD,
  product: CRUD,
  billing: CRUD,
  kb_article: CRUD,
  document: CRUD,
  time_entry: CRUD,
  user: CRUD,
  role: CRUD,
  team: CRUD,
  automation: CRUD,
  ledger: CRUD,
  storage: ['read', 'write'],
  webhook: CRUD,
  inbound_webhook: CRUD,
  settings: ['read', 'update'],
  // rmm:execute sends commands to a managed device (refresh, reboot, remote control, scripts).
  rmm: ['execute'],
  // api_key:manage lets an admin create, list and revoke keys of other users and set per-key rate limits.
  api_key: ['create', 'read', 'delete', 'manage'],
};

export const ALL_PERMISSIONS: readonly string[] = Object.entries(RESOURCES).flatMap(([r, actions]) =>
  actions.map((a) => `${r}:${a}`),
);

const PERMISSION_SET = new Set(ALL_PERMISSIONS);
export const isPermission = (p: string): boolean => PERMISSION_SET.has(p);

const all = (resources: string[], actions: readonly string[] = CRUD) =>
  resources.flatMap((r) => actions.filter((a) => RESOURCES[r]!.includes(a)).map((a) => `${r}:${a}`));
const OWN_KEYS = ['api_key:create', 'api_key:read', 'api_key:delete'];

export interface BuiltinRole {
  role_name: string;
  description: string;
  is_client_portal: boolean;
  permissions: readonly string[];
}

export const BUILTIN_ROLES: readonly BuiltinRole[] = [
  { role_name: 'Admin', description: 'Every permission', is_client_portal: false, permissions: ALL_PERMISSIONS },
  {
    role_name: 'Manager',
    description: 'Runs the service desk, projects and sales; no user or role administration',
    is_client_portal: false,
    permissions: [
      ...all(['client', 'contact', 'asset', 'project', 'project_task', 'ticket', 'opportunity', 'kb_article', 'document', 'time_entry', 'team', 'automation', 'contract', 'product', 'webhook', 'inbound_webhook']),
      ...all(['storage'], ['read', 'write']),
      ...all(['invoice', 'billing', 'ledger', 'user', 'role', 'settings'], ['read']),
      'rmm:execute',
      ...OWN_KEYS,
    ],
  },
  {
    role_name: 'Technician',
    description: 'Works tickets, assets and project tasks',
    is_client_portal: false,
    permissions: [
      ...all(['client', 'contact', 'asset', 'project', 'project_task', 'ticket', 'kb_article', 'document', 'time_entry', 'product', 'team', 'user'], ['read']),
      ...all(['ticket', 'asset', 'project_task', 'time_entry', 'document', 'kb_article', 'contact'], ['create', 'update']),
      // Technicians work the machines: refreshing, rebooting and running scripts is their daily work.
      'rmm:execute',
      ...OWN_KEYS,
    ],
  },
  {
    role_name: 'Finance',
    description: 'Billing, invoices, contracts and the accounting integration',
    is_client_portal: false,
    permissions: [
      ...all(['client', 'contact', 'project', 'ticket', 'time_entry', 'opportunity', 'user'], ['read']),
      ...all(['invoice', 'contract', 'product', 'billing', 'ledger']),
      'client:update',
      ...OWN_KEYS,
    ],
  },
  {
    role_name: 'Viewer',
    description: 'Read-only access to everything',
    is_client_portal: false,
    permissions: [...ALL_PERMISSIONS.filter((p) => p.endsWith(':read')), 'api_key:create', 'api_key:delete'],
  },
  {
    role_name: 'Client Admin',
    description: 'Client portal administrator: sees and manages their own client only',
    is_client_portal: true,
    permissions: [
      ...all(['client', 'contact', 'ticket', 'project', 'asset', 'invoice', 'kb_article', 'document'], ['read']),
      'client:update', 'contact:create', 'contact:update', 'ticket:create', 'ticket:update',
      ...OWN_KEYS,
    ],
  },
  {
    role_name: 'Client User',
    description: 'Client portal user: reads and raises tickets for their own client',
    is_client_portal: true,
    permissions: [...all(['client', 'contact', 'ticket', 'kb_article'], ['read']), 'ticket:create', ...OWN_KEYS],
  },
];
