import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApp } from './harness.ts';
import { unique, type Api, type Res } from './factories.ts';

/** Helpers for the inbound-webhook suites: configurations made through the API, and receiver calls. */

export interface InboundJson {
  inbound_webhook_id: string;
  name: string;
  slug: string;
  receiver_url: string;
  auth_type: string;
  auth_config: Record<string, unknown>;
  has_secret: boolean;
  handler_type: string;
  handler_config: Record<string, unknown>;
  is_active: boolean;
  sample_payload: unknown;
  sample_captured_at: string | null;
  sample_capture_pending: boolean;
  secret?: string;
  [k: string]: unknown;
}

export const WORKFLOW = { handler_type: 'workflow', handler_config: {} } as const;

/** A configuration through POST /api/v1/inbound-webhooks (201 asserted); `secret` is the generated one. */
export async function makeInbound(api: Api, body: Record<string, unknown> = {}): Promise<InboundJson> {
  const res = await api.post('/api/v1/inbound-webhooks', {
    name: 'Inbound',
    slug: unique('in').toLowerCase().replace(/[^a-z0-9-]/g, '-'),
    auth_type: 'hmac_sha256',
    ...WORKFLOW,
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as InboundJson;
}

export const hmacHex = (secret: string, payload: string | Buffer): string => createHmac('sha256', secret).update(payload).digest('hex');

export interface ReceiveOptions {
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  query?: string;
  remoteAddress?: string;
  contentType?: string | null;
}

/** POST /api/inbound/{tenantSlug}/{webhookSlug} without an API key. */
export function receive(t: TestApp, tenantSlug: string, slug: string, opts: ReceiveOptions = {}): Promise<Res> {
  const payload = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.contentType !== null) headers['content-type'] = opts.contentType ?? 'application/json';
  return t.app.inject({
    method: 'POST',
    url: `/api/inbound/${tenantSlug}/${slug}${opts.query ?? ''}`,
    headers,
    ...(payload === undefined ? {} : { payload }),
    ...(opts.remoteAddress ? { remoteAddress: opts.remoteAddress } : {}),
  }) as Promise<Res>;
}

/** A body signed for the default hmac_sha256 configuration (x-webhook-signature: sha256=<hex>). */
export function signed(secret: string, body: unknown, header = 'x-webhook-signature'): ReceiveOptions {
  const text = JSON.stringify(body);
  return { body: text, headers: { [header]: `sha256=${hmacHex(secret, text)}` } };
}

export interface DeliveryRowJson {
  delivery_id: string;
  dispatch_status: string;
  response_status: number | null;
  [k: string]: unknown;
}

/** All delivery rows of a webhook, straight from the table (oldest first). */
export async function deliveryRows(t: TestApp, tenant: string, webhookId: string) {
  return t.database.db
    .selectFrom('inbound_webhook_deliveries')
    .selectAll()
    .where('tenant', '=', tenant)
    .where('inbound_webhook_id', '=', webhookId)
    .orderBy('received_at')
    .orderBy('delivery_id')
    .execute();
}

/** The tenant's outbox rows of one event type. */
export async function eventsOfType(t: TestApp, tenant: string, type: string) {
  const rows = await t.database.db.selectFrom('events').select(['event_type', 'aggregate_id', 'payload']).where('tenant', '=', tenant).where('event_type', '=', type).execute();
  return rows.map((r) => ({ ...r, payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown> }));
}
