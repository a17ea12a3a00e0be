import type { FastifyReply } from 'fastify';
import type { Executor } from '../../../platform/db/executor.ts';

/** The OpenAPI answer of a PDF route. */
export const PdfResponse = { description: 'The document as a PDF', content: { 'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } } } };

/** A file name for Content-Disposition: the document number reduced to safe ASCII. */
export const pdfFileName = (number: string | null, fallback: string): string => `${(number ?? '').replace(/[^A-Za-z0-9._-]/g, '_') || fallback}.pdf`;

/** Who issues the documents: the tenant, by its name. */
export async function sellerName(db: Executor, tenant: string): Promise<string> {
  const row = await db.selectFrom('tenants').select('name').where('tenant_id', '=', tenant).executeTakeFirst();
  return row?.name ?? '';
}

/** Sends PDF bytes inline (binary, not a JSON body: answered through the untyped reply). */
export function sendPdf(reply: unknown, bytes: Buffer, fileName: string) {
  const out = reply as FastifyReply;
  out.header('Content-Disposition', `inline; filename="${fileName}"`);
  out.header('Cache-Control', 'private, no-cache');
  out.header('X-Content-Type-Options', 'nosniff');
  return out.type('application/pdf').send(bytes);
}
