import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type ReceivedEvent } from '../examples/webhook-receiver.ts';

const ROOT = join(import.meta.dirname, '..');
const dataDir = mkdtempSync(join(tmpdir(), 'psa-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// What npm start runs is the build (dist/main.js, bundled, and dist/embedded-template): bring it up to date
// first (a no-op when it is current, as in CI after npm run build), so the tests below start the real artifact.
beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'bin', 'build.js'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
}, 300_000);

/** Starts what `npm start` runs (node bin/start.js main) on the embedded database and waits for its banner. */
function start(env: Record<string, string> = {}): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'start.js'), 'main'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', PSA_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 30 s:\n${out}`)), 30_000);
    const check = setInterval(() => {
      if (out.includes('API reference:')) {
        clearTimeout(timer);
        clearInterval(check);
        resolve({ child, output: () => out });
      }
    }, 50);
    child.once('exit', (code) => {
      clearTimeout(timer);
      clearInterval(check);
      reject(new Error(`exited ${code}:\n${out}`));
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm start (embedded database)', () => {
  it('first start creates the demo tenant and prints a key that works; SIGTERM exits cleanly; a restart reuses the data', async () => {
    const first = await start();
    const banner = first.output();
    const key = banner.match(/psa_[A-Za-z0-9_-]{43}/)?.[0];
    const base = banner.match(/listening on (http:\/\/[^\s]+)/)?.[1];
    expect(banner, 'npm start ran the sources, not the build').not.toContain('through tsx');
    expect(key, banner).toBeDefined();
    expect(base, banner).toBeDefined();
    expect(banner).toContain(`curl -H 'X-API-Key: ${key}' ${base}/api/v1/clients`);
    const res = await fetch(`${base}/api/v1/clients`, { headers: { 'X-API-Key': key! } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ data: [], pagination: { total: 0 } });
    expect(await stop(first.child)).toBe(0);

    const second = await start();
    expect(second.output()).toContain('existing data reused');
    expect(second.output()).not.toMatch(/psa_[A-Za-z0-9_-]{43}/);
    const base2 = second.output().match(/listening on (http:\/\/[^\s;]+)/)?.[1];
    const again = await fetch(`${base2}/api/v1/countries`, { headers: { 'X-API-Key': key! } });
    expect(again.status).toBe(200);
    expect(await stop(second.child)).toBe(0);
  }, 90_000);

  it('README quick start: a webhook receives a correctly signed ticket.updated from the embedded worker', async () => {
    const webhookDir = mkdtempSync(join(tmpdir(), 'psa-start-hook-'));
    const { child, output } = await start({ PSA_DATA_DIR: webhookDir, PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' });
    let secret = '';
    const events: ReceivedEvent[] = [];
    const receiver = await startReceiver(() => secret, 0, (event) => events.push(event));
    try {
      const key = output().match(/psa_[A-Za-z0-9_-]{43}/)![0];
      const base = `${output().match(/listening on (http:\/\/[^\s]+)/)![1]}/api/v1`;
      const post = async (path: string, body: unknown, method = 'POST') => {
        const res = await fetch(`${base}${path}`, { method, headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        expect(res.status, await res.clone().text()).toBeLessThan(300);
        return ((await res.json()) as { data: Record<string, string> }).data;
      };
      const client = await post('/clients', { client_name: 'Acme', billing_cycle: 'monthly' });
      const ticket = await post('/tickets', { title: 'Printer jam', client_id: client.client_id });
      const port = (receiver.address() as { port: number }).port;
      const hook = await post('/webhooks', { name: 'Local', url: `http://127.0.0.1:${port}/`, event_types: ['ticket.updated', 'ticket.status_changed', 'ticket.closed'] });
      secret = hook.secret!;
      await post(`/tickets/${ticket.ticket_id}`, { title: 'Printer jam on floor 2' }, 'PUT');
      for (let i = 0; i < 200 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        event_type: 'ticket.updated',
        data: { ticket_id: ticket.ticket_id, title: 'Printer jam on floor 2' },
        changes: { title: { previous: 'Printer jam', new: 'Printer jam on floor 2' } },
      });
    } finally {
      receiver.close();
      await stop(child);
      rmSync(webhookDir, { recursive: true, force: true });
    }
  }, 90_000);
});
