import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { ContractLineType } from '../../../platform/db/schema.billing.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { listPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import { portalClientId } from '../../clients/index.ts';
import { emitBillingEvent } from '../billing.events.ts';
import { findCatalogItem } from '../catalog/catalog.repo.ts';
import { currencyCode, tenantCurrency } from '../money.ts';
import { checkLineConfig } from './lines.config.ts';
import {
  deleteLine,
  deleteLineService,
  findLine,
  findLineService,
  insertLine,
  insertLineService,
  lineList,
  lineServesClient,
  servicesOfLines,
  updateLine,
  updateLineService,
  type LineRow,
  type LineServiceRow,
} from './lines.repo.ts';
import type {
  AddLineServiceBody,
  ContractLine,
  CreateContractLineBody,
  LineService,
  ListContractLinesQuery,
  UpdateContractLineBody,
  UpdateLineServiceBody,
} from './lines.schemas.ts';

const toLineService = (r: LineServiceRow): LineService => ({
  service_id: r.service_id,
  service_name: r.service_name,
  item_kind: r.item_kind,
  billing_method: r.billing_method,
  quantity: r.quantity,
  custom_rate_cents: r.custom_rate_cents,
  default_rate: r.default_rate,
  currency_code: r.currency_code,
});

export function toContractLine(r: LineRow, services: readonly LineServiceRow[]): ContractLine {
  return {
    contract_line_id: r.contract_line_id,
    contract_line_name: r.contract_line_name,
    description: r.description,
    contract_line_type: r.contract_line_type,
    billing_frequency: r.billing_frequency,
    currency_code: r.currency_code,
    config: r.config,
    is_active: r.is_active,
    services: services.map(toLineService),
    contract_count: Number(r.contract_count),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/**
 * Which catalogue items a line of each type may carry: time-billed lines take hourly services, usage
 * lines take items sold by quantity, and a fixed line may bundle anything.
 */
const METHODS_FOR: Record<ContractLineType, readonly string[]> = {
  fixed: ['fixed', 'hourly', 'usage'],
  hourly: ['hourly'],
  bucket: ['hourly'],
  usage: ['usage'],
};

/** The line, or 404; a client-portal actor sees only lines on their own client's contracts. */
async function row(ex: Executor, actor: Actor, id: string, lock = false): Promise<LineRow> {
  const line = await findLine(ex, actor.tenant, id, lock);
  const only = portalClientId(actor);
  if (!line || (only !== undefined && !(await lineServesClient(ex, actor.tenant, id, only)))) throw notFound('Contract line', id);
  return line;
}

async function view(ex: Executor, actor: Actor, id: string, lock = false): Promise<ContractLine> {
  const line = await row(ex, actor, id, lock);
  return toContractLine(line, (await servicesOfLines(ex, actor.tenant, [id])).get(id) ?? []);
}

async function touched(trx: Transaction<DB>, actor: Actor, id: string, change: 'service_added' | 'service_updated' | 'service_removed', serviceId: string): Promise<void> {
  await updateLine(trx, actor.tenant, id, { updated_at: new Date() });
  await emitBillingEvent(trx, actor.tenant, 'contract_line', change, id, { service_id: serviceId });
}

/** Creates a line inside the caller's transaction (POST /contract-lines, quote conversion). */
export async function createContractLineIn(trx: Transaction<DB>, actor: Actor, body: CreateContractLineBody): Promise<ContractLine> {
  const name = requiredText(body.contract_line_name, 'body.contract_line_name');
  const config = checkLineConfig(body.contract_line_type, body.config);
  const currency = body.currency_code ? currencyCode(body.currency_code, 'body.currency_code') : await tenantCurrency(trx, actor.tenant);
  const id = newId();
  await insertLine(trx, {
    tenant: actor.tenant,
    contract_line_id: id,
    contract_line_name: name,
    description: optionalText(body.description) ?? null,
    contract_line_type: body.contract_line_type,
    billing_frequency: body.billing_frequency,
    currency_code: currency,
    config: JSON.stringify(config),
    is_active: body.is_active ?? true,
  });
  await emitBillingEvent(trx, actor.tenant, 'contract_line', 'created', id, { contract_line_type: body.contract_line_type });
  return view(trx, actor, id);
}

/** Adds a catalogue item to a line inside the caller's transaction: it must exist in the tenant, be active and suit the line type; twice is a 409. */
export async function addLineServiceIn(trx: Transaction<DB>, actor: Actor, id: string, body: AddLineServiceBody): Promise<LineService> {
  const line = await row(trx, actor, id, true);
  const item = await findCatalogItem(trx, actor.tenant, body.service_id);
  if (!item) throw validation('body.service_id', `no service or product '${body.service_id}' in this tenant`);
  if (!item.is_active) throw unprocessable(`'${item.service_name}' is inactive; activate it before adding it to a line`, { service_id: item.service_id });
  if (!METHODS_FOR[line.contract_line_type].includes(item.billing_method)) {
    throw unprocessable(`A ${line.contract_line_type} line takes items billed ${METHODS_FOR[line.contract_line_type].join(' or ')}; '${item.service_name}' is billed ${item.billing_method}`, { service_id: item.service_id });
  }
  if (await findLineService(trx, actor.tenant, id, body.service_id)) {
    throw conflict(`'${item.service_name}' is already on contract line '${line.contract_line_name}'; update its quantity or rate instead`, { service_id: item.service_id });
  }
  await insertLineService(trx, { tenant: actor.tenant, contract_line_id: id, service_id: body.service_id, quantity: body.quantity ?? 1, custom_rate_cents: body.custom_rate_cents ?? null });
  await touched(trx, actor, id, 'service_added', body.service_id);
  return toLineService((await servicesOfLines(trx, actor.tenant, [id])).get(id)!.find((s) => s.service_id === body.service_id)!);
}

/** Contract lines: reusable price plans (fixed, hourly, usage, bucket) with their services. */
export function createContractLinesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  /** Every service already on the line must suit the (new) line type. */
  async function assertServicesFit(ex: Executor, tenant: string, id: string, type: ContractLineType): Promise<void> {
    const misfit = ((await servicesOfLines(ex, tenant, [id])).get(id) ?? []).find((s) => !METHODS_FOR[type].includes(s.billing_method));
    if (misfit) {
      throw unprocessable(`A ${type} line cannot carry '${misfit.service_name}' (billed ${misfit.billing_method}); remove the service first`, { service_id: misfit.service_id });
    }
  }

  return {
    list(actor: Actor, query: ListContractLinesQuery) {
      const only = portalClientId(actor);
      const list = lineList(db, actor.tenant, {
        search: query.search?.trim() || undefined,
        type: query.contract_line_type,
        frequency: query.billing_frequency,
        currency: query.currency_code?.toUpperCase(),
        isActive: query.is_active,
        contractId: query.contract_id,
        onlyClientId: only,
      });
      return listPage(query, list, async (rows) => {
        const services = await servicesOfLines(db, actor.tenant, rows.map((r) => r.contract_line_id));
        return rows.map((r) => toContractLine(r, services.get(r.contract_line_id) ?? []));
      });
    },

    get: (actor: Actor, id: string): Promise<ContractLine> => view(db, actor, id),

    async create(actor: Actor, body: CreateContractLineBody): Promise<ContractLine> {
      return withTransaction(db, (trx) => createContractLineIn(trx, actor, body));
    },

    /** A new type replaces the settings (config required); the currency is fixed once a contract uses the line. */
    async update(actor: Actor, id: string, body: UpdateContractLineBody, ifMatch?: string): Promise<ContractLine> {
      return withTransaction(db, async (trx) => {
        const current = await view(trx, actor, id, true);
        assertIfMatch(ifMatch, current);
        const type = body.contract_line_type ?? current.contract_line_type;
        if (type !== current.contract_line_type) {
          if (body.config === undefined) throw validation('body.config', `is required when contract_line_type changes (to ${type})`);
          await assertServicesFit(trx, actor.tenant, id, type);
        }
        const config = body.config === undefined ? undefined : checkLineConfig(type, body.config);
        const currency = body.currency_code === undefined ? undefined : currencyCode(body.currency_code, 'body.currency_code');
        if (currency !== undefined && currency !== current.currency_code && current.contract_count > 0) {
          throw conflict(`Contract line '${current.contract_line_name}' is attached to ${current.contract_count} contract(s) in ${current.currency_code}; detach it before changing its currency`, { contract_count: current.contract_count });
        }
        await updateLine(trx, actor.tenant, id, {
          contract_line_name: body.contract_line_name === undefined ? undefined : requiredText(body.contract_line_name, 'body.contract_line_name'),
          contract_line_type: body.contract_line_type,
          billing_frequency: body.billing_frequency,
          currency_code: currency,
          description: optionalText(body.description),
          is_active: body.is_active,
          config: config === undefined ? undefined : JSON.stringify(config),
          updated_at: new Date(),
        });
        await emitBillingEvent(trx, actor.tenant, 'contract_line', 'updated', id, { changed_fields: Object.keys(body).sort() });
        return view(trx, actor, id);
      });
    },

    /** A line attached to a contract stays (409: detach it, or deactivate it). */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await view(trx, actor, id, true);
        assertIfMatch(ifMatch, current);
        if (current.contract_count > 0) {
          throw conflict(`Contract line '${current.contract_line_name}' is attached to ${current.contract_count} contract(s); detach it first or deactivate it (is_active: false)`, { contract_count: current.contract_count });
        }
        await deleteLine(trx, actor.tenant, id);
        await emitBillingEvent(trx, actor.tenant, 'contract_line', 'deleted', id);
      });
    },

    async listServices(actor: Actor, id: string): Promise<LineService[]> {
      await row(db, actor, id);
      return ((await servicesOfLines(db, actor.tenant, [id])).get(id) ?? []).map(toLineService);
    },

    /** A catalogue item on the line: it must exist in the tenant, be active and suit the line type; twice is a 409. */
    async addService(actor: Actor, id: string, body: AddLineServiceBody): Promise<LineService> {
      return withTransaction(db, (trx) => addLineServiceIn(trx, actor, id, body));
    },

    async updateService(actor: Actor, id: string, serviceId: string, body: UpdateLineServiceBody): Promise<LineService> {
      return withTransaction(db, async (trx) => {
        await row(trx, actor, id, true);
        if (!(await findLineService(trx, actor.tenant, id, serviceId))) throw notFound('Service on this contract line', serviceId);
        await updateLineService(trx, actor.tenant, id, serviceId, { quantity: body.quantity, custom_rate_cents: body.custom_rate_cents, updated_at: new Date() });
        await touched(trx, actor, id, 'service_updated', serviceId);
        return toLineService((await servicesOfLines(trx, actor.tenant, [id])).get(id)!.find((s) => s.service_id === serviceId)!);
      });
    },

    async removeService(actor: Actor, id: string, serviceId: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        await row(trx, actor, id, true);
        if (!(await findLineService(trx, actor.tenant, id, serviceId))) throw notFound('Service on this contract line', serviceId);
        await deleteLineService(trx, actor.tenant, id, serviceId);
        await touched(trx, actor, id, 'service_removed', serviceId);
      });
    },
  };
}

export type ContractLinesService = ReturnType<typeof createContractLinesService>;
