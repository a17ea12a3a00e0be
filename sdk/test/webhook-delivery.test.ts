import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature, WebhookSignatureError } from '../src/index.ts';
import { startServer, type LiveServer } from './server-kit.ts';

interface Receipt {
  header: string | undefined;
  raw: Buffer;
}

let server: LiveServer;
let receiver: Server;
let receiverUrl: string;
const receipts: Receipt[] = [];

beforeAll(async () => {
  // The server refuses loopback targets unless told otherwise; the receiver lives on 127.0.0.1.
  server = await startServer({ env: { PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receipts.push({ header: req.headers['x-service-signature'] as string | undefined, raw: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await server?.close();
});

describe('verifyWebhookSignature on a delivery the server signed', () => {
  it('accepts the real delivery and rejects it with another secret or a changed body', async () => {
    const psa = server.client();
    const { data: hook } = await psa.POST('/api/v1/webhooks', { body: { name: 'sdk test', url: receiverUrl, event_types: ['ticket.created'] } });
    const { data: outcome } = await psa.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: hook.data.webhook_id } } });
    expect(outcome.data).toMatchObject({ success: true, response_status: 204 });
    expect(receipts).toHaveLength(1);
    const { header, raw } = receipts[0]!;
    const secret = hook.data.secret;
    expect(verifyWebhookSignature({ payload: raw, header, secret })).toBe(true);
    expect(verifyWebhookSignature({ payload: raw.toString('utf8'), header, secret })).toBe(true);
    expect(() => verifyWebhookSignature({ payload: raw, header, secret: `${secret}x` })).toThrow(WebhookSignatureError);
    const tampered = Buffer.from(raw.toString('utf8').replace('"is_test":true', '"is_test":false'));
    expect(tampered.equals(raw)).toBe(false);
    expect(() => verifyWebhookSignature({ payload: tampered, header, secret })).toThrow(/no v1 signature matches/);
    // Replayed well after it was signed: refused however valid the signature.
    expect(() => verifyWebhookSignature({ payload: raw, header, secret, now: Date.now() + 301_000 })).toThrow(/from now/);
  });
});
