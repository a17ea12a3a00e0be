import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../../test/factories.ts';
import { anonymous, expectError, expectStatus, makeClient, randomId } from '../../../../test/client-factories.ts';
import { defaultBoard, makeBoard, makeTicket, statusesOf, type BoardJson, type StatusJson } from '../../../../test/ticket-factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

async function getBoard(api: Awaited<ReturnType<typeof makeTenant>>['admin'], id: string): Promise<BoardJson> {
  const res = await api.get(`/api/v1/boards/${id}`);
  expectStatus(res, 200);
  return res.json().data;
}

describe('boards', () => {
  it('creates a board with the standard statuses, Location and ETag; lists and gets it', async () => {
    const { admin } = await makeTenant(t);
    const res = await admin.post('/api/v1/boards', { board_name: '  Service Desk ', description: 'First line', display_order: 5 });
    expectStatus(res, 201);
    const board = res.json().data;
    expect(res.headers.location).toBe(`/api/v1/boards/${board.board_id}`);
    expect(res.headers.etag).toBeTruthy();
    expect(board).toMatchObject({ board_name: 'Service Desk', description: 'First line', is_default: false, is_active: true, display_order: 5 });
    expect(Object.values(await statusesOf(admin, board.board_id)).map((s) => [s.name, s.is_closed, s.is_default])).toEqual([
      ['Open', false, true], ['In Progress', false, false], ['Closed', true, false],
    ]);
    expect(await getBoard(admin, board.board_id)).toEqual(board);
    const list = await admin.get('/api/v1/boards');
    expect(list.json().data.map((b: BoardJson) => b.board_name)).toEqual(['General', 'Service Desk']);
    expect(list.json().pagination.total).toBe(2);
    expect((await admin.get('/api/v1/boards?search=desk')).json().data).toHaveLength(1);
  });

  it('creates a board with its own statuses; the first open one is the default unless one is flagged', async () => {
    const { admin } = await makeTenant(t);
    const a = await makeBoard(admin, { statuses: [{ name: 'Done', is_closed: true }, { name: 'New' }, { name: 'Doing' }] });
    expect(Object.values(a.statuses).map((s) => [s.name, s.is_default, s.order_number])).toEqual([['Done', false, 1], ['New', true, 2], ['Doing', false, 3]]);
    const b = await makeBoard(admin, { statuses: [{ name: 'New' }, { name: 'Triage', is_default: true }, { name: 'Done', is_closed: true }] });
    expect(b.statuses.Triage!.is_default).toBe(true);
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id, { board_id: b.board_id });
    expect(ticket.status_name).toBe('Triage');
  });

  it('refuses status lists without an open status, with a closed default, two defaults or a duplicate name', async () => {
    const { admin } = await makeTenant(t);
    const post = (statuses: unknown) => admin.post('/api/v1/boards', { board_name: 'X', statuses });
    expectError(await post([{ name: 'Done', is_closed: true }]), 422, 'UNPROCESSABLE');
    expectError(await post([{ name: 'Open' }, { name: 'Done', is_closed: true, is_default: true }]), 422, 'UNPROCESSABLE');
    expectError(await post([{ name: 'A', is_default: true }, { name: 'B', is_default: true }]), 400, 'VALIDATION_ERROR');
    const dup = await post([{ name: 'Open' }, { name: 'OPEN ' }]);
    expectError(dup, 400, 'VALIDATION_ERROR');
    expect(dup.json().error.details[0].path).toBe('body.statuses[1].name');
    expectError(await post([]), 400, 'VALIDATION_ERROR');
    expect((await admin.get('/api/v1/boards')).json().pagination.total).toBe(1);
  });

  it('answers 409 for a duplicate name (regardless of case) and 400 for bad input', async () => {
    const { admin } = await makeTenant(t);
    expectError(await admin.post('/api/v1/boards', { board_name: 'general' }), 409, 'CONFLICT');
    expectError(await admin.post('/api/v1/boards', { board_name: ' ' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/boards', { board_name: 'x'.repeat(101) }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/boards', { board_name: 'X', color: 'red' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/boards', { board_name: 'X', display_order: -1 }), 400, 'VALIDATION_ERROR');
    expectError(await admin.post('/api/v1/boards', { board_name: 'X', is_default: true, is_active: false }), 422, 'UNPROCESSABLE');
  });

  it('moves the default board with is_default and never leaves the tenant without one', async () => {
    const { admin } = await makeTenant(t);
    const { board: general } = await defaultBoard(admin);
    const desk = await makeBoard(admin, { board_name: 'Desk', is_default: true });
    expect(desk.is_default).toBe(true);
    expect((await getBoard(admin, general.board_id)).is_default).toBe(false);
    const client = await makeClient(admin);
    expect((await makeTicket(admin, client.client_id)).board_id).toBe(desk.board_id);

    const back = await admin.put(`/api/v1/boards/${general.board_id}`, { is_default: true });
    expectStatus(back, 200);
    expect(back.json().data.is_default).toBe(true);
    expect((await getBoard(admin, desk.board_id)).is_default).toBe(false);
    expectError(await admin.put(`/api/v1/boards/${general.board_id}`, { is_default: false }), 409, 'CONFLICT');
    expectError(await admin.put(`/api/v1/boards/${general.board_id}`, { is_active: false }), 409, 'CONFLICT');
    expectError(await admin.delete(`/api/v1/boards/${general.board_id}`), 409, 'CONFLICT');
    expectStatus(await admin.put(`/api/v1/boards/${desk.board_id}`, { is_active: false }), 200);
    expectError(await admin.put(`/api/v1/boards/${desk.board_id}`, { is_default: true }), 422, 'UNPROCESSABLE');
    const both = await admin.put(`/api/v1/boards/${desk.board_id}`, { is_default: true, is_active: true });
    expectStatus(both, 200);
    expect(both.json().data).toMatchObject({ is_default: true, is_active: true });
  });

  it('updates partially, changes nothing on a no-op, and honours If-Match', async () => {
    const { admin } = await makeTenant(t);
    const board = await makeBoard(admin, { board_name: 'Old' });
    const url = `/api/v1/boards/${board.board_id}`;
    const etag = String((await admin.get(url)).headers.etag);
    const same = await admin.put(url, { board_name: 'Old', display_order: 0 });
    expectStatus(same, 200);
    expect(same.headers.etag).toBe(etag);
    const res = await admin.put(url, { board_name: 'New', description: 'd' }, { 'if-match': etag });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ board_name: 'New', description: 'd' });
    expectError(await admin.put(url, { board_name: 'Newer' }, { 'if-match': etag }), 412, 'PRECONDITION_FAILED');
    expectError(await admin.put(url, { board_name: 'GENERAL' }), 409, 'CONFLICT');
    expectError(await admin.put(url, {}), 400, 'VALIDATION_ERROR');
  });

  it('deletes an unused board with its statuses; refuses while tickets or categories use it', async () => {
    const { tenant, admin } = await makeTenant(t);
    const used = await makeBoard(admin);
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id, { board_id: used.board_id });
    await admin.post('/api/v1/categories', { category_name: 'Scoped', board_id: used.board_id });
    const res = await admin.delete(`/api/v1/boards/${used.board_id}`);
    expectError(res, 409, 'CONFLICT');
    expect(res.json().error.details).toEqual({ tickets: 1, categories: 1 });
    expect(res.json().error.message).toMatch(/1 tickets, 1 categories/);
    expectStatus(await admin.delete(`/api/v1/tickets/${ticket.ticket_id}`), 204);

    const unused = await makeBoard(admin);
    const url = `/api/v1/boards/${unused.board_id}`;
    expectError(await admin.delete(url, { 'if-match': '"stale"' }), 412, 'PRECONDITION_FAILED');
    expectStatus(await admin.delete(url), 204);
    expectError(await admin.get(url), 404, 'NOT_FOUND');
    const left = await t.database.db.selectFrom('ticket_statuses').select('status_id').where('tenant', '=', tenant).where('board_id', '=', unused.board_id).execute();
    expect(left).toEqual([]);
  });

  it('reads need ticket:read, writes settings:update; unknown and foreign boards are 404', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const { board } = await defaultBoard(a.admin);
    const url = `/api/v1/boards/${board.board_id}`;
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    expectStatus(await tech.api.get(url), 200);
    expectStatus(await tech.api.get('/api/v1/boards'), 200);
    expectError(await tech.api.post('/api/v1/boards', { board_name: 'X' }), 403, 'FORBIDDEN');
    expectError(await tech.api.put(url, { board_name: 'X' }), 403, 'FORBIDDEN');
    const manager = await makeUser(t, a.tenant, { role: 'Manager' });
    const denied = await manager.api.delete(url);
    expectError(denied, 403, 'FORBIDDEN');
    expect(denied.json().error.details).toEqual({ required: ['settings:update'] });
    const noRole = await makeUser(t, a.tenant, {});
    expectError(await noRole.api.get('/api/v1/boards'), 403, 'FORBIDDEN');
    expectError(await anonymous(t).get('/api/v1/boards'), 401, 'UNAUTHORIZED');
    expectError(await a.admin.get(`/api/v1/boards/${randomId()}`), 404, 'NOT_FOUND');
    for (const res of [await b.admin.get(url), await b.admin.put(url, { board_name: 'X' }), await b.admin.delete(url)]) expectError(res, 404, 'NOT_FOUND');
    expectError(await a.admin.get('/api/v1/boards/nope'), 400, 'VALIDATION_ERROR');
  });
});

describe('board statuses', () => {
  it('adds a status at the end (or where asked); is_default moves the board\'s default', async () => {
    const { admin } = await makeTenant(t);
    const { board, statuses } = await defaultBoard(admin);
    const base = `/api/v1/boards/${board.board_id}/statuses`;
    const res = await admin.post(base, { name: ' Waiting ' });
    expectStatus(res, 201);
    const waiting = res.json().data as StatusJson;
    expect(res.headers.location).toBe(`${base}/${waiting.status_id}`);
    expect(waiting).toMatchObject({ board_id: board.board_id, name: 'Waiting', is_closed: false, is_default: false, order_number: 4 });
    const triage = (await admin.post(base, { name: 'Triage', order_number: 0, is_default: true })).json().data as StatusJson;
    expect(triage).toMatchObject({ order_number: 0, is_default: true });
    expect((await admin.get(`${base}/${statuses.Open!.status_id}`)).json().data.is_default).toBe(false);
    const list = await admin.get(base);
    expect(list.json().data.map((s: StatusJson) => s.name)).toEqual(['Triage', 'Open', 'In Progress', 'Closed', 'Waiting']);
    expect((await admin.get(`${base}?is_closed=true`)).json().data.map((s: StatusJson) => s.name)).toEqual(['Closed']);
    expectError(await admin.post(base, { name: 'open' }), 409, 'CONFLICT');
    expectError(await admin.post(base, { name: 'Done', is_closed: true, is_default: true }), 422, 'UNPROCESSABLE');
    expectError(await admin.post(base, { name: '' }), 400, 'VALIDATION_ERROR');
  });

  it('updates a status; is_closed cannot change while tickets use it, and the default stays open and set', async () => {
    const { admin } = await makeTenant(t);
    const { board, statuses } = await defaultBoard(admin);
    const base = `/api/v1/boards/${board.board_id}/statuses`;
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id, { status_id: statuses['In Progress']!.status_id });
    const inProgress = `${base}/${statuses['In Progress']!.status_id}`;
    const renamed = await admin.put(inProgress, { name: 'Working', order_number: 9 });
    expectStatus(renamed, 200);
    expect(renamed.json().data).toMatchObject({ name: 'Working', order_number: 9 });
    expect((await admin.get(`/api/v1/tickets/${ticket.ticket_id}`)).json().data.status_name).toBe('Working');
    const used = await admin.put(inProgress, { is_closed: true });
    expectError(used, 409, 'CONFLICT');
    expect(used.json().error.details).toEqual({ tickets: 1 });
    expectError(await admin.put(`${base}/${statuses.Open!.status_id}`, { is_closed: true }), 422, 'UNPROCESSABLE');
    expectError(await admin.put(`${base}/${statuses.Open!.status_id}`, { is_default: false }), 409, 'CONFLICT');
    expectError(await admin.put(`${base}/${statuses.Closed!.status_id}`, { is_default: true }), 422, 'UNPROCESSABLE');
    expectError(await admin.put(inProgress, { name: 'closed' }), 409, 'CONFLICT');
    const moved = await admin.put(`${base}/${statuses.Closed!.status_id}`, { is_closed: false, is_default: true });
    expectStatus(moved, 200);
    expect(moved.json().data).toMatchObject({ is_closed: false, is_default: true });
    expect((await admin.get(`${base}/${statuses.Open!.status_id}`)).json().data.is_default).toBe(false);
  });

  it('deletes an unused, non-default status; refuses the default and a status in use', async () => {
    const { admin } = await makeTenant(t);
    const { board, statuses } = await defaultBoard(admin);
    const base = `/api/v1/boards/${board.board_id}/statuses`;
    const ticket = await makeTicket(admin, (await makeClient(admin)).client_id, { status_id: statuses.Closed!.status_id });
    expectError(await admin.delete(`${base}/${statuses.Open!.status_id}`), 409, 'CONFLICT');
    const used = await admin.delete(`${base}/${statuses.Closed!.status_id}`);
    expectError(used, 409, 'CONFLICT');
    expect(used.json().error.message).toMatch(/1 tickets/);
    const url = `${base}/${statuses['In Progress']!.status_id}`;
    const etag = String((await admin.get(url)).headers.etag);
    expectError(await admin.delete(url, { 'if-match': '"x"' }), 412, 'PRECONDITION_FAILED');
    expectStatus(await admin.delete(url, { 'if-match': etag }), 204);
    expectError(await admin.get(url), 404, 'NOT_FOUND');
    expectStatus(await admin.delete(`/api/v1/tickets/${ticket.ticket_id}`), 204);
    expectStatus(await admin.delete(`${base}/${statuses.Closed!.status_id}`), 204);
  });

  it('answers 404 for a status of another board, an unknown board or another tenant; 403 without settings:update', async () => {
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const { board, statuses } = await defaultBoard(a.admin);
    const other = await makeBoard(a.admin);
    const crossed = `/api/v1/boards/${other.board_id}/statuses/${statuses.Open!.status_id}`;
    expectError(await a.admin.get(crossed), 404, 'NOT_FOUND');
    expectError(await a.admin.put(crossed, { name: 'x' }), 404, 'NOT_FOUND');
    expectError(await a.admin.delete(crossed), 404, 'NOT_FOUND');
    expectError(await a.admin.get(`/api/v1/boards/${randomId()}/statuses`), 404, 'NOT_FOUND');
    expectError(await a.admin.post(`/api/v1/boards/${randomId()}/statuses`, { name: 'x' }), 404, 'NOT_FOUND');
    const own = `/api/v1/boards/${board.board_id}/statuses`;
    expectError(await b.admin.get(own), 404, 'NOT_FOUND');
    expectError(await b.admin.post(own, { name: 'x' }), 404, 'NOT_FOUND');
    const tech = await makeUser(t, a.tenant, { role: 'Technician' });
    expectStatus(await tech.api.get(own), 200);
    expectError(await tech.api.post(own, { name: 'x' }), 403, 'FORBIDDEN');
    expectError(await tech.api.put(`${own}/${statuses.Open!.status_id}`, { name: 'x' }), 403, 'FORBIDDEN');
    expectError(await anonymous(t).get(own), 401, 'UNAUTHORIZED');
  });
});
