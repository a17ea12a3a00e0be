import { expect } from 'vitest';
import type { TestApp } from './harness.ts';
import { unique, type Api } from './factories.ts';
import { expectStatus } from './client-factories.ts';

/** Shared helpers for ticket suites (and other areas' tests that need tickets): records made through the API. */

export interface TicketJson {
  ticket_id: string;
  ticket_number: string;
  title: string;
  description: string | null;
  board_id: string;
  board_name: string;
  status_id: string;
  status_name: string;
  is_closed: boolean;
  priority_id: string;
  priority_name: string;
  category_id: string | null;
  category_name: string | null;
  subcategory_id: string | null;
  subcategory_name: string | null;
  client_id: string;
  client_name: string;
  contact_name_id: string | null;
  contact_name: string | null;
  contact_email: string | null;
  assigned_to: string | null;
  assigned_to_name: string | null;
  assigned_team_id: string | null;
  assigned_team_name: string | null;
  due_date: string | null;
  tags: string[];
  entered_by: string | null;
  entered_by_name: string | null;
  entered_at: string;
  updated_by: string | null;
  updated_at: string;
  closed_by: string | null;
  closed_at: string | null;
}

export interface StatusJson {
  status_id: string;
  board_id: string;
  name: string;
  is_closed: boolean;
  is_default: boolean;
  order_number: number;
}

export interface BoardJson {
  board_id: string;
  board_name: string;
  is_default: boolean;
  is_active: boolean;
}

export interface PriorityJson {
  priority_id: string;
  priority_name: string;
  order_number: number;
  is_default: boolean;
}

/** A ticket for the client, with the tenant's defaults unless `overrides` say otherwise. */
export async function makeTicket(api: Api, clientId: string, overrides: Record<string, unknown> = {}): Promise<TicketJson> {
  const res = await api.post('/api/v1/tickets', { title: unique('Ticket'), client_id: clientId, ...overrides });
  expectStatus(res, 201);
  return res.json().data as TicketJson;
}

/** The tenant's default board and its statuses by name (Open, In Progress, Closed for a new tenant). */
export async function defaultBoard(api: Api): Promise<{ board: BoardJson; statuses: Record<string, StatusJson> }> {
  const boards = await api.get('/api/v1/boards?limit=100');
  expectStatus(boards, 200);
  const board = (boards.json().data as BoardJson[]).find((b) => b.is_default)!;
  expect(board).toBeDefined();
  return { board, statuses: await statusesOf(api, board.board_id) };
}

export async function statusesOf(api: Api, boardId: string): Promise<Record<string, StatusJson>> {
  const res = await api.get(`/api/v1/boards/${boardId}/statuses?limit=100`);
  expectStatus(res, 200);
  return Object.fromEntries((res.json().data as StatusJson[]).map((s) => [s.name, s]));
}

/** The tenant's priorities by name (Low, Medium, High for a new tenant). */
export async function prioritiesOf(api: Api): Promise<Record<string, PriorityJson>> {
  const res = await api.get('/api/v1/priorities?limit=100');
  expectStatus(res, 200);
  return Object.fromEntries((res.json().data as PriorityJson[]).map((p) => [p.priority_name, p]));
}

export async function makeBoard(api: Api, body: Record<string, unknown> = {}): Promise<BoardJson & { statuses: Record<string, StatusJson> }> {
  const res = await api.post('/api/v1/boards', { board_name: unique('Board'), ...body });
  expectStatus(res, 201);
  const board = res.json().data as BoardJson;
  return { ...board, statuses: await statusesOf(api, board.board_id) };
}

export interface TicketEventRow {
  event_id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: { data: Record<string, unknown> & { comment?: Record<string, unknown> }; changes?: Record<string, { previous: unknown; new: unknown }> } & Record<string, unknown>;
}

/** The outbox rows of one ticket, oldest first (event ids are time-ordered). */
export async function ticketEvents(t: TestApp, tenant: string, ticketId: string): Promise<TicketEventRow[]> {
  const rows = await t.database.db
    .selectFrom('events')
    .select(['event_id', 'event_type', 'aggregate_type', 'aggregate_id', 'payload'])
    .where('tenant', '=', tenant)
    .where('aggregate_id', '=', ticketId)
    .orderBy('event_id', 'asc')
    .execute();
  return rows.map((r) => ({ ...r, payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as TicketEventRow['payload'] }));
}
