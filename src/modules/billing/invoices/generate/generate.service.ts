import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../../platform/auth/context.ts';
import { withTransaction } from '../../../../platform/db/executor.ts';
import type { DB } from '../../../../platform/db/schema.ts';
import type { InvoiceItemsTable, InvoicesTable } from '../../../../platform/db/schema.billing.ts';
import { AppError, conflict, unprocessable, validation } from '../../../../platform/http/errors.ts';
import { newId } from '../../../../platform/ids.ts';
import { addDays, utcDate } from '../../../../platform/time.ts';
import { canSeeClient } from '../../../clients/index.ts';
import { clientOfBody } from '../../billing.clients.ts';
import { emitBillingEvents, type BillingEventRow } from '../../billing.events.ts';
import type { LineConfig } from '../../contract-lines/lines.config.ts';
import { paymentTermsDays, termsDays } from '../../settings/numbering.ts';
import { priceLines, type ClientTax, type PricedLine } from '../../tax/tax.lines.ts';
import { percentageOf, quantityOf, totalsOf } from '../../tax/tax.math.ts';
import { insertInvoiceItems, insertInvoices } from '../invoices.repo.ts';
import {
  activePart, bucketItems, fixedItem, inclusiveDays, previousPeriod, usageItems,
  type ItemDraft, type LineContext, type Period,
} from './generate.lines.ts';
import {
  assignmentLines, clientTaxSettings, findProfile, lockInvoiceGeneration, overlappingGenerated, profilesOfClient,
  servicesOfLines, usageSums, type AssignmentLineRow, type GeneratedInvoiceRow, type ProfileRow, type UsageWindow,
} from './generate.repo.ts';
import type { GenerateInvoicesBody, GeneratedInvoice, GenerationResult, Skipped } from './generate.schemas.ts';

/**
 * Draft invoices generated from contracts for one billing period: `POST /invoices/generate`.
 *
 * What is billed. Each active assignment (client_contracts.is_active, contract status 'active') that
 * overlaps the period bills the active part of the period: [max(period start, assignment start, contract
 * start), min(period end, assignment end, contract end)]. Each active line attached to its contract adds
 * items (below). One draft invoice is made per billing profile and contract currency that has at least one
 * item; a group without items is reported in `skipped` (nothing_to_bill) in a targeted run (client_id or
 * billing_profile_id) and left out of a tenant-wide run, to keep that answer small. A targeted profile (or a
 * client's active profile) with no active assignment at all is reported with currency_code null.
 *
 * - fixed: the attachment's custom_rate_cents, else base_rate_cents, once per generated period: the
 *   requested period is taken to be one billing period of the contract. With enable_proration and an active
 *   part shorter than the period: roundHalfEven(rate × active days, period days), inclusive day counts.
 *   Quantity 1, unit price = that amount; "<line> (<start> – <end>)".
 * - usage: Σ usage_records.quantity_units of the client in the active part for the line's services, raised
 *   to minimum_usage (both zero → no item). Without tiers one item at custom_rate_cents ?? rate_cents; with
 *   tiers (sorted, [min, max)) one item per band the quantity reaches at the tier's rate, and quantities no
 *   tier covers (beyond the last bounded tier, or in a gap) at custom_rate_cents ?? rate_cents.
 *   "<line>: <qty> <unit>" (+ " (tier N)"). The item names the service when the line has exactly one.
 * - bucket: usage of the line's services in the active part, counted as hours (1.5 → 90 minutes). Included
 *   = total_minutes, plus with allow_rollover the unused minutes of the previous period of equal length
 *   (the days right before period_start; from its usage_records; only when the assignment and contract
 *   covered all of it; capped by rollover_cap_minutes; one period of carry, no chaining). Overage minutes =
 *   used − included when positive → one item of the overage in hours, to the ten-thousandth rounded UP, at
 *   custom_rate_cents ?? overage_rate_cents. included/rollover/used/overage minutes are in `source`.
 * - hourly: billed from time entries, which this API does not have yet: never an item; reported in
 *   `skipped` with its contract_line_id in targeted runs.
 *
 * Every item's `source` holds { line_type, client_contract_id, period_start, period_end (the active part),
 * …type specifics }; items carry contract_id and contract_line_id.
 *
 * Tax: the items of each client are priced by `priceLines` with the client's settings (its default rate,
 * zero when exempt; no settings → untaxed). Invoice totals are `totalsOf` the items, so they equal the sum
 * of the items exactly. The invoice: status draft, no number, is_generated, the requested period, the issue
 * date (default today UTC), due = issue + the client's payment terms in days (else the tenant's default),
 * amount paid and credited 0, balance = total, created_by the caller.
 *
 * Once per period: a generated, non-void invoice of the same billing profile and currency whose period
 * overlaps the requested one makes the group a conflict. A targeted run answers 409 naming that invoice and
 * saves nothing; a tenant-wide run skips the group (already_generated, with the invoice) and generates the
 * rest. Generations of a tenant are serialised by an advisory transaction lock; the partial unique index
 * invoices_generated_period_uq backs it up. dry_run computes the same answer (conflicts included) and
 * writes nothing, emits nothing.
 *
 * Everything runs in one transaction, with a fixed handful of set-based statements whatever the number of
 * clients: the assignments with their lines, the lines' services, the usage sums (grouped in SQL), the
 * clients' tax settings, the overlapping invoices, the tax rates (one per distinct client tax setting,
 * inside priceLines), the tenant's default terms when needed; then bulk inserts of invoices, items and the
 * `invoice.created` events.
 */

interface LineWork {
  ctx: LineContext;
  type: 'fixed' | 'usage' | 'bucket';
  config: LineConfig;
  /** The usage window to sum (usage, bucket); -1 for fixed. */
  window: number;
  /** bucket with rollover: the previous period's usage window, when the assignment covered it. */
  previousWindow: number | null;
}

interface Group {
  client_id: string;
  client_name: string;
  payment_terms: string | null;
  billing_profile_id: string;
  billing_profile_name: string;
  currency_code: string;
  items: ItemDraft[];
  pending: LineWork[];
  hourly: { contract_line_id: string; name: string }[];
}

interface Target {
  clientId?: string;
  profileId?: string;
  /** Targeted runs: the profiles to report when they have no assignment in the period. */
  profiles: ProfileRow[];
}

const MAX_PERIOD_DAYS = 366;

const periodText = (p: Period) => `${p.start} – ${p.end}`;

function checkBody(body: GenerateInvoicesBody): Period {
  if (body.client_id !== undefined && body.billing_profile_id !== undefined) {
    throw validation('body.billing_profile_id', 'give client_id or billing_profile_id, not both (neither: the tenant-wide run)');
  }
  const period = { start: body.period_start, end: body.period_end };
  if (period.end < period.start) throw validation('body.period_end', 'must not be before period_start');
  if (inclusiveDays(period) > MAX_PERIOD_DAYS) throw validation('body.period_end', `the period may span at most ${MAX_PERIOD_DAYS} days`);
  return period;
}

export function createInvoiceGenerationService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  async function targetOf(trx: Transaction<DB>, actor: Actor, body: GenerateInvoicesBody, dryRun: boolean): Promise<Target> {
    if (body.client_id !== undefined) {
      const client = await clientOfBody(trx, actor, body.client_id, dryRun ? 'read' : 'write');
      const profiles = (await profilesOfClient(trx, actor.tenant, client.client_id)).filter((p) => p.is_active);
      return { clientId: client.client_id, profiles };
    }
    if (body.billing_profile_id !== undefined) {
      const profile = await findProfile(trx, actor.tenant, body.billing_profile_id);
      if (!profile || !canSeeClient(actor, profile.client_id)) throw validation('body.billing_profile_id', `no billing profile '${body.billing_profile_id}' in this tenant`);
      return { profileId: profile.billing_profile_id, profiles: [profile] };
    }
    return { profiles: [] };
  }

  /** Groups per (billing profile, currency), fixed items computed, usage/bucket lines waiting for their usage. */
  async function collect(trx: Transaction<DB>, tenant: string, period: Period, rows: AssignmentLineRow[], targeted: boolean): Promise<Group[]> {
    const groups = new Map<string, Group>();
    const lineIds = [...new Set(rows.map((r) => r.contract_line_id).filter((x): x is string => x !== null))];
    const services = await servicesOfLines(trx, tenant, lineIds);
    const windows: UsageWindow[] = [];
    const windowIndex = new Map<string, number>();
    const windowOf = (clientId: string, lineId: string, p: Period): number => {
      const key = `${clientId}|${lineId}|${p.start}|${p.end}`;
      let i = windowIndex.get(key);
      if (i === undefined) {
        i = windows.push({ client_id: clientId, contract_line_id: lineId, period: p }) - 1;
        windowIndex.set(key, i);
      }
      return i;
    };
    const previous = previousPeriod(period);

    for (const r of rows) {
      const assignment = { start: r.cc_start, end: r.cc_end };
      const contract = { start: r.contract_start, end: r.contract_end };
      const active = activePart(period, assignment, contract);
      if (!active) continue;
      const key = `${r.billing_profile_id}|${r.currency_code}`;
      let g = groups.get(key);
      if (!g) {
        g = {
          client_id: r.client_id, client_name: r.client_name, payment_terms: r.payment_terms, billing_profile_id: r.billing_profile_id,
          billing_profile_name: r.billing_profile_name, currency_code: r.currency_code, items: [], pending: [], hourly: [],
        };
        groups.set(key, g);
      }
      if (r.contract_line_id === null || r.config === null || r.contract_line_type === null) continue;
      const ctx: LineContext = {
        contract_id: r.contract_id,
        contract_line_id: r.contract_line_id,
        client_contract_id: r.client_contract_id,
        line_name: r.contract_line_name ?? '',
        custom_rate_cents: r.custom_rate_cents,
        service_ids: services.get(r.contract_line_id) ?? [],
        period,
        active,
      };
      switch (r.contract_line_type) {
        case 'fixed':
          // Computed with the others below, so the items keep the lines' order.
          g.pending.push({ ctx, type: 'fixed', config: r.config, window: -1, previousWindow: null });
          break;
        case 'usage':
          g.pending.push({ ctx, type: 'usage', config: r.config, window: windowOf(r.client_id, r.contract_line_id, active), previousWindow: null });
          break;
        case 'bucket': {
          const covered = r.config.allow_rollover === true && activePart(previous, assignment, contract);
          const whole = covered && covered.start === previous.start && covered.end === previous.end;
          g.pending.push({
            ctx, type: 'bucket', config: r.config, window: windowOf(r.client_id, r.contract_line_id, active),
            previousWindow: whole ? windowOf(r.client_id, r.contract_line_id, previous) : null,
          });
          break;
        }
        case 'hourly':
          if (targeted) g.hourly.push({ contract_line_id: r.contract_line_id, name: ctx.line_name });
          break;
      }
    }

    const sums = await usageSums(trx, tenant, windows);
    for (const g of groups.values()) {
      for (const w of g.pending) {
        if (w.type === 'fixed') g.items.push(fixedItem(w.ctx, w.config));
        else if (w.type === 'usage') g.items.push(...usageItems(w.ctx, w.config, sums[w.window]!));
        else g.items.push(...bucketItems(w.ctx, w.config, sums[w.window]!, w.previousWindow === null ? null : sums[w.previousWindow]!));
      }
      g.pending = [];
    }
    return [...groups.values()];
  }

  /** Prices every item with its client's tax settings: one priceLines call per distinct setting. */
  async function price(trx: Transaction<DB>, tenant: string, groups: Group[]): Promise<PricedLine[][]> {
    const settings = await clientTaxSettings(trx, tenant, [...new Set(groups.map((g) => g.client_id))]);
    const taxOf = (clientId: string): ClientTax => settings.get(clientId) ?? { is_tax_exempt: false, default_tax_rate_id: null };
    const batches = new Map<string, { tax: ClientTax; groups: number[] }>();
    groups.forEach((g, i) => {
      const tax = taxOf(g.client_id);
      const key = `${tax.is_tax_exempt}|${tax.default_tax_rate_id ?? ''}`;
      const batch = batches.get(key);
      if (batch) batch.groups.push(i);
      else batches.set(key, { tax, groups: [i] });
    });
    const priced: PricedLine[][] = groups.map(() => []);
    for (const batch of batches.values()) {
      const lines = batch.groups.flatMap((i) => groups[i]!.items.map((it) => ({ quantity_units: it.quantity_units, unit_price_cents: it.unit_price_cents })));
      let result: PricedLine[];
      try {
        result = await priceLines(trx, tenant, batch.tax, lines, 'items');
      } catch (err) {
        if (err instanceof AppError && err.code === 'UNPROCESSABLE') {
          const names = batch.groups.map((i) => groups[i]!.client_name);
          throw unprocessable(`${err.message.replace(/ on line \d+/, '')}: it is the default tax rate of ${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`, err.details);
        }
        throw err;
      }
      let at = 0;
      for (const i of batch.groups) {
        const n = groups[i]!.items.length;
        priced[i] = result.slice(at, at + n);
        at += n;
      }
    }
    return priced;
  }

  function conflictMessage(period: Period, existing: GeneratedInvoiceRow): string {
    return `The period ${periodText(period)} overlaps invoice ${existing.invoice_number ?? 'draft'} (${existing.invoice_id}) already generated for billing profile ${existing.billing_profile_name}`
      + ` in ${existing.currency_code} for ${existing.period_start} – ${existing.period_end}`;
  }

  async function run(trx: Transaction<DB>, actor: Actor, body: GenerateInvoicesBody, period: Period, dryRun: boolean): Promise<GenerationResult> {
    const tenant = actor.tenant;
    const issueDate = body.issue_date ?? utcDate();
    const target = await targetOf(trx, actor, body, dryRun);
    const targeted = target.clientId !== undefined || target.profileId !== undefined;
    const rows = await assignmentLines(trx, tenant, period, { clientId: target.clientId, profileId: target.profileId });
    const groups = await collect(trx, tenant, period, rows, targeted);

    const existing = await overlappingGenerated(trx, tenant, period, targeted ? [...new Set(groups.map((g) => g.billing_profile_id))] : undefined);
    const existingOf = new Map<string, GeneratedInvoiceRow>();
    for (const e of existing) if (!existingOf.has(`${e.billing_profile_id}|${e.currency_code}`)) existingOf.set(`${e.billing_profile_id}|${e.currency_code}`, e);

    const skipped: Skipped[] = [];
    const billable: Group[] = [];
    const skip = (g: Pick<Group, 'client_id' | 'billing_profile_id'>, currency: string | null, reason: Skipped['reason'], message: string, extra: Partial<Skipped> = {}) =>
      skipped.push({ client_id: g.client_id, billing_profile_id: g.billing_profile_id, currency_code: currency, reason, invoice_id: null, contract_line_id: null, message, ...extra });
    for (const g of groups) {
      const prior = existingOf.get(`${g.billing_profile_id}|${g.currency_code}`);
      if (prior) {
        if (targeted) throw conflict(conflictMessage(period, prior), { invoice_id: prior.invoice_id });
        skip(g, g.currency_code, 'already_generated', conflictMessage(period, prior), { invoice_id: prior.invoice_id });
        continue;
      }
      for (const h of g.hourly) {
        skip(g, g.currency_code, 'nothing_to_bill', `Hourly line '${h.name}' is billed from time entries, which are not recorded yet; it was not billed`, { contract_line_id: h.contract_line_id });
      }
      if (g.items.length > 0) billable.push(g);
      else if (targeted) skip(g, g.currency_code, 'nothing_to_bill', `Nothing to bill for billing profile ${g.billing_profile_name} in ${g.currency_code} for ${periodText(period)}`);
    }
    if (targeted) {
      const seen = new Set(groups.map((g) => g.billing_profile_id));
      for (const p of target.profiles) {
        if (!seen.has(p.billing_profile_id)) {
          skip(p, null, 'nothing_to_bill', `Billing profile ${p.billing_profile_name} has no active contract assignment in ${periodText(period)}`);
        }
      }
    }

    const priced = await price(trx, tenant, billable);
    let defaultDays: number | undefined;
    const invoiceRows: Insertable<InvoicesTable>[] = [];
    const itemRows: Insertable<InvoiceItemsTable>[] = [];
    const events: BillingEventRow[] = [];
    const invoices: GeneratedInvoice[] = [];
    for (const [gi, g] of billable.entries()) {
      let days = termsDays(g.payment_terms);
      if (days === undefined) days = defaultDays ??= await paymentTermsDays(trx, tenant, g.payment_terms);
      const lines = priced[gi]!;
      const totals = totalsOf(lines.map((l) => ({ amount_cents: l.total_cents, tax_cents: l.tax_cents })));
      const invoiceId = newId();
      const dueDate = addDays(issueDate, days);
      invoices.push({
        invoice_id: dryRun ? null : invoiceId,
        client_id: g.client_id,
        client_name: g.client_name,
        billing_profile_id: g.billing_profile_id,
        currency_code: g.currency_code,
        period_start: period.start,
        period_end: period.end,
        issue_date: issueDate,
        due_date: dueDate,
        ...totals,
        items: g.items.map((it, i) => ({
          description: it.description,
          quantity: quantityOf(it.quantity_units),
          unit_price_cents: it.unit_price_cents,
          total_cents: lines[i]!.total_cents,
          tax_cents: lines[i]!.tax_cents,
          tax_rate_id: lines[i]!.tax_rate_id,
          tax_percentage: percentageOf(lines[i]!.tax_percentage_thousandths),
          service_id: it.service_id,
          contract_id: it.contract_id,
          contract_line_id: it.contract_line_id,
          source: it.source as GeneratedInvoice['items'][number]['source'],
        })),
      });
      if (dryRun) continue;
      // Columns left out take their defaults: no number (a draft), no po_number or lifecycle stamps, created_at and
      // updated_at = now() (the transaction's time). Fewer parameters keep the bulk insert near a plain INSERT.
      invoiceRows.push({
        tenant, invoice_id: invoiceId, client_id: g.client_id, billing_profile_id: g.billing_profile_id, status: 'draft',
        currency_code: g.currency_code, issue_date: issueDate, due_date: dueDate, period_start: period.start, period_end: period.end, is_generated: true,
        ...totals, amount_paid_cents: 0, credited_cents: 0, balance_cents: totals.total_cents, created_by: actor.userId,
      });
      g.items.forEach((it, i) => itemRows.push({
        tenant, item_id: newId(), invoice_id: invoiceId, display_order: i, description: it.description, quantity_units: it.quantity_units,
        unit_price_cents: it.unit_price_cents, service_id: it.service_id, tax_rate_id: lines[i]!.tax_rate_id,
        tax_percentage_thousandths: lines[i]!.tax_percentage_thousandths, total_cents: lines[i]!.total_cents, tax_cents: lines[i]!.tax_cents,
        contract_id: it.contract_id, contract_line_id: it.contract_line_id, source: JSON.stringify(it.source),
      }));
      events.push({
        id: invoiceId,
        extra: {
          client_id: g.client_id, billing_profile_id: g.billing_profile_id, currency_code: g.currency_code,
          total_cents: totals.total_cents, generated: true, period_start: period.start, period_end: period.end,
        },
      });
    }
    if (!dryRun) {
      await insertInvoices(trx, invoiceRows);
      await insertInvoiceItems(trx, itemRows);
      await emitBillingEvents(trx, tenant, 'invoice', 'created', events);
    }
    return { invoices, skipped };
  }

  return {
    /** The rules are in this file's header comment; 400 for a bad body, 409 for a targeted run that overlaps. */
    async generate(actor: Actor, body: GenerateInvoicesBody): Promise<GenerationResult> {
      const period = checkBody(body);
      const dryRun = body.dry_run === true;
      return withTransaction(db, async (trx) => {
        if (!dryRun) await lockInvoiceGeneration(trx, actor.tenant);
        return run(trx, actor, body, period, dryRun);
      });
    },
  };
}

export type InvoiceGenerationService = ReturnType<typeof createInvoiceGenerationService>;
