import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantFixture } from '../../test/factories.ts';
import { formBody } from '../../test/multipart.ts';
import { main } from '../src/cli.ts';
import { createTransport } from '../src/http.ts';
import { fetchAll, findOperation } from '../src/operations.ts';
import { startServer, type LiveServer } from './server-kit.ts';

let server: LiveServer;
let ten: TenantFixture;
let base: string;
let dir: string;

beforeAll(async () => {
  server = await startServer();
  ({ tenant: ten, baseUrl: base } = server);
  dir = mkdtempSync(join(tmpdir(), 'psa-api-cli-'));
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

interface Run {
  code: number;
  stdout: string;
  bytes: Buffer;
  stderr: string;
}

/** Runs the CLI in-process, as the admin unless env says otherwise. */
async function cli(argv: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  const out: Buffer[] = [];
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (chunk: string | Uint8Array) => out.push(Buffer.from(chunk)) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: { PSA_API_KEY: ten.admin.key, PSA_URL: base, ...env },
  });
  const bytes = Buffer.concat(out);
  return { code, stdout: bytes.toString('utf8'), bytes, stderr };
}

const json = (run: Run) => JSON.parse(run.stdout) as { data: Record<string, unknown> } & Record<string, unknown>;

describe('psa-api operations', () => {
  it('lists every operation with its method, path and summary, and filters by tag', async () => {
    const all = await cli(['operations']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^createClient\s+POST\s+\/api\/v1\/clients\s+Create a client/m);
    expect(all.stdout).toMatch(/^listClients\s+GET\s+\/api\/v1\/clients\s+/m);
    expect(all.stdout).toMatch(/^listTickets\s+GET\s+/m);

    const clients = await cli(['operations', '--tag', 'clients']);
    expect(clients.stdout).toMatch(/^getClient\s+GET\s+\/api\/v1\/clients\/\{id\}/m);
    expect(clients.stdout).not.toMatch(/^listTickets\b/m);
  });

  it('describes one operation with --help', async () => {
    const help = await cli(['listClients', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('GET /api/v1/clients');
    expect(help.stdout).toContain('--limit <integer>');
    expect(help.stdout).toContain('--all');
  });
});

describe('psa-api <operationId>', () => {
  it('creates a client from --body and reads it back by id', async () => {
    const created = await cli(['createClient', '--body', JSON.stringify({ client_name: 'Acme CLI', billing_cycle: 'monthly' })]);
    expect(created.code, created.stderr).toBe(0);
    const id = json(created).data.client_id as string;
    expect(created.stdout).toContain('\n  "data": {'); // pretty-printed

    const read = await cli(['getClient', '--id', id]);
    expect(read.code, read.stderr).toBe(0);
    expect(json(read).data).toMatchObject({ client_id: id, client_name: 'Acme CLI', billing_cycle: 'monthly' });
  });

  it('reads --body from a file with @', async () => {
    const file = join(dir, 'client.json');
    writeFileSync(file, JSON.stringify({ client_name: 'From a file', billing_cycle: 'quarterly' }));
    const created = await cli(['createClient', '--body', `@${file}`]);
    expect(created.code, created.stderr).toBe(0);
    expect(json(created).data).toMatchObject({ client_name: 'From a file', billing_cycle: 'quarterly' });
  });

  it('follows every page of a list with --all, by keyset and by page number', async () => {
    const prefix = `Paged ${Date.now()}`;
    for (let i = 0; i < 25; i++) {
      const res = await ten.admin.post('/api/v1/clients', { client_name: `${prefix} ${String(i).padStart(2, '0')}`, billing_cycle: 'monthly' });
      expect(res.statusCode, res.body).toBe(201);
    }
    const onePage = await cli(['listClients', '--search', prefix, '--limit', '10']);
    expect((json(onePage).data as unknown as unknown[]).length).toBe(10);
    // A bare boolean flag means true; kebab-case names work too.
    const inactive = await cli(['listClients', '--search', prefix, '--is-inactive']);
    expect(inactive.code, inactive.stderr).toBe(0);
    expect(json(inactive).data).toEqual([]);

    const keyset = await cli(['listClients', '--search', prefix, '--limit', '10', '--all']);
    expect(keyset.code, keyset.stderr).toBe(0);
    const walked = JSON.parse(keyset.stdout) as { client_id: string; client_name: string }[];
    expect(walked).toHaveLength(25);
    expect(new Set(walked.map((c) => c.client_id)).size).toBe(25);

    // The walk behind --all: the first page by sort=updated_at, every later one by the cursor it was given.
    const urls: URL[] = [];
    const recording = createTransport({ baseUrl: base, apiKey: ten.admin.key, fetch: (input, init) => (urls.push(new URL(String(input))), fetch(input, init)) });
    expect(await fetchAll(recording, findOperation('listClients')!, { search: prefix, limit: 10 })).toHaveLength(25);
    expect(urls.map((u) => [u.searchParams.get('sort'), u.searchParams.has('cursor'), u.searchParams.has('page')])).toEqual([
      ['updated_at', false, false],
      ['updated_at', true, false],
      ['updated_at', true, false],
    ]);

    // Another order than updated_at cannot use the keyset: pages by number, in the order asked for.
    const byName = await cli(['listClients', '--search', prefix, '--sort', 'client_name', '--limit', '10', '--all']);
    expect(byName.code, byName.stderr).toBe(0);
    const names = (JSON.parse(byName.stdout) as { client_name: string }[]).map((c) => c.client_name);
    expect(names).toEqual(Array.from({ length: 25 }, (_, i) => `${prefix} ${String(i).padStart(2, '0')}`));
  });

  it('writes a binary answer as its bytes', async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer();
    const { payload, contentType } = await formBody([{ name: 'avatar', data: png, type: 'image/png', filename: 'me.png' }]);
    const upload = await ten.admin.request({ method: 'POST', url: `/api/v1/users/${ten.adminUserId}/avatar`, payload, headers: { 'content-type': contentType } });
    expect(upload.statusCode, upload.body).toBe(200);

    const run = await cli(['getUserAvatar', '--id', ten.adminUserId]);
    expect(run.code, run.stderr).toBe(0);
    const direct = await ten.admin.get(`/api/v1/users/${ten.adminUserId}/avatar`);
    expect(run.bytes.equals(direct.rawPayload)).toBe(true);
    expect((await sharp(run.bytes).metadata()).format).toBe('webp');
  });

  it('prints an API error as JSON on stderr and exits 1', async () => {
    const run = await cli(['getClient', '--id', '00000000-0000-4000-8000-000000000000']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const { error } = JSON.parse(run.stderr) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(error.message).toEqual(expect.any(String));
    expect(error.request_id).toEqual(expect.any(String));
    expect(error).toHaveProperty('details');
  });

  it('exits 1 with a JSON error when the API cannot be reached', async () => {
    const run = await cli(['listClients', '--base-url', 'http://127.0.0.1:9']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr)).toMatchObject({ error: { status: null, code: 'REQUEST_FAILED' } });
  });

  it.each([
    [['noSuchOperation'], /unknown operation 'noSuchOperation'/],
    [['getClient'], /getClient needs --id/],
    [['createClient'], /createClient needs --body/],
    [['listClients', '--limit', 'ten'], /--limit must be an integer/],
    [['listClients', '--is_inactive', 'maybe'], /--is_inactive must be true or false/],
    [['listClients', '--colour', 'blue'], /listClients has no parameter --colour/],
    [['listClients', '--search', '--limit', '1'], /--search needs a value/],
    [['createClient', '--body', '{not json'], /--body is not JSON/],
    [['getClient', '--id', 'x', '--all'], /--all applies to lists only/],
    [['operations', '--tags', 'Clients'], /operations takes only --tag/],
    [[], /Usage:/],
  ])('refuses %j with exit 2 and a clear message', async (argv, message) => {
    const run = await cli(argv);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('needs PSA_API_KEY to call the API', async () => {
    const run = await cli(['listClients'], { PSA_API_KEY: undefined });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/PSA_API_KEY/);
  });
});
