import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, TEST_SECRET_KEY, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { Receiver, createWebhook, deliveriesOf, emitEvent, ticketData, verifySignature } from '../../../test/webhooks-kit.ts';

/**
 * A real worker process (`src/worker.ts`) is killed with SIGKILL while the receiver holds its request
 * open; a second worker process takes the attempt over when the lease ends, and the event arrives.
 * PostgreSQL only: PGlite is an embedded, single-process database, so no second process can share it.
 */
let t: TestApp;
let receiver: Receiver;
let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  t = await buildTestApp({ env: { PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
  receiver = await new Receiver().listen();
  dataDir = mkdtempSync(join(tmpdir(), 'psa-crash-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver.close();
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function databaseUrl(): Promise<string> {
  const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(t.database.db);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${rows[0]!.name}`;
  return url.toString();
}

function startWorkerProcess(url: string): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      DATABASE_URL: url,
      PSA_SECRET_KEY: TEST_SECRET_KEY,
      PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
      PSA_WEBHOOK_LEASE_MS: '1500',
      PSA_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

describe('crash safety across processes', () => {
  it.skipIf(engine !== 'pg')('a worker process killed mid-request: another worker process re-sends the attempt after the lease (PostgreSQL only; PGlite is single-process)', async () => {
    const { admin, tenant } = await makeTenant(t);
    receiver.reply = (_r, n) => (n === 1 ? 'hang' : { status: 200, body: 'got it' });
    const hook = await createWebhook(admin, { url: receiver.url });
    const url = await databaseUrl();
    const eventId = await emitEvent(t, tenant, 'ticket.updated', { data: ticketData() });

    const first = startWorkerProcess(url);
    await expect.poll(() => receiver.receipts.length, { timeout: 30_000, interval: 20 }).toBe(1);
    first.kill('SIGKILL');
    await exited(first);
    const [held] = await deliveriesOf(t, tenant, hook.webhook_id);
    expect(held).toMatchObject({ status: 'pending', attempt: 1 });
    expect(held!.claim_token).not.toBeNull();

    const second = startWorkerProcess(url);
    await expect.poll(() => receiver.receipts.length, { timeout: 30_000, interval: 20 }).toBe(2);
    const [lost, resent] = receiver.receipts;
    expect(resent!.headers['x-service-event-id']).toBe(eventId);
    expect(resent!.headers['x-service-delivery-id']).toBe(lost!.headers['x-service-delivery-id']);
    expect(resent!.body).toBe(lost!.body);
    expect(verifySignature(hook.secret, resent!.headers['x-service-signature'], resent!.body)).toBe(true);
    await expect.poll(async () => (await deliveriesOf(t, tenant, hook.webhook_id)).map((r) => r.status), { timeout: 10_000 }).toEqual(['delivered']);
    second.kill('SIGTERM');
    await exited(second);
    expect(second.exitCode).toBe(0);
    receiver.dropHeld();
  }, 90_000);
});
