import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { openPglite, openPostgres, type Database } from '../src/platform/db/database.ts';
import type { BucketStore } from '../src/platform/http/rate-limit/token-bucket.ts';

export const engine = process.env.TEST_DATABASE_URL ? 'pg' : 'pglite';

/** A fixed key for tests (never used outside them). */
export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64url');

/** A fresh migrated database for one test file: a restored PGlite image or a copied PG template. */
export async function createTestDatabase(): Promise<Database> {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (!pgUrl) {
    const image = readFileSync(inject('pgliteImage'));
    return openPglite({ loadDataDir: new Blob([image]) });
  }
  const name = `psa_t_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${name} template ${inject('pgTemplate')}`);
  await admin.end();
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), 5);
  return {
    ...database,
    async close() {
      await database.close();
      const drop = new pg.Client({ connectionString: pgUrl });
      await drop.connect();
      await drop.query(`drop database if exists ${name} with (force)`);
      await drop.end();
    },
  };
}

export interface TestApp {
  app: App;
  database: Database;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  buckets?: BucketStore;
  config?: Partial<Config>;
  /** Share another test app's database (a second "process"); it is then not closed by this app. */
  database?: Database;
}

export async function buildTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const database = opts.database ?? (await createTestDatabase());
  const config = {
    ...loadConfig({ PSA_RATE_LIMIT_BURST: '100000', PSA_RATE_LIMIT_PER_MINUTE: '100000', PSA_SECRET_KEY: TEST_SECRET_KEY, ...opts.env }),
    ...opts.config,
  };
  const app = await buildApp({
    config,
    database,
    buckets: opts.buckets,
    logger: process.env.TEST_LOG ? { level: 'debug' } : false,
  });
  await app.ready();
  return {
    app,
    database,
    async close() {
      await app.close();
      if (!opts.database) await database.close();
    },
  };
}
