import { existsSync, renameSync, rmSync } from 'node:fs';
import { sql } from 'kysely';
import { EMBEDDED_TEMPLATE_DIR, openPglite } from './database.ts';
import { migrateToLatest } from './migrate.ts';

/**
 * Writes the embedded database template that a new data directory starts from (`npm run build` calls this after
 * compiling, so dist/embedded-template is as new as dist/'s migrations): an initialised cluster with every migration
 * applied, and nothing else (no tenant, no secret). A first `npm start` copies it instead of running initdb and
 * the migrations (seconds, and a few hundred MB of WebAssembly memory). Written beside and renamed into place,
 * so a failed build leaves no half template.
 */
export async function writeEmbeddedTemplate(dir: string = EMBEDDED_TEMPLATE_DIR): Promise<string[]> {
  const staging = `${dir}.new`;
  rmSync(staging, { recursive: true, force: true });
  const database = await openPglite({ dataDir: staging });
  let applied: string[];
  try {
    applied = await migrateToLatest(database.db);
    await sql`checkpoint`.execute(database.db);
  } finally {
    await database.close();
  }
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return applied;
}
