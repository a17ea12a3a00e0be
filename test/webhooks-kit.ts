import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { withTransaction } from '../src/platform/db/executor.ts';
import { TICKET_DATA_FIELDS } from '../src/modules/tickets/index.ts';
import { emit } from '../src/platform/events/outbox.ts';
import { OutboxRelay } from '../src/platform/events/relay.ts';
import { OutboundClient, type LookupFn } from '../src/platform/net/outbound-http.ts';
import { WebhookDispatcher, webhookFanOut, type DispatcherOptions } from '../src/modules/webhooks/index.ts';
import { randomId } from './client-factories.ts';
import type { Api } from './factories.ts';
import type { TestApp } from './harness.ts';

/** Shared pieces of the webhook suites: a real receiver that checks signatures with its own code, a movable clock, events. */

export const LOOPBACK = ['127.0.0.1/32'];

export interface Receipt {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver answers: a status (and body/headers), or 'hang' (never answers; the socket is held). */
export type Reply = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/**
 * The receiver's own signature check — deliberately not the module's code: `t=<unix>,v1=<hex>` where
 * v1 = HMAC-SHA256(secret, "<t>.<raw body>"), compared in constant time, t within 5 minutes of now.
 */
export function verifySignature(secret: string, header: string | string[] | undefined, body: string, nowMs = Date.now()): boolean {
  if (typeof header !== 'string') return false;
  const parts = new Map(header.split(',').map((p) => {
    const i = p.indexOf('=');
    return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const;
  }));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowMs / 1000 - t) > 300 || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}

/** A real HTTP server on 127.0.0.1 that records every request and answers as `reply` says. */
export class Receiver {
  receipts: Receipt[] = [];
  reply: (receipt: Receipt, n: number) => Reply = () => ({ status: 200, body: 'ok' });
  /** Called for every request as it arrives (before the reply). */
  onRequest: ((receipt: Receipt) => void) | undefined;
  url = '';
  private readonly held: ServerResponse[] = [];
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const receipt: Receipt = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      this.receipts.push(receipt);
      this.onRequest?.(receipt);
      const reply = this.reply(receipt, this.receipts.length);
      if (reply === 'hang') {
        this.held.push(res);
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers }).end(reply.body ?? '');
    });
  });

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Receipts per X-Service-Delivery-Id. */
  perDelivery(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.receipts) {
      const id = String(r.headers['x-service-delivery-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  }

  /** Drops the connections of requests held open ('hang'). */
  dropHeld(): void {
    for (const res of this.held.splice(0)) res.socket?.destroy();
  }

  async close(): Promise<void> {
    this.dropHeld();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The scheduling clock handed to dispatchers: tests move it instead of waiting. */
export class TestClock {
  constructor(public ms = Date.now()) {}
  now = (): Date => new Date(this.ms);
  advance(ms: number): Date {
    this.ms += ms;
    return this.now();
  }
}

export interface WebhookJson {
  webhook_id: string;
  name: string;
  description: string | null;
  url: string;
  event_types: string[];
  custom_headers: Record<string, string>;
  rate_limit_per_minute: number;
  payload_fields: Record<string, string[] | null> | null;
  event_filter: { entity_ids: string[] } | null;
  is_active: boolean;
  auto_disabled_at: string | null;
  failing_since: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
  created_by_user_id: string | null;
  created_at: string;
  updated_at: string;
}

export async function createWebhook(api: Api, body: Record<string, unknown>): Promise<WebhookJson & { secret: string }> {
  const res = await api.post('/api/v1/webhooks', { name: 'Hook', event_types: ['ticket.updated'], ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

/** A full ticket `data` object (TICKET_DATA_FIELDS), as the tickets module emits it. */
export function ticketData(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const ticketId = (overrides.ticket_id as string | undefined) ?? randomId();
  const base: Record<string, unknown> = Object.fromEntries(TICKET_DATA_FIELDS.map((f) => [f, null]));
  return {
    ...base,
    ticket_id: ticketId,
    ticket_number: 'T-000001',
    title: 'Printer on fire',
    status_id: randomId(),
    status_name: 'Open',
    priority_name: 'High',
    client_name: 'Acme',
    is_closed: false,
    entered_at: '2026-11-21T10:00:00.000Z',
    updated_at: '2026-11-21T10:05:00.000Z',
    tags: ['printer'],
    suppress_contact_notifications: false,
    suppress_internal_notifications: false,
    url: `http://localhost:3000/msp/tickets/${ticketId}`,
    ...overrides,
  };
}

/** Emits an outbox event the way an area does (payload = { data, changes? }); returns its event_id. */
export async function emitEvent(t: TestApp, tenant: string, eventType: string, payload: Record<string, unknown>): Promise<string> {
  const data = (payload.data ?? {}) as Record<string, unknown>;
  const aggregateId = String(data.task_id ?? data.ticket_id ?? data.project_id ?? randomId());
  return withTransaction(t.database.db, (trx) =>
    emit(trx, { tenant, event_type: eventType, aggregate_type: eventType.split('.')[0]!, aggregate_id: aggregateId, payload }),
  );
}

const quietLog = { error: () => undefined, info: () => undefined };

/** Runs the outbox through the webhook fan-out until nothing is due. */
export async function fanOut(t: TestApp, now?: () => Date): Promise<void> {
  const relay = new OutboxRelay(t.database.db, [webhookFanOut({ db: t.database.db, now })], quietLog);
  for (let i = 0; i < 50 && (await relay.runOnce()) > 0; i++);
}

/** Dispatchers (and their clients) made by a suite, closed together. */
export class Dispatchers {
  private readonly clients: OutboundClient[] = [];
  private readonly running: WebhookDispatcher[] = [];
  constructor(private readonly t: TestApp) {}

  make(opts: Partial<DispatcherOptions> & { lookup?: LookupFn; allowPrivate?: string[] } = {}): WebhookDispatcher {
    const { lookup, allowPrivate, ...rest } = opts;
    const client = opts.client ?? new OutboundClient({ allowPrivate: allowPrivate ?? LOOPBACK, lookup });
    if (!opts.client) this.clients.push(client);
    return new WebhookDispatcher(this.t.database, { client, secretBox: this.t.app.secretBox, ...rest });
  }

  async started(opts: Partial<DispatcherOptions> = {}): Promise<WebhookDispatcher> {
    const d = this.make(opts);
    await d.start();
    this.running.push(d);
    return d;
  }

  async close(): Promise<void> {
    await Promise.all(this.running.splice(0).map((d) => d.stop()));
    await Promise.all(this.clients.splice(0).map((c) => c.close()));
  }
}

/** Runs passes until one claims nothing. */
export async function drain(d: WebhookDispatcher): Promise<void> {
  for (let i = 0; i < 100 && (await d.runOnce()) > 0; i++);
}

export async function deliveriesOf(t: TestApp, tenant: string, webhookId: string) {
  return t.database.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('webhook_id', '=', webhookId)
    .orderBy('created_at')
    .orderBy('cycle')
    .orderBy('attempt')
    .execute();
}

export async function webhookRow(t: TestApp, tenant: string, webhookId: string) {
  return t.database.db.selectFrom('webhooks').selectAll().where('tenant', '=', tenant).where('webhook_id', '=', webhookId).executeTakeFirstOrThrow();
}
