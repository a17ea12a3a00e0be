/**
 * The receiver process of bench/webhooks.ts (not meant to be run on its own): an HTTP server on 127.0.0.1
 * that checks every delivery's signature with its own HMAC code and records what arrived. It runs in its
 * own process so that receiving and verifying never compete with the load generator for one event loop.
 *
 * IPC: the parent sends {type:'secrets', secrets} and {type:'reset'}; it asks {type:'stats'} and gets
 * ReceiverStats back. On start the child sends {type:'listening', url}.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../examples/webhook-receiver.ts';

export interface ReceiverStats {
  type: 'stats';
  received: number;
  /** Distinct (event_id, webhook) pairs: a duplicate delivery makes this smaller than received. */
  distinct: number;
  badSignatures: number;
  firstAt: number;
  lastAt: number;
  /** Receipt time − the envelope's occurred_at, per delivery, in ms. */
  latencies: number[];
}

export type ParentMessage = { type: 'secrets'; secrets: Record<string, string> } | { type: 'reset' } | { type: 'stats' };

const secrets = new Map<string, string>();
let seen = new Set<string>();
let stats = { received: 0, badSignatures: 0, firstAt: 0, lastAt: 0, latencies: [] as number[] };

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const webhookId = String(req.headers['x-service-webhook-id']);
    const secret = secrets.get(webhookId);
    if (!secret || !verifySignature(secret, req.headers['x-service-signature'] as string | undefined, body)) {
      stats.badSignatures++;
      res.writeHead(401).end();
      return;
    }
    const now = Date.now();
    const envelope = JSON.parse(body) as { event_id: string; occurred_at: string };
    stats.received++;
    if (stats.firstAt === 0) stats.firstAt = now;
    stats.lastAt = now;
    stats.latencies.push(now - Date.parse(envelope.occurred_at));
    seen.add(`${envelope.event_id}/${webhookId}`);
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;

process.on('message', (m: ParentMessage) => {
  if (m.type === 'secrets') for (const [id, secret] of Object.entries(m.secrets)) secrets.set(id, secret);
  if (m.type === 'reset') {
    seen = new Set();
    stats = { received: 0, badSignatures: 0, firstAt: 0, lastAt: 0, latencies: [] };
  }
  if (m.type === 'stats') process.send!({ type: 'stats', ...stats, distinct: seen.size } satisfies ReceiverStats);
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  process.send!({ type: 'listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` });
});
