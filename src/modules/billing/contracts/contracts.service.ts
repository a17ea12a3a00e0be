import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import type { ContractStatus } from '../../../platform/db/schema.billing.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { conflict, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { emptyPage, listPage } from '../../../platform/http/list.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { syncSearch } from '../../../platform/search/writer.ts';
import { iso, utcDate } from '../../../platform/time.ts';
import { billingProfileForContract, canSeeClient, portalClientId } from '../../clients/index.ts';
import { clientOfBody } from '../billing.clients.ts';
import { emitBillingEvent } from '../billing.events.ts';
import { currencyCode } from '../money.ts';
import {
  contractList,
  deleteAttachment,
  deleteContract,
  findAttachment,
  findContract,
  insertAttachment,
  insertClientContract,
  insertContract,
  lineById,
  linesOfContracts,
  nextDisplayOrder,
  updateClientContract,
  updateContract,
  type AttachedLineRow,
  type ContractRow,
} from './contracts.repo.ts';
import type { AttachLineBody, Contract, CreateContractBody, ListContractsQuery, UpdateContractBody } from './contracts.schemas.ts';

/** The moves a contract's status may make; terminated and expired are final. */
const NEXT_STATUSES: Record<ContractStatus, readonly ContractStatus[]> = {
  draft: ['active', 'terminated'],
  active: ['terminated', 'expired'],
  terminated: [],
  expired: [],
};

export function toContract(r: ContractRow, lines: readonly AttachedLineRow[]): Contract {
  return {
    contract_id: r.contract_id,
    client_id: r.client_id,
    client_name: r.client_name,
    contract_name: r.contract_name,
    contract_description: r.contract_description,
    start_date: r.start_date,
    end_date: r.end_date,
    billing_frequency: r.billing_frequency,
    status: r.status,
    currency_code: r.currency_code,
    client_contract: {
      client_contract_id: r.client_contract_id,
      billing_profile_id: r.billing_profile_id,
      billing_profile_name: r.billing_profile_name,
      start_date: r.cc_start_date,
      end_date: r.cc_end_date,
      is_active: r.cc_is_active,
    },
    contract_lines: lines.map((l) => ({
      contract_line_id: l.contract_line_id,
      contract_line_name: l.contract_line_name,
      contract_line_type: l.contract_line_type,
      billing_frequency: l.billing_frequency,
      is_active: l.is_active,
      custom_rate_cents: l.custom_rate_cents,
      display_order: l.display_order,
    })),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

function assertDates(start: string, end: string | null, field: 'start_date' | 'end_date'): void {
  if (end !== null && end < start) {
    throw validation(`body.${field}`, field === 'end_date' ? `must not precede start_date (${start})` : `must not be after end_date (${end})`);
  }
}

/** The contract, or 404 (a client-portal actor sees only their own client's contracts). */
async function row(ex: Executor, actor: Actor, id: string, lock = false): Promise<ContractRow> {
  const found = await findContract(ex, actor.tenant, id, lock);
  if (!found || !canSeeClient(actor, found.client_id)) throw notFound('Contract', id);
  return found;
}

async function view(ex: Executor, actor: Actor, id: string, lock = false): Promise<Contract> {
  const found = await row(ex, actor, id, lock);
  return toContract(found, (await linesOfContracts(ex, actor.tenant, [id])).get(id) ?? []);
}

async function written(trx: Transaction<DB>, actor: Actor, id: string, clientContractId: string): Promise<Contract> {
  await syncSearch(trx, actor.tenant, 'contract', [id]);
  await syncSearch(trx, actor.tenant, 'client_contract', [clientContractId]);
  return view(trx, actor, id);
}

/** A contract whose lines may change: not final. */
function assertOpen(c: Contract): void {
  if (NEXT_STATUSES[c.status].length === 0) throw unprocessable(`Contract '${c.contract_name}' is ${c.status}; its lines can no longer change`, { status: c.status });
}

/** Creates the contract and its assignment to the client's billing profile inside the caller's transaction (POST /contracts, quote conversion). */
export async function createContractIn(trx: Transaction<DB>, actor: Actor, body: CreateContractBody): Promise<Contract> {
  const client = await clientOfBody(trx, actor, body.client_id, 'write');
  const profile = await billingProfileForContract(trx, actor.tenant, client.client_id, body.billing_profile_id);
  if (!profile) throw validation('body.billing_profile_id', `no billing profile '${body.billing_profile_id ?? '(default)'}' of client '${client.client_id}'`);
  const start = body.start_date ?? utcDate();
  const end = body.end_date ?? null;
  assertDates(start, end, 'end_date');
  const status = (body.status as ContractStatus | undefined) ?? 'draft';
  const id = newId();
  const clientContractId = newId();
  await insertContract(trx, {
    tenant: actor.tenant,
    contract_id: id,
    client_id: client.client_id,
    contract_name: body.contract_name === undefined ? `${client.client_name} contract` : requiredText(body.contract_name, 'body.contract_name'),
    contract_description: optionalText(body.contract_description) ?? null,
    start_date: start,
    end_date: end,
    billing_frequency: (body.billing_frequency as Contract['billing_frequency'] | undefined) ?? client.billing_cycle,
    status,
    currency_code: body.currency_code ? currencyCode(body.currency_code, 'body.currency_code') : client.default_currency_code,
  });
  await insertClientContract(trx, {
    tenant: actor.tenant,
    client_contract_id: clientContractId,
    contract_id: id,
    client_id: client.client_id,
    billing_profile_id: profile.billing_profile_id,
    start_date: start,
    end_date: end,
    is_active: status === 'active',
  });
  await emitBillingEvent(trx, actor.tenant, 'contract', 'created', id, { client_id: client.client_id, status });
  await emitBillingEvent(trx, actor.tenant, 'client_contract', 'created', clientContractId, { contract_id: id, client_id: client.client_id, billing_profile_id: profile.billing_profile_id });
  return written(trx, actor, id, clientContractId);
}

/** Attaches a line in the contract's currency inside the caller's transaction; attaching it twice is a 409. */
export async function attachLineIn(trx: Transaction<DB>, actor: Actor, id: string, body: AttachLineBody): Promise<Contract> {
  const contract = await view(trx, actor, id, true);
  assertOpen(contract);
  const line = await lineById(trx, actor.tenant, body.contract_line_id);
  if (!line) throw validation('body.contract_line_id', `no contract line '${body.contract_line_id}' in this tenant`);
  if (await findAttachment(trx, actor.tenant, id, line.contract_line_id)) {
    throw conflict(`Contract line '${line.contract_line_name}' is already attached to contract '${contract.contract_name}'`, { contract_line_id: line.contract_line_id });
  }
  if (!line.is_active) throw unprocessable(`Contract line '${line.contract_line_name}' is inactive; activate it before attaching it`, { contract_line_id: line.contract_line_id });
  if (line.currency_code !== contract.currency_code) {
    throw unprocessable(`Contract line '${line.contract_line_name}' is priced in ${line.currency_code} and the contract in ${contract.currency_code}; a contract's lines share its currency`, { contract_line_id: line.contract_line_id });
  }
  await insertAttachment(trx, {
    tenant: actor.tenant,
    contract_id: id,
    contract_line_id: line.contract_line_id,
    custom_rate_cents: body.custom_rate_cents ?? null,
    display_order: body.display_order ?? (await nextDisplayOrder(trx, actor.tenant, id)),
  });
  await updateContract(trx, actor.tenant, id, { updated_at: new Date() });
  await emitBillingEvent(trx, actor.tenant, 'contract', 'line_attached', id, { contract_line_id: line.contract_line_id });
  return view(trx, actor, id);
}

/** Contracts: what a client agreed to, assigned to one of its billing profiles, with the lines attached. */
export function createContractsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  return {
    list(actor: Actor, query: ListContractsQuery) {
      const only = portalClientId(actor);
      if (only !== undefined && query.client_id !== undefined && query.client_id !== only) return emptyPage(query);
      const list = contractList(db, actor.tenant, {
        search: query.search?.trim() || undefined,
        clientId: query.client_id,
        onlyClientId: only,
        status: query.status,
        frequency: query.billing_frequency,
        currency: query.currency_code?.toUpperCase(),
        activeOn: query.active_on,
      });
      return listPage(query, list, async (rows) => {
        const lines = await linesOfContracts(db, actor.tenant, rows.map((r) => r.contract_id));
        return rows.map((r) => toContract(r, lines.get(r.contract_id) ?? []));
      });
    },

    get: (actor: Actor, id: string): Promise<Contract> => view(db, actor, id),

    /** The contract and its assignment to the client's billing profile, in one transaction. */
    async create(actor: Actor, body: CreateContractBody): Promise<Contract> {
      return withTransaction(db, (trx) => createContractIn(trx, actor, body));
    },

    /** Partial update; the assignment follows the contract's dates and status (active while the contract is). */
    async update(actor: Actor, id: string, body: UpdateContractBody, ifMatch?: string): Promise<Contract> {
      return withTransaction(db, async (trx) => {
        const current = await view(trx, actor, id, true);
        assertIfMatch(ifMatch, current);
        const status = (body.status as ContractStatus | undefined) ?? current.status;
        if (status !== current.status && !NEXT_STATUSES[current.status].includes(status)) {
          const allowed = NEXT_STATUSES[current.status];
          throw unprocessable(`A ${current.status} contract cannot become ${status}${allowed.length ? ` (it may become ${allowed.join(' or ')})` : ` (${current.status} is final)`}`, { status: current.status });
        }
        const start = body.start_date ?? current.start_date;
        const end = body.end_date === undefined ? current.end_date : body.end_date;
        assertDates(start, end, body.end_date === undefined ? 'start_date' : 'end_date');
        const currency = body.currency_code === undefined ? current.currency_code : currencyCode(body.currency_code, 'body.currency_code');
        if (currency !== current.currency_code && current.contract_lines.length > 0) {
          throw conflict(`Contract '${current.contract_name}' has ${current.contract_lines.length} line(s) in ${current.currency_code}; detach them before changing its currency`, { contract_line_count: current.contract_lines.length });
        }
        let profileId = current.client_contract.billing_profile_id;
        if (body.billing_profile_id !== undefined && body.billing_profile_id !== profileId) {
          const profile = await billingProfileForContract(trx, actor.tenant, current.client_id, body.billing_profile_id);
          if (!profile) throw validation('body.billing_profile_id', `no billing profile '${body.billing_profile_id}' of client '${current.client_id}'`);
          profileId = profile.billing_profile_id;
        }
        const now = new Date();
        await updateContract(trx, actor.tenant, id, {
          contract_name: body.contract_name === undefined ? undefined : requiredText(body.contract_name, 'body.contract_name'),
          contract_description: optionalText(body.contract_description),
          start_date: start,
          end_date: end,
          billing_frequency: body.billing_frequency,
          status,
          currency_code: currency,
          updated_at: now,
        });
        const cc = current.client_contract;
        // The assignment follows the dates the request changes; an edit that leaves them alone keeps the
        // assignment's own (a merge may have moved its start to the cutover).
        const assignment = {
          start_date: body.start_date ?? cc.start_date,
          end_date: body.end_date === undefined ? cc.end_date : end,
          is_active: status === 'active',
          billing_profile_id: profileId,
        };
        if (assignment.end_date !== null && assignment.end_date < assignment.start_date) {
          throw unprocessable(`Contract '${current.contract_name}' bills under its client from ${assignment.start_date} (a merge cutover); end_date must not be before that`, { assignment_start_date: assignment.start_date });
        }
        const assignmentChanged = (Object.keys(assignment) as (keyof typeof assignment)[]).filter((k) => assignment[k] !== cc[k]);
        if (assignmentChanged.length > 0) {
          await updateClientContract(trx, actor.tenant, cc.client_contract_id, { ...assignment, updated_at: now });
          await emitBillingEvent(trx, actor.tenant, 'client_contract', 'updated', cc.client_contract_id, { contract_id: id, changed_fields: assignmentChanged.sort() });
        }
        await emitBillingEvent(trx, actor.tenant, 'contract', 'updated', id, { changed_fields: Object.keys(body).sort(), status });
        return written(trx, actor, id, cc.client_contract_id);
      });
    },

    /** An active contract stays (409: terminate it first); its assignment and attachments go with it. */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const current = await view(trx, actor, id, true);
        assertIfMatch(ifMatch, current);
        if (current.status === 'active') throw conflict(`Contract '${current.contract_name}' is active; terminate it (status: terminated) before deleting it`, { status: current.status });
        await deleteContract(trx, actor.tenant, id);
        await emitBillingEvent(trx, actor.tenant, 'contract', 'deleted', id, { client_id: current.client_id });
        await syncSearch(trx, actor.tenant, 'contract', [id]);
        await syncSearch(trx, actor.tenant, 'client_contract', [current.client_contract.client_contract_id]);
      });
    },

    /** Attaches a line in the contract's currency; attaching it twice is a 409. */
    async attachLine(actor: Actor, id: string, body: AttachLineBody): Promise<Contract> {
      return withTransaction(db, (trx) => attachLineIn(trx, actor, id, body));
    },

    /** Detaching a line that is not attached is a 404. */
    async detachLine(actor: Actor, id: string, lineId: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const contract = await view(trx, actor, id, true);
        assertOpen(contract);
        if (!(await findAttachment(trx, actor.tenant, id, lineId))) throw notFound('Contract line attached to this contract', lineId);
        await deleteAttachment(trx, actor.tenant, id, lineId);
        await updateContract(trx, actor.tenant, id, { updated_at: new Date() });
        await emitBillingEvent(trx, actor.tenant, 'contract', 'line_detached', id, { contract_line_id: lineId });
      });
    },
  };
}

export type ContractsService = ReturnType<typeof createContractsService>;
