/**
 * A minimal outbound-webhook receiver, as an integrator would write one:
 *
 *   WEBHOOK_SECRET=<secret from POST /api/v1/webhooks> npx tsx examples/webhook-receiver.ts [port]
 *
 * Listens on 127.0.0.1 (default port 4000), checks X-Service-Signature (`t=<unix>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>">`) in constant time with a five-minute tolerance, drops repeats by event_id (delivery is
 * at least once), prints each event and answers 204. A bad signature gets 401.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { pathToFileURL } from 'node:url';

const TOLERANCE_S = 300;

export function verifySignature(secret: string, header: string | undefined, rawBody: string, nowMs = Date.now()): boolean {
  if (!header) return false;
  const parts = new Map(header.split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowMs / 1000 - t) > TOLERANCE_S || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}

export interface ReceivedEvent {
  event_id: string;
  event_type: string;
  occurred_at: string;
  tenant_id: string;
  data: Record<string, unknown>;
  changes?: Record<string, { previous: unknown; new: unknown }>;
}

/** Starts the receiver (port 0 picks a free one); `onEvent` sees each verified event once. */
export function startReceiver(secret: string | (() => string), port: number, onEvent: (event: ReceivedEvent) => void): Promise<Server> {
  const secretNow = typeof secret === 'string' ? () => secret : secret;
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (!verifySignature(secretNow(), req.headers['x-service-signature'] as string | undefined, body)) {
        res.writeHead(401).end();
        return;
      }
      const event = JSON.parse(body) as ReceivedEvent;
      if (!seen.has(event.event_id)) {
        seen.add(event.event_id);
        onEvent(event);
      }
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('Set WEBHOOK_SECRET to the secret POST /api/v1/webhooks returned.');
    process.exit(2);
  }
  const port = Number(process.argv[2] ?? 4000);
  await startReceiver(secret, port, (event) => {
    console.log(`${event.occurred_at} ${event.event_type} ${event.event_id}`);
    console.log(JSON.stringify({ data: event.data, ...(event.changes ? { changes: event.changes } : {}) }, null, 2));
  });
  console.log(`Receiving webhooks on http://127.0.0.1:${port}/ (signatures checked)`);
}
