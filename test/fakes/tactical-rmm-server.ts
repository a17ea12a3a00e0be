import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for a Tactical RMM API server that speaks its wire format (paths, X-API-KEY, DRF error
 * bodies, serializer field names — see the sources quoted in src/modules/rmm/providers/tactical-rmm.ts).
 * Tests seed agents, software and scripts, read what it received, and make it fail on demand.
 */

export interface FakeAgent {
  agent_id: string;
  hostname: string;
  /** online | offline | overdue; an offline agent cannot be reached by NATS, so commands answer 400. */
  status: 'online' | 'offline' | 'overdue';
  operating_system?: string;
  plat?: 'windows' | 'linux' | 'darwin';
  client?: string;
  site?: string;
  public_ip?: string;
  local_ips?: string;
  total_ram?: number;
  logged_in_username?: string;
  last_logged_in_user?: string;
  software?: FakeSoftware[] | null;
}

export interface FakeSoftware {
  name: string;
  version: string;
  publisher: string;
  install_date: string;
  size: string;
  source: string;
  location: string;
  uninstall: string;
}

export interface FakeScript {
  id: number;
  name: string;
  /** What a waited-for run prints. */
  output: string;
}

export interface Received {
  method: string;
  path: string;
  apiKey: string | undefined;
  body: unknown;
}

export interface Failure {
  /** Only requests whose path matches (default: all). */
  path?: RegExp;
  status?: number;
  /** Raw response body; default a DRF-style JSON error. */
  body?: string;
  contentType?: string;
  /** Wait this long before answering (a slow server). */
  delayMs?: number;
  /** How many requests it applies to (default: until cleared). */
  times?: number;
}

export interface FakeTacticalRmm {
  url: string;
  apiKey: string;
  agents: Map<string, FakeAgent>;
  scripts: Map<number, FakeScript>;
  received: Received[];
  fail(failure: Failure): void;
  clear(): void;
  close(): Promise<void>;
}

const BOOT_TIME = 1_763_700_000.52; // a float of unix seconds, as the agent reports it
const LAST_SEEN_AGO_MS = 30_000;

export function agentId(seed: string): string {
  // Tactical agent ids are 40 random letters; a readable prefix helps when a test fails.
  return `${seed.replace(/[^A-Za-z]/g, '')}${'x'.repeat(40)}`.slice(0, 40);
}

export function sampleSoftware(): FakeSoftware[] {
  return [
    { name: '7-Zip 23.01 (x64)', version: '23.01', publisher: 'Igor Pavlov', install_date: '20240115', size: '5.6 MB', source: 'registry', location: 'C:\\Program Files\\7-Zip\\', uninstall: '"C:\\Program Files\\7-Zip\\Uninstall.exe"' },
    { name: 'Google Chrome', version: '131.0.6778.86', publisher: 'Google LLC', install_date: '2024-11-02', size: '112.3 MB', source: 'registry', location: 'C:\\Program Files\\Google\\Chrome\\Application', uninstall: '' },
    { name: 'Microsoft Edge', version: '131.0.2903.51', publisher: 'Microsoft Corporation', install_date: '', size: '', source: 'registry', location: '', uninstall: '' },
  ];
}

/** The AgentSerializer shape (GET /agents/<agent_id>/): model fields plus the computed read-only ones. */
function agentDetail(a: FakeAgent, pk: number) {
  return {
    winupdatepolicy: [],
    status: a.status,
    cpu_model: ['Intel(R) Core(TM) i7-10700 CPU @ 2.90GHz, 8C/16T'],
    local_ips: a.local_ips ?? '192.168.1.24, 10.8.0.3',
    make_model: 'Dell Inc. OptiPlex 7080',
    physical_disks: ['Samsung SSD 970 EVO 500GB 466GB NVMe'],
    graphics: 'Intel(R) UHD Graphics 630',
    checks: { total: 0, passing: 0, failing: 0, warning: 0, info: 0, has_failing_checks: false },
    timezone: 'America/Los_Angeles',
    all_timezones: ['America/Los_Angeles', 'UTC'],
    client: a.client ?? 'Acme Corp',
    site_name: a.site ?? 'HQ',
    custom_fields: [],
    patches_last_installed: null,
    last_seen: new Date(Date.now() - LAST_SEEN_AGO_MS).toISOString().replace('Z', '123Z'),
    applied_policies: { agent_policy: null, site_policy: null, client_policy: null, default_policy: null },
    effective_patch_policy: {},
    alert_template: null,
    created_by: null,
    created_time: '2024-01-10T09:00:00.000000Z',
    modified_by: 'admin',
    modified_time: '2024-11-20T09:00:00.000000Z',
    version: '2.8.0',
    operating_system: a.operating_system ?? 'Windows 11 Pro, 64 bit v23H2 (build 22631.4460)',
    plat: a.plat ?? 'windows',
    goarch: 'amd64',
    hostname: a.hostname,
    agent_id: a.agent_id,
    services: [],
    public_ip: a.public_ip ?? '203.0.113.10',
    total_ram: a.total_ram ?? 32,
    disks: [{ device: 'C:', fstype: 'NTFS', total: '465.1 GB', used: '201.7 GB', free: '263.4 GB', percent: 43 }],
    boot_time: BOOT_TIME,
    logged_in_username: a.logged_in_username ?? 'None',
    last_logged_in_user: a.last_logged_in_user ?? 'jdoe',
    monitoring_type: 'workstation',
    description: '',
    mesh_node_id: 'node//abcdef',
    overdue_email_alert: false,
    overdue_text_alert: false,
    overdue_dashboard_alert: false,
    offline_time: 4,
    overdue_time: 30,
    check_interval: 120,
    needs_reboot: false,
    choco_installed: false,
    wmi_detail: {},
    time_zone: null,
    maintenance_mode: false,
    block_policy_inheritance: false,
    site: 1,
    policy: null,
    pk,
  };
}

/** AgentTableSerializer (GET /agents/). */
function agentRow(a: FakeAgent) {
  return {
    agent_id: a.agent_id,
    alert_template: null,
    hostname: a.hostname,
    site_name: a.site ?? 'HQ',
    client_name: a.client ?? 'Acme Corp',
    monitoring_type: 'workstation',
    description: '',
    needs_reboot: false,
    has_patches_pending: false,
    pending_actions_count: 0,
    status: a.status,
    overdue_text_alert: false,
    overdue_email_alert: false,
    overdue_dashboard_alert: false,
    last_seen: new Date(Date.now() - LAST_SEEN_AGO_MS).toISOString(),
    boot_time: BOOT_TIME,
    checks: { total: 0, passing: 0, failing: 0, warning: 0, info: 0, has_failing_checks: false },
    maintenance_mode: false,
    logged_username: a.logged_in_username ?? '-',
    italic: false,
    policy: null,
    block_policy_inheritance: false,
    plat: a.plat ?? 'windows',
    goarch: 'amd64',
  };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startFakeTacticalRmm(opts: { apiKey?: string } = {}): Promise<FakeTacticalRmm> {
  const apiKey = opts.apiKey ?? 'TRMMKEY0123456789ABCDEFGHIJKLMNO';
  const agents = new Map<string, FakeAgent>();
  const scripts = new Map<number, FakeScript>([[1, { id: 1, name: 'Clear temp files', output: 'Removed 42 files\n' }]]);
  const received: Received[] = [];
  let failures: Failure[] = [];
  const pks = new Map<string, number>();
  const pkOf = (id: string) => pks.get(id) ?? (pks.set(id, pks.size + 1), pks.size);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    const given = req.headers['x-api-key'];
    received.push({ method: req.method ?? '', path: `${url.pathname}${url.search}`, apiKey: typeof given === 'string' ? given : undefined, body });

    const failure = failures.find((f) => !f.path || f.path.test(url.pathname));
    if (failure) {
      if (failure.times !== undefined && --failure.times <= 0) failures = failures.filter((f) => f !== failure);
      if (failure.delayMs) await new Promise((r) => setTimeout(r, failure.delayMs));
      if (failure.status !== undefined || failure.body !== undefined) {
        res.writeHead(failure.status ?? 200, { 'content-type': failure.contentType ?? 'application/json' });
        res.end(failure.body ?? JSON.stringify({ detail: 'A server error occurred.' }));
        return;
      }
    }

    // DRF authentication: a missing or wrong key is refused before any view runs.
    if (given !== apiKey) return json(res, 401, { detail: 'Invalid token.' });

    const parts = url.pathname.split('/').filter(Boolean);
    if (req.method === 'GET' && url.pathname === '/agents/') {
      const list = [...agents.values()];
      if (url.searchParams.get('detail') === 'false') {
        return json(res, 200, list.map((a) => ({ id: pkOf(a.agent_id), hostname: a.hostname, agent_id: a.agent_id, client: a.client ?? 'Acme Corp', site: a.site ?? 'HQ' })));
      }
      return json(res, 200, list.map(agentRow));
    }
    if (parts[0] === 'agents' && parts.length >= 2) {
      const agent = agents.get(parts[1]!);
      if (!agent) return json(res, 404, { detail: 'Not found.' });
      const action = parts[2];
      if (req.method === 'GET' && action === undefined) return json(res, 200, agentDetail(agent, pkOf(agent.agent_id)));
      if (req.method === 'POST' && action === 'reboot') {
        if (agent.status !== 'online') return json(res, 400, 'Unable to contact the agent');
        return json(res, 200, 'ok');
      }
      if (req.method === 'POST' && action === 'runscript') {
        const b = body as Record<string, unknown> | undefined;
        if (!b || typeof b.script !== 'number' || typeof b.output !== 'string' || !Array.isArray(b.args) || typeof b.timeout !== 'number') {
          return json(res, 400, { detail: 'Malformed request.' });
        }
        const script = scripts.get(b.script);
        if (!script) return json(res, 404, { detail: 'Not found.' });
        if (b.output === 'wait') return json(res, 200, agent.status === 'online' ? script.output : 'timeout');
        return json(res, 200, `${script.name} will now be run on ${agent.hostname}`);
      }
      if (req.method === 'GET' && action === 'meshcentral') {
        const base = `https://mesh.example.com/?login=TOKEN${pkOf(agent.agent_id)}&gotonode=node//abcdef`;
        return json(res, 200, {
          hostname: agent.hostname,
          control: `${base}&viewmode=11&hide=31`,
          terminal: `${base}&viewmode=12&hide=31`,
          file: `${base}&viewmode=13&hide=31`,
          status: agent.status,
          client: agent.client ?? 'Acme Corp',
          site: agent.site ?? 'HQ',
        });
      }
    }
    if (req.method === 'GET' && parts[0] === 'software' && parts.length === 2) {
      const agent = agents.get(parts[1]!);
      if (!agent) return json(res, 404, { detail: 'Not found.' });
      if (!agent.software) return json(res, 200, []);
      return json(res, 200, { id: pkOf(agent.agent_id), software: agent.software, agent: pkOf(agent.agent_id) });
    }
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<h1>Not Found</h1>');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    agents,
    scripts,
    received,
    fail(f) {
      failures.push({ ...f });
    },
    clear() {
      failures = [];
      received.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
