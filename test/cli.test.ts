import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/platform/db/database.ts';
import { acquireDataDirLock } from '../src/platform/db/data-dir-lock.ts';
import { hashApiKey } from '../src/platform/auth/api-key-secret.ts';
import { engine } from './harness.ts';

const run = promisify(execFile);
const PSA = join(import.meta.dirname, '..', 'bin', 'psa.js');

let env: Record<string, string>;
let dataDir: string;
let pgName: string | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'psa-cli-'));
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) {
    pgName = `psa_cli_${process.pid}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${pgName}`);
    await admin.query(`create database ${pgName}`);
    await admin.end();
    const url = new URL(pgUrl);
    url.pathname = `/${pgName}`;
    env = { DATABASE_URL: url.toString() };
  } else {
    env = { PSA_DATA_DIR: dataDir };
  }
});

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (pgName) {
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`drop database if exists ${pgName} with (force)`);
    await admin.end();
  }
});

async function psa(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return psaWith(env, ...args);
}

async function psaWith(vars: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [PSA, ...args], { env: { ...process.env, DATABASE_URL: '', ...vars } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

// Each test spawns several `psa` processes (about 2 s each on a quiet machine, several times that under a loaded
// test run), so the file allows more than the default 30 s per test.
describe(`psa CLI (${engine})`, { timeout: 120_000 }, () => {
  it('migrates, creates a tenant and a key, printing JSON', async () => {
    const migrate = await psa('migrate');
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(migrate.stdout).toContain('2026_11_21_0001_platform');

    const tenant = await psa('tenant', 'create', '--name', 'Acme MSP', '--slug', 'acme', '--admin-email', 'Admin@Acme.example', '--admin-password', 'correct horse battery', '--json');
    expect(tenant.code, tenant.stderr).toBe(0);
    const created = JSON.parse(tenant.stdout);
    expect(Object.keys(created).sort()).toEqual(['api_key', 'tenant_id', 'tenant_slug', 'user_id']);
    expect(created.tenant_slug).toBe('acme');
    expect(created.api_key).toMatch(/^psa_[A-Za-z0-9_-]{43}$/);

    const key = await psa('key', 'create', '--tenant', 'acme', '--user', 'admin@acme.example', '--name', 'RMM', '--json');
    expect(key.code, key.stderr).toBe(0);
    const minted = JSON.parse(key.stdout);
    expect(minted).toMatchObject({ tenant_id: created.tenant_id, user_id: created.user_id });

    const database = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.PSA_DATA_DIR ?? dataDir });
    try {
      const keys = await database.db.selectFrom('api_keys').select(['key_hash', 'name']).where('tenant', '=', created.tenant_id).orderBy('created_at').execute();
      expect(keys.map((k) => k.key_hash)).toEqual([hashApiKey(created.api_key), hashApiKey(minted.api_key)]);
      const user = await database.db.selectFrom('users').select('password_hash').where('user_id', '=', created.user_id).executeTakeFirstOrThrow();
      expect(user.password_hash).toMatch(/^\$argon2id\$/);
    } finally {
      await database.close();
    }
  });

  it('refuses a duplicate slug, an unknown tenant or user, and missing options, with exit code 1', async () => {
    const dup = await psa('tenant', 'create', '--name', 'Again', '--slug', 'acme', '--admin-email', 'x@y.example');
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain("slug 'acme' already exists");
    const noTenant = await psa('key', 'create', '--tenant', 'nope', '--user', 'a@b.example');
    expect(noTenant.code).toBe(1);
    expect(noTenant.stderr).toContain("No tenant with slug 'nope'");
    const noUser = await psa('key', 'create', '--tenant', 'acme', '--user', 'who@acme.example');
    expect(noUser.code).toBe(1);
    expect(noUser.stderr).toContain('No user');
    const missing = await psa('tenant', 'create', '--name', 'X');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--slug is required');
    const weak = await psa('tenant', 'create', '--name', 'Weak', '--slug', 'weak', '--admin-email', 'a@weak.example', '--admin-password', 'short');
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain('admin-password');
    const unknown = await psa('frobnicate');
    expect(unknown.code).toBe(2);
  });

  it('search reindex rebuilds a tenant\'s index (or one type of it) from the source tables, printing counts', async () => {
    const database = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.PSA_DATA_DIR ?? dataDir });
    let tenantId: string;
    try {
      tenantId = (await database.db.selectFrom('tenants').select('tenant_id').where('slug', '=', 'acme').executeTakeFirstOrThrow()).tenant_id;
      await database.db.deleteFrom('search_documents').where('tenant', '=', tenantId).execute();
    } finally {
      await database.close();
    }
    const all = await psa('search', 'reindex', '--tenant', 'acme', '--json');
    expect(all.code, all.stderr).toBe(0);
    // The seeded board "General", its three statuses and the admin user.
    expect(JSON.parse(all.stdout)).toMatchObject({ indexed: 5, removed: 0 });
    const typed = await psa('search', 'reindex', '--tenant', tenantId, '--type', 'user');
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stdout).toContain('reindexed 1 tenant(s): 1 rows indexed, 0 stale rows removed');
    const bad = await psa('search', 'reindex', '--type', 'spaceship');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--type must be one of');
  });

  it('with the embedded database, says plainly that the data directory is in use while a server holds it', async () => {
    const embeddedDir = join(dataDir, 'embedded');
    const release = acquireDataDirLock(embeddedDir);
    try {
      const res = await psaWith({ PSA_DATA_DIR: embeddedDir }, 'migrate');
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`is in use by process ${process.pid}`);
      expect(res.stderr).not.toContain('    at ');
    } finally {
      release();
    }
  });
});
