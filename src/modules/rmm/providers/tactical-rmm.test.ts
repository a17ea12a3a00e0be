import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OutboundClient } from '../../../platform/net/outbound-http.ts';
import { agentId, sampleSoftware, startFakeTacticalRmm, type FakeTacticalRmm } from '../../../../test/fakes/tactical-rmm-server.ts';
import { RmmProviderError, type RmmConnection, type RmmProvider } from './provider.ts';
import { installDate, tacticalRmmProvider } from './tactical-rmm.ts';

let server: FakeTacticalRmm;
let client: OutboundClient;
let provider: RmmProvider;
let conn: RmmConnection;
const ONLINE = agentId('online');
const OFFLINE = agentId('offline');

beforeAll(async () => {
  server = await startFakeTacticalRmm();
  client = new OutboundClient({ allowPrivate: ['127.0.0.1/32'] });
  provider = tacticalRmmProvider(client, { timeoutMs: 500 });
  conn = { baseUrl: server.url, apiKey: server.apiKey };
});
afterAll(async () => {
  await client.close();
  await server.close();
});
beforeEach(() => {
  server.clear();
  server.agents.clear();
  server.agents.set(ONLINE, { agent_id: ONLINE, hostname: 'WS-ONLINE', status: 'online', software: sampleSoftware() });
  server.agents.set(OFFLINE, { agent_id: OFFLINE, hostname: 'WS-OFFLINE', status: 'offline', software: null, logged_in_username: 'alice' });
});

async function failure(p: Promise<unknown>): Promise<RmmProviderError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(RmmProviderError);
  return err as RmmProviderError;
}

describe('Tactical RMM adapter: wire format', () => {
  it('getDevice: GET /agents/<agent_id>/ with X-API-KEY, mapped to the neutral device', async () => {
    const device = await provider.getDevice(conn, ONLINE);
    expect(server.received).toEqual([{ method: 'GET', path: `/agents/${ONLINE}/`, apiKey: server.apiKey, body: undefined }]);
    expect(device).toEqual({
      device_id: ONLINE,
      hostname: 'WS-ONLINE',
      description: null,
      status: 'online',
      os: 'Windows 11 Pro, 64 bit v23H2 (build 22631.4460)',
      platform: 'windows',
      make_model: 'Dell Inc. OptiPlex 7080',
      last_seen: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      boot_time: new Date(1_763_700_000_520).toISOString(),
      public_ip: '203.0.113.10',
      local_ips: ['192.168.1.24', '10.8.0.3'],
      cpu: ['Intel(R) Core(TM) i7-10700 CPU @ 2.90GHz, 8C/16T'],
      memory_gb: 32,
      disks: [{ device: 'C:', fstype: 'NTFS', total: '465.1 GB', used: '201.7 GB', free: '263.4 GB', percent_used: 43 }],
      logged_in_user: 'jdoe',
      client_name: 'Acme Corp',
      site_name: 'HQ',
      agent_version: '2.8.0',
      needs_reboot: false,
    });
    // "None" means nobody is logged in; the last user is shown instead, a real one wins.
    expect((await provider.getDevice(conn, OFFLINE)).logged_in_user).toBe('alice');
  });

  it('listDevices: GET /agents/ (table serializer); testConnection: GET /agents/?detail=false', async () => {
    const devices = await provider.listDevices(conn);
    expect(devices.map((d) => [d.device_id, d.hostname, d.status, d.client_name, d.site_name, d.platform])).toEqual([
      [ONLINE, 'WS-ONLINE', 'online', 'Acme Corp', 'HQ', 'windows'],
      [OFFLINE, 'WS-OFFLINE', 'offline', 'Acme Corp', 'HQ', 'windows'],
    ]);
    expect(await provider.testConnection(conn)).toEqual({ device_count: 2 });
    expect(server.received.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /agents/', 'GET /agents/?detail=false']);
  });

  it('getSoftware: GET /software/<agent_id>/; an agent never inventoried answers [] and maps to an empty list', async () => {
    const software = await provider.getSoftware(conn, ONLINE);
    expect(software).toEqual([
      { name: '7-Zip 23.01 (x64)', version: '23.01', publisher: 'Igor Pavlov', installed_on: '2024-01-15', size: '5.6 MB', location: 'C:\\Program Files\\7-Zip\\' },
      { name: 'Google Chrome', version: '131.0.6778.86', publisher: 'Google LLC', installed_on: '2024-11-02', size: '112.3 MB', location: 'C:\\Program Files\\Google\\Chrome\\Application' },
      { name: 'Microsoft Edge', version: '131.0.2903.51', publisher: 'Microsoft Corporation', installed_on: null, size: null, location: null },
    ]);
    expect(await provider.getSoftware(conn, OFFLINE)).toEqual([]);
    expect(server.received.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /software/${ONLINE}/`, `GET /software/${OFFLINE}/`]);
  });

  it('reboot: POST /agents/<agent_id>/reboot/; an unreachable agent (400 notify_error) is "rejected" with its words', async () => {
    await provider.reboot(conn, ONLINE);
    expect(server.received[0]).toMatchObject({ method: 'POST', path: `/agents/${ONLINE}/reboot/` });
    const err = await failure(provider.reboot(conn, OFFLINE));
    expect(err).toMatchObject({ reason: 'rejected', upstreamStatus: 400 });
    expect(err.message).toBe('Tactical RMM refused the request (HTTP 400): Unable to contact the agent');
  });

  it('runScript: POST /agents/<agent_id>/runscript/ with Tactical’s body; wait returns output, forget the queued message', async () => {
    const waited = await provider.runScript(conn, ONLINE, { script_id: 1, args: ['-Force'], env_vars: ['MODE=full'], timeout_seconds: 30, run_as_user: false, output: 'wait' });
    expect(waited).toEqual({ status: 'completed', output: 'Removed 42 files\n' });
    expect(server.received[0]).toMatchObject({
      method: 'POST',
      path: `/agents/${ONLINE}/runscript/`,
      body: { script: 1, output: 'wait', args: ['-Force'], env_vars: ['MODE=full'], run_as_user: false, timeout: 30 },
    });
    const queued = await provider.runScript(conn, ONLINE, { script_id: 1, args: [], env_vars: [], timeout_seconds: 30, run_as_user: true, output: 'forget' });
    expect(queued).toEqual({ status: 'accepted', message: 'Clear temp files will now be run on WS-ONLINE' });
    // The agent did not answer: Tactical still says 200, with the word "timeout".
    expect(await failure(provider.runScript(conn, OFFLINE, { script_id: 1, args: [], env_vars: [], timeout_seconds: 5, run_as_user: false, output: 'wait' }))).toMatchObject({ reason: 'rejected' });
    expect(await failure(provider.runScript(conn, ONLINE, { script_id: 99, args: [], env_vars: [], timeout_seconds: 5, run_as_user: false, output: 'wait' }))).toMatchObject({ reason: 'not_found', upstreamStatus: 404 });
  });

  it('remoteControl: GET /agents/<agent_id>/meshcentral/ → control, terminal and file URLs', async () => {
    const session = await provider.remoteControl(conn, ONLINE);
    expect(session.control_url).toMatch(/^https:\/\/mesh\.example\.com\/\?login=TOKEN\d+&gotonode=node\/\/abcdef&viewmode=11&hide=31$/);
    expect(session.terminal_url).toContain('viewmode=12');
    expect(session.file_url).toContain('viewmode=13');
    expect(server.received[0]).toMatchObject({ method: 'GET', path: `/agents/${ONLINE}/meshcentral/` });
  });

  it('device ids are path-encoded, never interpreted as path segments', async () => {
    expect(await failure(provider.getDevice(conn, '../software'))).toMatchObject({ reason: 'not_found' });
    expect(server.received[0]!.path).toBe('/agents/..%2Fsoftware/');
  });
});

describe('Tactical RMM adapter: failures map to clear reasons and never leak the key', () => {
  it('a wrong API key is auth_failed (401)', async () => {
    const err = await failure(provider.getDevice({ ...conn, apiKey: 'WRONG-KEY-123456' }, ONLINE));
    expect(err).toMatchObject({ reason: 'auth_failed', upstreamStatus: 401 });
    expect(err.message).not.toContain('WRONG-KEY');
  });

  it('an unknown agent is not_found (404)', async () => {
    expect(await failure(provider.getDevice(conn, agentId('missing')))).toMatchObject({ reason: 'not_found', upstreamStatus: 404 });
  });

  it('a 5xx is unavailable; a 3xx is an invalid response (redirects are not followed)', async () => {
    server.fail({ status: 502, times: 1 });
    expect(await failure(provider.getDevice(conn, ONLINE))).toMatchObject({ reason: 'unavailable', upstreamStatus: 502 });
    server.fail({ status: 302, body: '', times: 1 });
    expect(await failure(provider.getDevice(conn, ONLINE))).toMatchObject({ reason: 'invalid_response', upstreamStatus: 302 });
  });

  it('a body that is not JSON, or JSON of the wrong shape, is invalid_response', async () => {
    server.fail({ status: 200, body: '<html>login</html>', contentType: 'text/html', times: 1 });
    expect(await failure(provider.getDevice(conn, ONLINE))).toMatchObject({ reason: 'invalid_response' });
    server.fail({ status: 200, body: '{"results": []}', times: 1 });
    expect(await failure(provider.listDevices(conn))).toMatchObject({ reason: 'invalid_response' });
    server.fail({ status: 200, body: '{"hostname": "no id"}', times: 1 });
    expect(await failure(provider.getDevice(conn, ONLINE))).toMatchObject({ reason: 'invalid_response' });
    server.fail({ status: 200, body: '{"software": "none"}', times: 1 });
    expect(await failure(provider.getSoftware(conn, ONLINE))).toMatchObject({ reason: 'invalid_response' });
  });

  it('a slow server is a timeout', async () => {
    server.fail({ delayMs: 1500, status: 200, body: '[]', times: 1 });
    const err = await failure(provider.listDevices(conn));
    expect(err.reason).toBe('timeout');
  });

  it('a body over the size limit is refused rather than parsed cut', async () => {
    const small = tacticalRmmProvider(client, { timeoutMs: 2000, maxBodyBytes: 256 });
    expect(await failure(small.listDevices(conn))).toMatchObject({ reason: 'invalid_response' });
  });

  it('a closed port is unreachable; a private address without the exemption is unsafe_target', async () => {
    const dead = await startFakeTacticalRmm();
    await dead.close();
    expect(await failure(provider.getDevice({ ...conn, baseUrl: dead.url }, ONLINE))).toMatchObject({ reason: 'unreachable' });
    const strict = tacticalRmmProvider(new OutboundClient(), { timeoutMs: 500 });
    expect(await failure(strict.getDevice(conn, ONLINE))).toMatchObject({ reason: 'unsafe_target' });
  });

  it('an upstream message that echoes the key is redacted', async () => {
    server.fail({ status: 400, body: JSON.stringify(`bad key ${server.apiKey}`), times: 1 });
    const err = await failure(provider.reboot(conn, ONLINE));
    expect(err.message).not.toContain(server.apiKey);
    expect(err.message).toContain('[redacted]');
  });
});

describe('install dates', () => {
  it('reads the registry and ISO forms and refuses impossible dates', () => {
    expect(installDate('20240115')).toBe('2024-01-15');
    expect(installDate('2024-01-15T00:00:00')).toBe('2024-01-15');
    expect(installDate('1/5/2024')).toBe('2024-01-05');
    expect(installDate('20241341')).toBeNull();
    expect(installDate('')).toBeNull();
    expect(installDate(20240115)).toBeNull();
  });
});
