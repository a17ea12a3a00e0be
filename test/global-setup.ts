import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPglite, openPostgres } from '../src/platform/db/database.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteImage: string;
    pgTemplate: string;
  }
}

/**
 * Migrates once per run: into a PGlite image that each test file restores (PGlite), or into a
 * template database that each test file copies (PostgreSQL, when TEST_DATABASE_URL is set).
 */
export default async function setup(project: TestProject) {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) {
    const template = `psa_tpl_${process.pid}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect(); // fails the run if PostgreSQL is unreachable: never a silent skip
    await admin.query(`drop database if exists ${template}`);
    await admin.query(`create database ${template}`);
    const url = new URL(pgUrl);
    url.pathname = `/${template}`;
    const database = await openPostgres(url.toString(), 2);
    await migrateToLatest(database.db);
    await database.close();
    project.provide('pgTemplate', template);
    project.provide('pgliteImage', '');
    return async () => {
      await admin.query(`drop database if exists ${template} with (force)`);
      await admin.end();
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'psa-test-'));
  const database = await openPglite();
  await migrateToLatest(database.db);
  const image = join(dir, 'migrated.tar.gz');
  const dump = await database.dump!();
  writeFileSync(image, Buffer.from(await dump.arrayBuffer()));
  await database.close();
  project.provide('pgliteImage', image);
  project.provide('pgTemplate', '');
  return () => rmSync(dir, { recursive: true, force: true });
}
