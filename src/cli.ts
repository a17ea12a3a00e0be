import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { openDatabase, type Database } from './platform/db/database.ts';
import { migrateToLatest } from './platform/db/migrate.ts';
import { withTransaction } from './platform/db/executor.ts';
import { AppError } from './platform/http/errors.ts';
import { createTenant, findTenantBySlug } from './modules/tenants/index.ts';
import { issueApiKey } from './modules/api-keys/index.ts';
import { findUserByEmail } from './modules/users/index.ts';
import { fail } from './process-errors.ts';
import { searchReindexCommand } from './modules/search/index.ts';
// The module list installs the permission catalogue (tenant roles) and the search indexers (reindex).
import './modules.ts';

const USAGE = `psa — administer the PSA API's database

  psa migrate
  psa tenant create --name NAME --slug SLUG --admin-email EMAIL [--admin-password PASSWORD] [--json]
  psa key create --tenant SLUG --user EMAIL [--name NAME] [--json]
  psa search reindex [--tenant SLUG-OR-ID] [--type TYPE] [--json]

Uses DATABASE_URL (PostgreSQL) or the embedded database in PSA_DATA_DIR (default ./data).
With the embedded database, stop the server first: one process owns the data directory.
`;

function print(json: boolean, data: Record<string, unknown>, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(data)}\n` : `${text}\n`);
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new AppError('VALIDATION_ERROR', `--${name} is required\n\n${USAGE}`);
  return v;
}

/** Runs one command; returns the process exit code. */
async function run(argv: string[], database: Database): Promise<number> {
  const [group, action, ...rest] = argv;
  const { db } = database;
  if (group === 'migrate' && action === undefined) {
    const applied = await migrateToLatest(db);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    return 0;
  }
  await migrateToLatest(db);
  if (group === 'tenant' && action === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: { name: { type: 'string' }, slug: { type: 'string' }, 'admin-email': { type: 'string' }, 'admin-password': { type: 'string' }, json: { type: 'boolean' } },
    });
    const result = await createTenant(db, {
      name: required(values, 'name'),
      slug: required(values, 'slug'),
      adminEmail: required(values, 'admin-email'),
      adminPassword: values['admin-password'],
    });
    print(values.json === true, { ...result }, `tenant ${result.tenant_slug} (${result.tenant_id})\nadmin user ${result.user_id}\nAPI key (shown once): ${result.api_key}`);
    return 0;
  }
  if (group === 'key' && action === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: { tenant: { type: 'string' }, user: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } },
    });
    const slug = required(values, 'tenant');
    const email = required(values, 'user');
    const tenant = await findTenantBySlug(db, slug);
    if (!tenant) throw new AppError('NOT_FOUND', `No tenant with slug '${slug}'`);
    const user = await findUserByEmail(db, tenant.tenant_id, email);
    if (!user) throw new AppError('NOT_FOUND', `No user '${email}' in tenant '${slug}'`);
    const name = values.name ?? 'CLI key';
    if (name.length > 100) throw new AppError('VALIDATION_ERROR', '--name must be at most 100 characters');
    const key = await withTransaction(db, (trx) => issueApiKey(trx, tenant.tenant_id, user.user_id, { name }));
    print(values.json === true, { tenant_id: tenant.tenant_id, tenant_slug: slug, user_id: user.user_id, api_key_id: key.id, api_key: key.api_key }, `API key (shown once): ${key.api_key}`);
    return 0;
  }
  if (group === 'search' && action === 'reindex') {
    const { values } = parseArgs({ args: rest, options: { tenant: { type: 'string' }, type: { type: 'string' }, json: { type: 'boolean' } } });
    const result = await searchReindexCommand(db, { tenant: values.tenant, type: values.type });
    print(values.json === true, result, result.lines.join('\n'));
    return 0;
  }
  return unknownCommand(argv);
}

function unknownCommand(argv: string[]): number {
  process.stderr.write(`unknown command: ${argv.join(' ')}\n\n${USAGE}`);
  return 2;
}

const COMMANDS = ['migrate', 'tenant create', 'key create', 'search reindex'];

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || ['help', '--help', '-h'].includes(argv[0]!)) {
    process.stdout.write(USAGE);
    return;
  }
  // An unknown command is answered before the database is opened (starting the embedded one takes seconds).
  if (!COMMANDS.includes(argv[0] === 'migrate' && argv.length === 1 ? 'migrate' : argv.slice(0, 2).join(' '))) {
    process.exit(unknownCommand(argv));
  }
  const database = await openDatabase(loadConfig());
  let code: number;
  try {
    code = await run(argv, database);
  } finally {
    await database.close();
  }
  process.exit(code);
}

main().catch((err) => fail(err instanceof TypeError && (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS') ? new AppError('VALIDATION_ERROR', `${err.message}\n\n${USAGE}`) : err));
