/**
 * npm run bench:billing — the tenant-wide billing run (POST /api/v1/invoices/generate) on PostgreSQL.
 *
 * Recreates BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/psa_bench_billing; loopback hosts
 * and database names containing "bench" only), migrates it and creates one tenant. Through the API: an
 * 8.875 % tax rate, a usage service (GB) and an hourly service. In bulk SQL (the rows the clients, tax and
 * contracts services write): BENCH_CLIENTS clients (default 2,000), each with its default billing profile,
 * tax settings (the rate as default; every tenth client exempt), one active contract assigned to the profile
 * (a quarter of them starting mid-November) with three lines of its own — fixed (half prorated, a fifth with
 * a custom rate on the attachment), usage (a third tiered, a seventh with a minimum) and bucket (half with
 * rollover) — and usage records in and around November (hours for the buckets, GB for the usage lines).
 *
 * Then, in this process through the real app (`app.inject`: auth, validation, the service, serialisation):
 * a dry run (the first call, reported), then BENCH_ROUNDS (default 3) interleaved rounds of baseline →
 * tenant-wide generation for November 2026, the generated invoices and their events removed (untimed) between
 * rounds, and finally a repeat that must skip every group as already generated. Every round is checked: each
 * invoice's totals equal the sum of its items (in the answer and in the tables), and each client's items,
 * totals and due date equal what this script recomputes on its own from the seed figures (its own bigint
 * half-even arithmetic, not the API's code). The baseline: a plain chunked multi-row INSERT of the same
 * number of invoice and item rows, no logic, committed (deleted afterwards, untimed). Prints per round and
 * the median: invoices/s, items/s, the baseline and the ratio; writes bench/results/billing-<timestamp>.json;
 * exits 1 on any mismatch or non-2xx answer (a bad setting stops the run before it starts).
 * Target: ≥ 500 invoices/s.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql, type Insertable, type Kysely } from 'kysely';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres, type Database } from '../src/platform/db/database.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import type { DB } from '../src/platform/db/schema.ts';
import { newId } from '../src/platform/ids.ts';
import { createTenant } from '../src/modules/tenants/index.ts';
import { BenchError, benchDatabaseUrl, intEnv, recreateDatabase } from './bench-env.ts';

const CLIENTS = intEnv('BENCH_CLIENTS', 2000, 1, 20_000);
const ROUNDS = intEnv('BENCH_ROUNDS', 3, 1, 20);
const TARGET = 500;
const HUGE = 100_000_000;
const PERIOD = { start: '2026-11-01', end: '2026-11-30', days: 30 };
const PREVIOUS = { start: '2026-10-02', end: '2026-10-31' };
const RATE_THOUSANDTHS = 8875n;
const CHUNK = 1000;
const dbUrl = benchDatabaseUrl('psa_bench_billing');

// ---------------------------------------------------------------------------------------------------------
// The seed, as plain figures per client: what the SQL writes and what the independent check recomputes from.

interface Seed {
  i: number;
  name: string;
  paymentTerms: string | null;
  exempt: boolean;
  start: string;
  fixed: { rate: number; proration: boolean; custom: number | null };
  usage: { rate: number; minimum: number; tiered: boolean };
  bucket: { overageRate: number; rollover: boolean };
  /** [usage_date, ten-thousandths] */
  gb: [string, number][];
  hours: [string, number][];
}

const pad = (n: number, w = 4) => String(n).padStart(w, '0');

function seedOf(i: number): Seed {
  const midNov = i % 4 === 3;
  const gb: [string, number][] = [['2026-11-05', (10 + (i % 137)) * 10_000 + 2500], ['2026-10-15', 500 * 10_000]];
  if (i % 61 !== 0) gb.push(['2026-11-20', (i % 61) * 15_000]);
  const hours: [string, number][] = [['2026-11-08', (4 + (i % 9)) * 10_000], ['2026-10-10', (2 + (i % 10)) * 10_000], ['2026-10-01', 3 * 10_000]];
  if (i % 5 !== 0) hours.push(['2026-11-25', 12_345 * (i % 5)]);
  return {
    i,
    name: `Bench client ${pad(i)}`,
    paymentTerms: i % 3 === 0 ? 'Net 30' : i % 3 === 1 ? 'Net 15' : null,
    exempt: i % 10 === 9,
    start: midNov ? `2026-11-${pad(2 + (i % 27), 2)}` : '2026-01-01',
    fixed: { rate: 10_000 + ((i * 137) % 90_000), proration: i % 2 === 0, custom: i % 5 === 0 ? 50_000 : null },
    usage: { rate: 5 + (i % 20), minimum: i % 7 === 0 ? 50 : 0, tiered: i % 3 === 0 },
    bucket: { overageRate: 12_000 + (i % 4) * 1000, rollover: i % 2 === 1 },
    gb,
    hours,
  };
}

// ---------------------------------------------------------------------------------------------------------
// The independent check: bigint arithmetic written here, not the API's code.

function halfEven(n: bigint, d: bigint): bigint {
  let q = n / d;
  let r = n % d;
  if (r < 0n) { q -= 1n; r += d; }
  if (2n * r > d || (2n * r === d && q % 2n !== 0n)) q += 1n;
  return q;
}

const inside = (date: string, from: string, to: string) => date >= from && date <= to;
const sumIn = (records: [string, number][], from: string, to: string) => records.filter(([d]) => inside(d, from, to)).reduce((a, [, u]) => a + BigInt(u), 0n);

interface Expected { amounts: bigint[]; subtotal: bigint; tax: bigint; total: bigint }

function expectedOf(s: Seed): Expected {
  const activeStart = s.start > PERIOD.start ? s.start : PERIOD.start;
  const activeDays = BigInt(PERIOD.days - (Number(activeStart.slice(8, 10)) - 1));
  const amounts: bigint[] = [];
  // fixed: once per period; prorated by active days when the line says so.
  const rate = BigInt(s.fixed.custom ?? s.fixed.rate);
  amounts.push(s.fixed.proration && activeDays < BigInt(PERIOD.days) ? halfEven(rate * activeDays, BigInt(PERIOD.days)) : rate);
  // usage: GB in the active part, raised to the minimum; tiers [0, 100) at 12, [100, ∞) at 7.
  const used = sumIn(s.gb, activeStart, PERIOD.end);
  const minimum = BigInt(s.usage.minimum) * 10_000n;
  const billed = used > minimum ? used : minimum;
  if (billed > 0n) {
    if (s.usage.tiered) {
      const first = billed < 1_000_000n ? billed : 1_000_000n;
      amounts.push(halfEven(first * 12n, 10_000n));
      if (billed > 1_000_000n) amounts.push(halfEven((billed - 1_000_000n) * 7n, 10_000n));
    } else {
      amounts.push(halfEven(billed * BigInt(s.usage.rate), 10_000n));
    }
  }
  // bucket: 600 minutes (+ rollover of last period's unused, capped at 120, when the contract covered it).
  const usedMin = sumIn(s.hours, activeStart, PERIOD.end) * 60n; // ten-thousandths of a minute
  let allowance = 600n * 10_000n;
  if (s.bucket.rollover && s.start <= PREVIOUS.start) {
    const unused = 600n * 10_000n - sumIn(s.hours, PREVIOUS.start, PREVIOUS.end) * 60n;
    allowance += unused <= 0n ? 0n : unused > 1_200_000n ? 1_200_000n : unused;
  }
  if (usedMin > allowance) {
    const overHours = (usedMin - allowance + 59n) / 60n;
    amounts.push(halfEven(overHours * BigInt(s.bucket.overageRate), 10_000n));
  }
  const subtotal = amounts.reduce((a, b) => a + b, 0n);
  const tax = s.exempt ? 0n : amounts.reduce((a, b) => a + halfEven(b * RATE_THOUSANDTHS, 100_000n), 0n);
  return { amounts, subtotal, tax, total: subtotal + tax };
}

// ---------------------------------------------------------------------------------------------------------

async function insertChunked<T extends keyof DB & string>(db: Kysely<DB>, table: T, rows: Insertable<DB[T]>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await db.insertInto(table).values(rows.slice(i, i + CHUNK) as never).execute();
}

interface Ids { tenant: string; rateId: string; storage: string; support: string; profiles: string[]; clients: string[] }

async function seed(db: Kysely<DB>, ids: Omit<Ids, 'profiles' | 'clients'>, seeds: Seed[]): Promise<Ids> {
  const { tenant } = ids;
  const clients: Insertable<DB['clients']>[] = [];
  const profiles: Insertable<DB['client_billing_profiles']>[] = [];
  const taxes: Insertable<DB['client_tax_settings']>[] = [];
  const contracts: Insertable<DB['contracts']>[] = [];
  const assignments: Insertable<DB['client_contracts']>[] = [];
  const lines: Insertable<DB['contract_lines']>[] = [];
  const lineServices: Insertable<DB['contract_line_services']>[] = [];
  const attachments: Insertable<DB['contract_line_attachments']>[] = [];
  const usage: Insertable<DB['usage_records']>[] = [];
  for (const s of seeds) {
    const clientId = newId();
    const profileId = newId();
    const contractId = newId();
    clients.push({ tenant, client_id: clientId, client_name: s.name, client_type: 'company', billing_cycle: 'monthly', payment_terms: s.paymentTerms, default_currency_code: 'USD', updated_at: new Date() });
    profiles.push({ tenant, billing_profile_id: profileId, client_id: clientId, name: s.name, is_default: true });
    taxes.push({ tenant, client_id: clientId, is_tax_exempt: s.exempt, default_tax_rate_id: ids.rateId, tax_exemption_certificate: s.exempt ? `EX-${pad(s.i)}` : null, updated_at: new Date() });
    contracts.push({ tenant, contract_id: contractId, client_id: clientId, contract_name: `${s.name} managed services`, contract_description: null, start_date: s.start, end_date: null, billing_frequency: 'monthly', status: 'active', currency_code: 'USD', updated_at: new Date() });
    assignments.push({ tenant, client_contract_id: newId(), contract_id: contractId, client_id: clientId, billing_profile_id: profileId, start_date: s.start, end_date: null, is_active: true, updated_at: new Date() });
    const fixedId = newId();
    const usageId = newId();
    const bucketId = newId();
    const line = (id: string, name: string, type: 'fixed' | 'usage' | 'bucket', config: Record<string, unknown>): Insertable<DB['contract_lines']> =>
      ({ tenant, contract_line_id: id, contract_line_name: name, description: null, contract_line_type: type, billing_frequency: 'monthly', currency_code: 'USD', config: JSON.stringify(config), updated_at: new Date() });
    lines.push(line(fixedId, 'Managed endpoints', 'fixed', { base_rate_cents: s.fixed.rate, enable_proration: s.fixed.proration, billing_cycle_alignment: s.fixed.proration ? 'prorated' : 'start' }));
    lines.push(line(usageId, 'Backup storage', 'usage', {
      unit_of_measure: 'GB', rate_cents: s.usage.rate, minimum_usage: s.usage.minimum,
      ...(s.usage.tiered ? { tiers: [{ min_quantity: 0, max_quantity: 100, rate_cents: 12 }, { min_quantity: 100, max_quantity: null, rate_cents: 7 }] } : {}),
    }));
    lines.push(line(bucketId, 'Support hours', 'bucket', { total_minutes: 600, overage_rate_cents: s.bucket.overageRate, allow_rollover: s.bucket.rollover, ...(s.bucket.rollover ? { rollover_cap_minutes: 120 } : {}) }));
    lineServices.push({ tenant, contract_line_id: usageId, service_id: ids.storage, updated_at: new Date() }, { tenant, contract_line_id: bucketId, service_id: ids.support, updated_at: new Date() });
    attachments.push(
      { tenant, contract_id: contractId, contract_line_id: fixedId, custom_rate_cents: s.fixed.custom, display_order: 0 },
      { tenant, contract_id: contractId, contract_line_id: usageId, custom_rate_cents: null, display_order: 1 },
      { tenant, contract_id: contractId, contract_line_id: bucketId, custom_rate_cents: null, display_order: 2 },
    );
    for (const [date, units] of s.gb) usage.push({ tenant, usage_id: newId(), client_id: clientId, service_id: ids.storage, quantity_units: units, usage_date: date, description: null, created_by: null, updated_at: new Date() });
    for (const [date, units] of s.hours) usage.push({ tenant, usage_id: newId(), client_id: clientId, service_id: ids.support, quantity_units: units, usage_date: date, description: null, created_by: null, updated_at: new Date() });
  }
  await db.transaction().execute(async (trx) => {
    await insertChunked(trx, 'clients', clients);
    await insertChunked(trx, 'client_billing_profiles', profiles);
    await insertChunked(trx, 'client_tax_settings', taxes);
    await insertChunked(trx, 'contracts', contracts);
    await insertChunked(trx, 'client_contracts', assignments);
    await insertChunked(trx, 'contract_lines', lines);
    await insertChunked(trx, 'contract_line_services', lineServices);
    await insertChunked(trx, 'contract_line_attachments', attachments);
    await insertChunked(trx, 'usage_records', usage);
  });
  return { ...ids, profiles: profiles.map((p) => p.billing_profile_id), clients: clients.map((c) => c.client_id) };
}

/**
 * The same number of invoice and item rows written with no logic at all: the repo's chunked multi-row
 * INSERT, the columns generation writes (the rest take their defaults), one transaction, committed. The
 * rows are deleted and vacuumed afterwards, outside the timing.
 */
async function baseline(db: Kysely<DB>, ids: Ids, invoices: number, items: number): Promise<number> {
  const invoiceRows: Insertable<DB['invoices']>[] = [];
  const itemRows: Insertable<DB['invoice_items']>[] = [];
  for (let n = 0; n < invoices; n++) {
    invoiceRows.push({
      tenant: ids.tenant, invoice_id: newId(), client_id: ids.clients[n % ids.clients.length]!, billing_profile_id: ids.profiles[n % ids.profiles.length]!,
      status: 'draft', currency_code: 'USD', issue_date: '2026-12-01', due_date: '2026-12-31', period_start: null, period_end: null, is_generated: false,
      subtotal_cents: 1000, tax_cents: 89, total_cents: 1089, amount_paid_cents: 0, credited_cents: 0, balance_cents: 1089, created_by: null,
    });
  }
  for (let k = 0; k < items; k++) {
    itemRows.push({
      tenant: ids.tenant, item_id: newId(), invoice_id: invoiceRows[k % invoices]!.invoice_id, display_order: k, description: 'Baseline item (2026-11-01 – 2026-11-30)',
      quantity_units: 10_000, unit_price_cents: 1000, service_id: null, tax_rate_id: ids.rateId, tax_percentage_thousandths: 8875, total_cents: 1000, tax_cents: 89,
      contract_id: null, contract_line_id: null, source: JSON.stringify({ line_type: 'fixed', client_contract_id: ids.tenant, period_start: PERIOD.start, period_end: PERIOD.end, rate_cents: 1000 }),
    });
  }
  const started = performance.now();
  await db.transaction().execute(async (trx) => {
    await insertChunked(trx, 'invoices', invoiceRows);
    await insertChunked(trx, 'invoice_items', itemRows);
  });
  const ms = performance.now() - started;
  await db.deleteFrom('invoices').where('tenant', '=', ids.tenant).where('is_generated', '=', false).execute();
  await sql`vacuum analyze invoices, invoice_items`.execute(db);
  return ms;
}

interface GeneratedInvoice {
  invoice_id: string | null;
  client_id: string;
  client_name: string;
  due_date: string;
  subtotal_cents: number;
  tax_cents: number;
  total_cents: number;
  items: { total_cents: number; tax_cents: number }[];
}
interface Answer { statusCode: number; body: string; ms: number; data?: { invoices: GeneratedInvoice[]; skipped: { reason: string }[] } }

async function generate(app: App, apiKey: string, body: Record<string, unknown>): Promise<Answer> {
  const started = performance.now();
  const res = await app.inject({ method: 'POST', url: '/api/v1/invoices/generate', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const ms = performance.now() - started;
  const ok = res.statusCode === 200 || res.statusCode === 201;
  return { statusCode: res.statusCode, body: ok ? '' : res.body, ms, data: ok ? (res.json() as { data: Answer['data'] }).data : undefined };
}

async function api(app: App, apiKey: string, method: 'POST' | 'PUT', url: string, payload: unknown): Promise<Record<string, string>> {
  const res = await app.inject({ method, url, headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return (res.json() as { data: Record<string, string> }).data;
}

/** The answer's invoices: totals = Σ items, and each client's items, totals and due date as recomputed here. */
function check(invoices: GeneratedInvoice[], label: string, seeds: Seed[], expected: Map<string, Expected>, expectedItems: number, mismatches: string[]): void {
  const items = invoices.reduce((a, i) => a + i.items.length, 0);
  if (invoices.length !== seeds.length) mismatches.push(`${label}: expected ${seeds.length} invoices, got ${invoices.length}`);
  if (items !== expectedItems) mismatches.push(`${label}: expected ${expectedItems} items, got ${items}`);
  for (const inv of invoices) {
    const sub = inv.items.reduce((a, i) => a + i.total_cents, 0);
    const tax = inv.items.reduce((a, i) => a + i.tax_cents, 0);
    if (sub !== inv.subtotal_cents || tax !== inv.tax_cents || inv.total_cents !== sub + tax) mismatches.push(`${label} ${inv.client_name}: totals ${inv.subtotal_cents}/${inv.tax_cents}/${inv.total_cents} ≠ Σ items ${sub}/${tax}`);
    const seeded = seeds[Number(inv.client_name.slice(-4))];
    const due = seeded?.paymentTerms === 'Net 15' ? '2026-12-16' : '2026-12-31'; // Net 30, or none → the tenant default (30)
    if (inv.due_date !== due) mismatches.push(`${label} ${inv.client_name}: due ${inv.due_date}, expected ${due}`);
    const e = expected.get(inv.client_name);
    if (!e) { mismatches.push(`${label} ${inv.client_name}: not a seeded client`); continue; }
    const got = inv.items.map((i) => BigInt(i.total_cents)).join(',');
    if (got !== e.amounts.join(',') || BigInt(inv.total_cents) !== e.total || BigInt(inv.tax_cents) !== e.tax) {
      mismatches.push(`${label} ${inv.client_name}: items ${got} total ${inv.total_cents} tax ${inv.tax_cents}; expected items ${e.amounts.join(',')} total ${e.total} tax ${e.tax}`);
    }
  }
}

/** The tables: counts, every stored invoice's totals against its stored items, the events, Σ totals. Returns Σ totals. */
async function checkStored(db: Kysely<DB>, tenant: string, label: string, expected: Map<string, Expected>, expectedItems: number, mismatches: string[]): Promise<string> {
  const { rows } = await sql<{ invoices: number; items: number; bad: number; events: number; total: string }>`
    select (select count(*) from invoices where tenant = ${tenant})::int as invoices,
           (select count(*) from invoice_items where tenant = ${tenant})::int as items,
           (select count(*) from invoices i where i.tenant = ${tenant} and (
              i.status <> 'draft' or not i.is_generated or i.invoice_number is not null or i.balance_cents <> i.total_cents
              or i.period_start <> ${PERIOD.start}::date or i.period_end <> ${PERIOD.end}::date
              or i.subtotal_cents <> (select coalesce(sum(x.total_cents), 0) from invoice_items x where x.tenant = i.tenant and x.invoice_id = i.invoice_id)
              or i.tax_cents <> (select coalesce(sum(x.tax_cents), 0) from invoice_items x where x.tenant = i.tenant and x.invoice_id = i.invoice_id)
              or i.total_cents <> i.subtotal_cents + i.tax_cents
              or exists (select 1 from invoice_items x where x.tenant = i.tenant and x.invoice_id = i.invoice_id and (x.source is null or x.contract_line_id is null))))::int as bad,
           (select count(*) from events where tenant = ${tenant} and event_type = 'invoice.created')::int as events,
           (select coalesce(sum(total_cents), 0)::text from invoices where tenant = ${tenant}) as total
  `.execute(db);
  const s = rows[0]!;
  const expectedTotal = [...expected.values()].reduce((a, e) => a + e.total, 0n);
  if (s.invoices !== expected.size) mismatches.push(`${label}: stored invoices ${s.invoices} ≠ ${expected.size}`);
  if (s.items !== expectedItems) mismatches.push(`${label}: stored items ${s.items} ≠ ${expectedItems}`);
  if (s.bad !== 0) mismatches.push(`${label}: ${s.bad} stored invoices whose totals differ from their items (or not generated drafts of the period)`);
  if (s.events !== expected.size) mismatches.push(`${label}: invoice.created events ${s.events} ≠ ${expected.size}`);
  if (BigInt(s.total) !== expectedTotal) mismatches.push(`${label}: Σ stored totals ${s.total} ≠ expected ${expectedTotal}`);
  return s.total;
}

async function main(): Promise<void> {
  await recreateDatabase(dbUrl);
  let database: Database | undefined;
  let app: App | undefined;
  const mismatches: string[] = [];
  try {
    database = await openPostgres(dbUrl.toString(), 10);
    const { db } = database;
    await migrateToLatest(db);
    const t = await createTenant(db, { name: 'Bench Billing', slug: 'bench-billing', adminEmail: 'bench@example.com' });
    const config = { ...loadConfig({ ...process.env, PSA_RATE_LIMIT_BURST: String(HUGE), PSA_RATE_LIMIT_PER_MINUTE: String(HUGE) }), logLevel: 'warn' };
    app = await buildApp({ config, database, logger: false });
    await app.ready();

    const seedStarted = performance.now();
    const rateId = (await api(app, t.api_key, 'POST', '/api/v1/tax-rates', { name: 'NYC sales tax', percentage: 8.875 })).tax_rate_id!;
    const typeRes = await app.inject({ method: 'GET', url: '/api/v1/service-types', headers: { 'x-api-key': t.api_key } });
    const typeId = (typeRes.json() as { data: { service_type_id: string }[] }).data[0]!.service_type_id;
    const storage = (await api(app, t.api_key, 'POST', '/api/v1/services', { service_name: 'Backup storage', custom_service_type_id: typeId, billing_method: 'usage', unit_of_measure: 'GB', default_rate: 10 })).service_id!;
    const support = (await api(app, t.api_key, 'POST', '/api/v1/services', { service_name: 'Remote support', custom_service_type_id: typeId, billing_method: 'hourly', unit_of_measure: 'hour', default_rate: 12_000 })).service_id!;
    const seeds = Array.from({ length: CLIENTS }, (_, i) => seedOf(i));
    const ids = await seed(db, { tenant: t.tenant_id, rateId, storage, support }, seeds);
    await sql`vacuum analyze`.execute(db);
    const seedMs = performance.now() - seedStarted;
    console.error(`bench:billing: seeded ${CLIENTS} clients × 3 lines in ${(seedMs / 1000).toFixed(1)} s`);

    const expected = new Map(seeds.map((s) => [s.name, expectedOf(s)]));
    const expectedItems = [...expected.values()].reduce((a, e) => a + e.amounts.length, 0);

    const body = { period_start: PERIOD.start, period_end: PERIOD.end, issue_date: '2026-12-01' };
    const dry = await generate(app, t.api_key, { ...body, dry_run: true });
    if (dry.statusCode !== 200 || !dry.data) throw new Error(`dry run: ${dry.statusCode} ${dry.body}`);
    check(dry.data.invoices, 'dry run', seeds, expected, expectedItems, mismatches);

    // Interleaved rounds: baseline, then the generation; the round's invoices are removed (untimed) before the next.
    const rounds: { round: number; generate_ms: number; baseline_ms: number; invoices: number; items: number }[] = [];
    let total = '0';
    for (let round = 1; round <= ROUNDS; round++) {
      const baselineMs = await baseline(db, ids, CLIENTS, expectedItems);
      const real = await generate(app, t.api_key, body);
      if (real.statusCode !== 201 || !real.data) throw new Error(`generation: ${real.statusCode} ${real.body}`);
      const items = real.data.invoices.reduce((a, i) => a + i.items.length, 0);
      rounds.push({ round, generate_ms: real.ms, baseline_ms: baselineMs, invoices: real.data.invoices.length, items });
      if (real.data.skipped.length !== 0) mismatches.push(`round ${round}: expected nothing skipped, got ${real.data.skipped.length}`);
      check(real.data.invoices, `round ${round}`, seeds, expected, expectedItems, mismatches);
      total = await checkStored(db, ids.tenant, `round ${round}`, expected, expectedItems, mismatches);
      if (round < ROUNDS) {
        await db.deleteFrom('invoices').where('tenant', '=', ids.tenant).where('is_generated', '=', true).execute();
        await db.deleteFrom('events').where('tenant', '=', ids.tenant).where('event_type', '=', 'invoice.created').execute();
        await sql`vacuum analyze invoices, invoice_items, events`.execute(db);
      }
    }
    const repeat = await generate(app, t.api_key, body);
    const repeatOk = repeat.statusCode === 201 && repeat.data?.invoices.length === 0 && repeat.data.skipped.length === CLIENTS && repeat.data.skipped.every((x) => x.reason === 'already_generated');
    if (!repeatOk) mismatches.push(`repeat run: ${repeat.statusCode}, ${repeat.data?.invoices.length} invoices, ${repeat.data?.skipped.length} skipped ${repeat.body}`);

    // --- report ---------------------------------------------------------------------------------------
    const perSecond = (n: number, ms: number) => Math.round((n * 1000) / ms);
    const median = (xs: number[]) => { const v = [...xs].sort((a, b) => a - b); return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2; };
    const table = rounds.map((r) => ({
      round: r.round,
      generate_ms: Math.round(r.generate_ms),
      invoices_per_s: perSecond(r.invoices, r.generate_ms),
      items_per_s: perSecond(r.items, r.generate_ms),
      baseline_ms: Math.round(r.baseline_ms),
      baseline_invoices_per_s: perSecond(CLIENTS, r.baseline_ms),
      ratio: Number((r.baseline_ms / r.generate_ms).toFixed(2)),
    }));
    console.table(table);
    const summary = {
      generate_ms: Math.round(median(rounds.map((r) => r.generate_ms))),
      invoices_per_s: median(table.map((r) => r.invoices_per_s)),
      items_per_s: median(table.map((r) => r.items_per_s)),
      baseline_ms: Math.round(median(rounds.map((r) => r.baseline_ms))),
      baseline_invoices_per_s: median(table.map((r) => r.baseline_invoices_per_s)),
      baseline_items_per_s: median(rounds.map((r) => perSecond(expectedItems, r.baseline_ms))),
      ratio_to_baseline: median(table.map((r) => r.ratio)),
      dry_run_ms: Math.round(dry.ms),
      repeat_ms: Math.round(repeat.ms),
    };
    const met = summary.invoices_per_s >= TARGET;
    console.log(`median of ${ROUNDS}: ${summary.invoices_per_s} invoices/s, ${summary.items_per_s} items/s (${summary.generate_ms} ms for ${CLIENTS} invoices, ${expectedItems} items)`);
    console.log(`baseline (plain bulk INSERT of the same rows): ${summary.baseline_invoices_per_s} invoices/s, ${summary.baseline_items_per_s} items/s (${summary.baseline_ms} ms); generation at ${summary.ratio_to_baseline}× the baseline`);
    console.log(`dry run (first call, no writes): ${summary.dry_run_ms} ms; repeat (every group already generated): ${summary.repeat_ms} ms`);
    console.log(`target: ≥ ${TARGET} invoices/s → ${summary.invoices_per_s} — ${met ? 'MET' : 'NOT MET'}`);
    console.log(mismatches.length ? `verification: ${mismatches.length} MISMATCHES` : `verification: ${CLIENTS} invoices, ${expectedItems} items, Σ ${total} cents in every round — all match`);

    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/billing-${new Date().toISOString().replace(/:/g, '-')}.json`;
    writeFileSync(file, `${JSON.stringify({
      settings: { clients: CLIENTS, rounds: ROUNDS, lines_per_client: 3, period: PERIOD, node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, seed_ms: Math.round(seedMs) },
      summary,
      rounds: table,
      target: { invoices_per_s: TARGET, met },
      verification: { invoices: CLIENTS, items: expectedItems, total_cents: total, mismatches: mismatches.slice(0, 50), mismatch_count: mismatches.length },
    }, null, 2)}\n`);
    console.error(`bench:billing: wrote ${file}`);
    if (mismatches.length) {
      for (const m of mismatches.slice(0, 20)) console.error(`  mismatch: ${m}`);
      process.exitCode = 1;
    }
  } finally {
    await app?.close().catch(() => undefined);
    await database?.close().catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  console.error('bench:billing failed:', err instanceof BenchError ? err.message : err);
  process.exit(1);
});
