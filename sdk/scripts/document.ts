/**
 * The API's OpenAPI document as the server publishes it, built from the app's routes without a database
 * (an empty in-memory PGlite: nothing is queried while routes register). Shared by the generator and the
 * drift test.
 */
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openPglite } from '../../src/platform/db/database.ts';

/** The server URL the committed document names (PSA_PUBLIC_URL decides it on a running server). */
export const DOCUMENT_SERVER_URL = 'http://localhost:3000';

export async function buildDocument(): Promise<Record<string, unknown>> {
  const database = await openPglite();
  try {
    const config = loadConfig({ PSA_SECRET_KEY: Buffer.alloc(32, 1).toString('base64url'), PSA_PUBLIC_URL: DOCUMENT_SERVER_URL, LOG_LEVEL: 'silent' });
    const app = await buildApp({ config, database, logger: false });
    await app.ready();
    const document = app.swagger() as unknown as Record<string, unknown>;
    await app.close();
    return document;
  } finally {
    await database.close();
  }
}
