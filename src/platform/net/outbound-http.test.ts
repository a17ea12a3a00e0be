import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OutboundClient, OutboundError, UnsafeTargetError, type LookupFn } from './outbound-http.ts';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface TestServer {
  port: number;
  url: string;
  requests: Received[];
  /** TCP connections accepted, whether or not a request followed. */
  connections: number;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A real HTTP server on 127.0.0.1 that records what reaches it; the handler answers after the body is read. */
async function startServer(handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('ok')): Promise<TestServer> {
  const state: TestServer = { port: 0, url: '', requests: [], connections: 0, close: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      handler(req, res);
    });
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}`;
  state.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  cleanups.push(state.close);
  return state;
}

function client(opts: ConstructorParameters<typeof OutboundClient>[0] = {}): OutboundClient {
  const c = new OutboundClient(opts);
  cleanups.push(() => c.close());
  return c;
}

/** A lookup answering from a table, counting calls per hostname. */
function fakeDns(table: Record<string, string[] | (() => string[])>): LookupFn & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const addresses = typeof entry === 'function' ? entry() : entry;
    return addresses.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(fn, { calls });
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

const LOCAL = ['127.0.0.1/32'];

const HAS_IPV6 = await new Promise<boolean>((resolve) => {
  const probe = createServer();
  probe.once('error', () => resolve(false));
  probe.listen(0, '::1', () => probe.close(() => resolve(true)));
});

describe('OutboundClient.vet', () => {
  const public4 = fakeDns({
    'hooks.example.com': ['93.184.216.34'],
    'v6.example.com': ['2606:4700:4700::1111'],
    'evil.example.com': ['127.0.0.1'],
    'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
    'mapped.example.com': ['::ffff:169.254.169.254'],
    'empty.example.com': [],
  });
  const guard = new OutboundClient({ lookup: public4 });

  it('accepts public hostnames and public literal addresses', async () => {
    await expect(guard.vet('https://hooks.example.com/psa?x=1')).resolves.toBeUndefined();
    await expect(guard.vet('http://v6.example.com:8080/')).resolves.toBeUndefined();
    await expect(guard.vet('https://93.184.216.34/hook')).resolves.toBeUndefined();
    await expect(guard.vet('https://[2606:4700:4700::1111]/hook')).resolves.toBeUndefined();
    expect(public4.calls).toEqual(['hooks.example.com', 'v6.example.com']); // a literal address needs no DNS
  });

  it('refuses literal private IPv4 and IPv6 addresses, naming the address', async () => {
    for (const [url, address] of [
      ['http://127.0.0.1/', '127.0.0.1'],
      ['http://10.1.2.3:8080/x', '10.1.2.3'],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
      ['http://100.64.0.1/', '100.64.0.1'],
      ['http://0.0.0.0:3000/', '0.0.0.0'],
      ['http://224.0.0.1/', '224.0.0.1'],
      ['http://[::1]/', '::1'],
      ['http://[::]/', '::'],
      ['http://[fd00::1]:8443/', 'fd00::1'],
      ['http://[fe80::1]/', 'fe80::1'],
      ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
      ['http://[64:ff9b::a9fe:a9fe]/', '64:ff9b::a9fe:a9fe'],
    ]) {
      const err = await rejection(guard.vet(url!));
      expect(err, url).toBeInstanceOf(UnsafeTargetError);
      expect(err.message, url).toContain(`private address ${address}`);
    }
  });

  it('refuses numeric host spellings that WHATWG URL normalises to a private address', async () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://127.1/', 'http://0x7f000001/', 'http://0/', 'http://127.0.0.1./']) {
      const err = await rejection(guard.vet(url));
      expect(err, url).toBeInstanceOf(UnsafeTargetError);
      expect(err.message, url).toMatch(/private address (127\.0\.0\.1|0\.0\.0\.0)/);
    }
  });

  it('refuses localhost names without resolving them', async () => {
    for (const url of ['http://localhost/', 'http://LOCALHOST:3000/', 'http://localhost./', 'http://api.localhost/', 'https://a.b.localhost/']) {
      const err = await rejection(guard.vet(url));
      expect(err, url).toBeInstanceOf(UnsafeTargetError);
      expect(err.message, url).toContain('localhost');
    }
    expect(public4.calls.filter((h) => h.includes('localhost'))).toEqual([]);
  });

  it('refuses a hostname that resolves to a private address, also when only one of its addresses is private', async () => {
    const evil = await rejection(guard.vet('https://evil.example.com/'));
    expect(evil).toBeInstanceOf(UnsafeTargetError);
    expect(evil.message).toContain('evil.example.com resolves to the private address 127.0.0.1');
    const mixed = await rejection(guard.vet('https://mixed.example.com/'));
    expect(mixed).toBeInstanceOf(UnsafeTargetError);
    expect(mixed.message).toContain('10.0.0.5');
    await expect(guard.vet('https://mapped.example.com/')).rejects.toThrow(/::ffff:169\.254\.169\.254/);
  });

  it('refuses a hostname that does not resolve', async () => {
    await expect(guard.vet('https://nowhere.example.com/')).rejects.toThrow(UnsafeTargetError);
    await expect(guard.vet('https://empty.example.com/')).rejects.toThrow(/does not resolve/);
  });

  it('refuses schemes other than http and https, credentials and non-URLs', async () => {
    for (const url of ['ftp://hooks.example.com/', 'file:///etc/passwd', 'gopher://hooks.example.com/', 'ws://hooks.example.com/',
      'javascript:alert(1)', 'data:text/plain,hi', 'dict://127.0.0.1:11211/']) {
      const err = await rejection(guard.vet(url));
      expect(err, url).toBeInstanceOf(UnsafeTargetError);
      expect(err.message, url).toContain('scheme');
    }
    for (const url of ['https://user:secret@hooks.example.com/', 'https://user@hooks.example.com/', 'https://:pw@hooks.example.com/']) {
      const err = await rejection(guard.vet(url));
      expect(err, url).toBeInstanceOf(UnsafeTargetError);
      expect(err.message, url).toContain('credentials');
    }
    for (const url of ['', 'not a url', '/relative/path', 'http://', 'http://exa mple.com/']) {
      await expect(guard.vet(url), url).rejects.toThrow(UnsafeTargetError);
    }
  });

  it('lets allowPrivate exempt listed ranges only', async () => {
    const dev = new OutboundClient({ allowPrivate: ['10.0.0.0/8', '::1/128'], lookup: fakeDns({ 'box.lan': ['10.9.8.7'] }) });
    try {
      await expect(dev.vet('http://10.1.2.3:8080/')).resolves.toBeUndefined();
      await expect(dev.vet('http://box.lan/')).resolves.toBeUndefined();
      await expect(dev.vet('http://[::1]:4000/')).resolves.toBeUndefined();
      await expect(dev.vet('http://192.168.1.1/')).rejects.toThrow(UnsafeTargetError);
      await expect(dev.vet('http://localhost:4000/')).rejects.toThrow(UnsafeTargetError);
    } finally {
      await dev.close();
    }
  });
});

describe('OutboundClient.post', () => {
  it('POSTs the body and headers and returns status, body and duration', async () => {
    const server = await startServer((_req, res) => res.writeHead(201, { 'content-type': 'text/plain' }).end('accepted ✓'));
    const result = await client({ allowPrivate: LOCAL }).post(`${server.url}/hooks/in?token=abc`, '{"a":1}', {
      'content-type': 'application/json',
      'user-agent': 'psa-webhooks/1',
      'x-service-event-id': 'evt-1',
    }, 2000);
    expect(result.status).toBe(201);
    expect(result.body).toBe('accepted ✓');
    expect(Number.isInteger(result.durationMs) && result.durationMs >= 0 && result.durationMs < 2000).toBe(true);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', url: '/hooks/in?token=abc', body: '{"a":1}' });
    expect(req!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'psa-webhooks/1',
      'x-service-event-id': 'evt-1',
      'content-length': '7',
      host: `127.0.0.1:${server.port}`,
    });
  });

  it('connects to the address its lookup vetted and keeps the hostname in Host', async () => {
    const server = await startServer((req, res) => res.end(`hello ${req.headers.host}`));
    const dns = fakeDns({ 'hooks.test': ['127.0.0.1'] });
    const result = await client({ allowPrivate: LOCAL, lookup: dns }).post(`http://hooks.test:${server.port}/in`, 'x', {}, 2000);
    expect(result).toMatchObject({ status: 200, body: `hello hooks.test:${server.port}` });
    expect(dns.calls).toEqual(['hooks.test']);
  });

  it('returns any status as a result, not an error', async () => {
    const server = await startServer((req, res) => res.writeHead(Number(req.url!.slice(1))).end('nope'));
    const c = client({ allowPrivate: LOCAL });
    for (const status of [204, 400, 404, 500, 503]) {
      const result = await c.post(`${server.url}/${status}`, '{}', {}, 2000);
      expect(result.status).toBe(status);
      expect(result.body).toBe(status === 204 ? '' : 'nope');
    }
  });

  it('keeps the first 8 KiB of the body and drops a character cut in half', async () => {
    const ascii = 'a'.repeat(20_000);
    const multibyte = `x${'é'.repeat(10_000)}`; // 'é' is two bytes: byte 8192 is the first half of one
    const server = await startServer((req, res) => res.end(req.url === '/ascii' ? ascii : multibyte));
    const c = client({ allowPrivate: LOCAL });
    const a = await c.post(`${server.url}/ascii`, '', {}, 2000);
    expect(a.body).toBe('a'.repeat(8192));
    const m = await c.post(`${server.url}/multi`, '', {}, 2000);
    expect(m.body).toBe(`x${'é'.repeat(4095)}`);
    expect(Buffer.byteLength(m.body)).toBe(8191);
  });

  it('does not buffer a huge response body and still answers', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'z');
    const server = await startServer((_req, res) => {
      res.writeHead(200);
      let sent = 0;
      const pump = () => {
        while (sent < 256 && res.write(chunk)) sent++; // 16 MiB unless the client hangs up
        if (sent >= 256) res.end();
        else res.once('drain', pump);
      };
      res.on('close', () => { sent = 256; });
      pump();
    });
    const result = await client({ allowPrivate: LOCAL }).post(server.url, '', {}, 5000);
    expect(result.status).toBe(200);
    expect(result.body).toBe('z'.repeat(8192));
  });

  it('replaces NUL characters, which PostgreSQL text cannot hold', async () => {
    const server = await startServer((_req, res) => res.end('a\u0000b'));
    const result = await client({ allowPrivate: LOCAL }).post(server.url, '', {}, 2000);
    expect(result.body).toBe('a\uFFFDb');
  });

  it('does not follow a redirect, even to an allowed address', async () => {
    const target = await startServer();
    const redirector = await startServer((_req, res) => res.writeHead(302, { location: `${target.url}/stolen` }).end());
    const c = client({ allowPrivate: LOCAL });
    const result = await c.post(redirector.url, '{}', {}, 2000);
    expect(result.status).toBe(302);
    expect(redirector.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
    expect(target.connections).toBe(0);
    for (const status of [301, 303, 307, 308]) {
      const redirect = await startServer((_req, res) => res.writeHead(status, { location: `${target.url}/stolen` }).end());
      expect((await c.post(redirect.url, '{}', {}, 2000)).status).toBe(status);
    }
    expect(target.connections).toBe(0);
  });

  it('times out a server that never answers', async () => {
    const server = await startServer(() => undefined);
    const started = Date.now();
    const err = await rejection(client({ allowPrivate: LOCAL }).post(server.url, '{}', {}, 150));
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.requests).toHaveLength(1);
  });

  it('times out a body that stalls after the headers (the limit covers the whole exchange)', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const started = Date.now();
    const err = await rejection(client({ allowPrivate: LOCAL }).post(server.url, '{}', {}, 200));
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports a refused connection as a connection error', async () => {
    const server = await startServer();
    const url = server.url;
    await server.close(); // the port is now closed
    const err = await rejection(client({ allowPrivate: LOCAL }).post(url, '{}', {}, 2000));
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).kind).toBe('connection');
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('reports an unresolvable hostname as a connection error (it may resolve later)', async () => {
    const err = await rejection(client({ lookup: fakeDns({}) }).post('https://gone.example.com/', '{}', {}, 2000));
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).kind).toBe('connection');
    expect(err.message).toContain('ENOTFOUND');
  });

  it('reports a malformed response as a protocol error', async () => {
    const { createServer: createTcpServer } = await import('node:net');
    const tcp = createTcpServer((socket) => socket.once('data', () => socket.end('NOT HTTP AT ALL\r\n\r\n')));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
    const err = await rejection(client({ allowPrivate: LOCAL }).post(`http://127.0.0.1:${(tcp.address() as AddressInfo).port}/`, '{}', {}, 2000));
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).kind).toBe('protocol');
  });

  it('without allowPrivate refuses the same local server, which sees nothing', async () => {
    const server = await startServer();
    const c = client();
    for (const url of [server.url, `http://[::ffff:127.0.0.1]:${server.port}/`, `http://2130706433:${server.port}/`]) {
      const err = await rejection(c.post(url, '{}', {}, 2000));
      expect(err, url).toBeInstanceOf(UnsafeTargetError);
    }
    const named = await rejection(client({ lookup: fakeDns({ 'hooks.test': ['127.0.0.1'] }) }).post(`http://hooks.test:${server.port}/`, '{}', {}, 2000));
    expect(named).toBeInstanceOf(UnsafeTargetError);
    expect(named.message).toContain('127.0.0.1');
    expect(server.connections).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a hostname with one public and one private address without connecting', async () => {
    const server = await startServer();
    const dns = fakeDns({ 'mixed.test': ['93.184.216.34', '127.0.0.1'] });
    const err = await rejection(client({ lookup: dns }).post(`http://mixed.test:${server.port}/`, '{}', {}, 2000));
    expect(err).toBeInstanceOf(UnsafeTargetError);
    expect(server.connections).toBe(0);
  });

  it('defeats DNS rebinding: a name that was public when vetted and is loopback at connect time never reaches loopback', async () => {
    const server = await startServer();
    let answers = 0;
    const dns = fakeDns({ 'rebind.test': () => (answers++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']) });
    const c = client({ lookup: dns });
    const url = `http://rebind.test:${server.port}/`;
    await expect(c.vet(url)).resolves.toBeUndefined(); // first answer: public
    const err = await rejection(c.post(url, '{}', {}, 2000)); // the connection resolves again and vets that answer
    expect(err).toBeInstanceOf(UnsafeTargetError);
    expect(err.message).toContain('127.0.0.1');
    const again = await rejection(c.post(url, '{}', {}, 2000));
    expect(again).toBeInstanceOf(UnsafeTargetError);
    expect(dns.calls).toEqual(['rebind.test', 'rebind.test', 'rebind.test']);
    expect(server.connections).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses unsafe URLs before any network access', async () => {
    const dns = fakeDns({});
    const c = client({ lookup: dns });
    for (const url of ['ftp://example.com/', 'https://u:p@example.com/', 'http://localhost:1/', 'http://10.0.0.1/', 'nonsense']) {
      await expect(c.post(url, '{}', {}, 2000), url).rejects.toThrow(UnsafeTargetError);
    }
    expect(dns.calls).toEqual([]);
  });

  it.skipIf(!HAS_IPV6)('reaches an allowed IPv6 address, literal or resolved', async () => {
    let hits = 0;
    const server = createServer((req, res) => {
      hits++;
      req.resume();
      res.end(`v6 ${req.socket.remoteAddress}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }));
    const port = (server.address() as AddressInfo).port;
    const c = client({ allowPrivate: ['::1'], lookup: fakeDns({ 'v6.test': ['::1'] }) });
    expect(await c.post(`http://[::1]:${port}/`, '{}', {}, 2000)).toMatchObject({ status: 200, body: 'v6 ::1' });
    expect(await c.post(`http://v6.test:${port}/`, '{}', {}, 2000)).toMatchObject({ status: 200, body: 'v6 ::1' });
    await expect(client().post(`http://[::1]:${port}/`, '{}', {}, 2000)).rejects.toThrow(UnsafeTargetError);
    expect(hits).toBe(2);
  });

  it('reuses keep-alive connections for many POSTs to one receiver', async () => {
    const server = await startServer();
    const dns = fakeDns({ 'bulk.test': ['127.0.0.1'] });
    const c = client({ allowPrivate: LOCAL, lookup: dns, connections: 4 });
    const url = `http://bulk.test:${server.port}/in`;
    const results = await Promise.all(Array.from({ length: 400 }, (_, i) => c.post(url, `{"n":${i}}`, { 'content-type': 'application/json' }, 5000)));
    expect(results.every((r) => r.status === 200 && r.body === 'ok')).toBe(true);
    expect(server.requests).toHaveLength(400);
    expect(new Set(server.requests.map((r) => r.body)).size).toBe(400);
    expect(server.connections).toBeLessThanOrEqual(4); // the per-origin cap; each connection vetted once
    expect(dns.calls.length).toBe(server.connections);
  });
});

describe('OutboundClient.request', () => {
  it('sends any method with the same vetting, and keeps maxBodyBytes of the body, flagging a longer one as truncated', async () => {
    const big = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ i })));
    const server = await startServer((req, res) => res.end(req.url === '/big' ? big : `${req.method} ok`));
    const c = client({ allowPrivate: LOCAL });
    expect(await c.request({ method: 'GET', url: `${server.url}/x?q=1`, headers: { accept: 'application/json' }, timeoutMs: 2000 })).toMatchObject({ status: 200, body: 'GET ok', truncated: false });
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/x?q=1', body: '' });
    expect(await c.request({ method: 'DELETE', url: server.url, headers: {}, timeoutMs: 2000 })).toMatchObject({ body: 'DELETE ok' });
    const whole = await c.request({ method: 'GET', url: `${server.url}/big`, headers: {}, timeoutMs: 2000, maxBodyBytes: 1024 * 1024 });
    expect(whole).toMatchObject({ body: big, truncated: false });
    const cut = await c.request({ method: 'GET', url: `${server.url}/big`, headers: {}, timeoutMs: 2000 });
    expect(cut.body).toHaveLength(8192);
    expect(cut.truncated).toBe(true);
    await expect(client().request({ method: 'GET', url: server.url, headers: {}, timeoutMs: 2000 })).rejects.toThrow(UnsafeTargetError);
  });
});
