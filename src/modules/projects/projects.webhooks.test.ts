import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, engine, type TestApp } from '../../../test/harness.ts';
import { makeTenant, makeUser } from '../../../test/factories.ts';
import { makeClient } from '../../../test/client-factories.ts';
import { ok, projectStatuses, taskStatuses } from '../../../test/project-extras-kit.ts';
import { Dispatchers, Receiver, createWebhook, drain, fanOut, verifySignature } from '../../../test/webhooks-kit.ts';
import { PROJECT_DATA_FIELDS, PROJECT_EVENTS, PROJECT_TASK_EVENTS } from './projects.vocabulary.ts';

/**
 * The acceptance test of the projects area: a project built entirely through the API — a template
 * applied, a task moved between phases, checklist items ticked, comments and reactions added, a task
 * assigned and completed, the project activated — reaches a subscribed receiver as exactly the
 * expected sequence of signed deliveries, with the payload fields that matter.
 */
let t: TestApp;
let receiver: Receiver;
let dispatchers: Dispatchers;
beforeAll(async () => {
  t = await buildTestApp({ env: { PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } });
  receiver = await new Receiver().listen();
  dispatchers = new Dispatchers(t);
});
afterAll(async () => {
  await dispatchers.close();
  await receiver.close();
  await t.close();
});

describe(`a project built through the API → webhook deliveries (${engine})`, () => {
  it('delivers the exact sequence of project and task events with their key fields', async () => {
    const { admin, tenant } = await makeTenant(t);
    const tech = await makeUser(t, tenant, { role: 'Technician' });
    const client = await makeClient(admin, { client_name: 'Acme Webhooks' });
    const taskStatus = await taskStatuses(t, tenant);
    const projectStatus = await projectStatuses(t, tenant);
    const hook = await createWebhook(admin, { url: receiver.url, event_types: [...Object.values(PROJECT_EVENTS), ...Object.values(PROJECT_TASK_EVENTS)] });

    // 1. A template, applied: project.created, then project.task.created for each task in order.
    const template = ok<{ template_id: string }>(await admin.post('/api/projects/templates', {
      template_name: 'Office move',
      phases: [
        { phase_name: 'Plan', duration_days: 3, tasks: [{ task_name: 'Survey', checklist: [{ item_name: 'Floor plan' }, { item_name: 'Cabling' }] }, { task_name: 'Order kit', estimated_hours: 2 }] },
        { phase_name: 'Move', start_offset_days: 3, duration_days: 2, tasks: [{ task_name: 'Cut over', due_offset_days: 1 }] },
      ],
    }), 201);
    const project = ok<{ project_id: string; project_number: string }>(await admin.post(`/api/projects/templates/${template.template_id}/apply`, {
      project_name: 'Acme office move', client_id: client.client_id, start_date: '2026-06-01',
    }), 201);
    const pid = project.project_id;
    const phases = ok<{ phase_id: string; phase_name: string }[]>(await admin.get(`/api/v1/projects/${pid}/phases`));
    const phase = Object.fromEntries(phases.map((p) => [p.phase_name, p.phase_id]));
    const tasks = ok<{ task_id: string; task_name: string }[]>(await admin.get(`/api/v1/projects/${pid}/tasks?limit=100`));
    const task = Object.fromEntries(tasks.map((k) => [k.task_name, k.task_id]));

    // 2. "Order kit" moves from Plan to Move: project.task.updated with changes.phase_id.
    ok(await admin.put(`/api/v1/projects/tasks/${task['Order kit']}`, { phase_id: phase.Move }));

    // 3. Checklist items ticked, a comment and a reaction: no public events exist for these.
    const items = ok<{ checklist_item_id: string }[]>(await admin.get(`/api/v1/projects/tasks/${task.Survey}/checklist`));
    for (const item of items) ok(await admin.put(`/api/v1/projects/tasks/${task.Survey}/checklist/${item.checklist_item_id}`, { completed: true }));
    const comment = ok<{ comment_id: string }>(await admin.post(`/api/v1/projects/tasks/${task.Survey}/comments`, { comment_text: 'Surveyed both floors' }), 201);
    expect((await tech.api.post(`/api/v1/projects/tasks/${task.Survey}/comments/${comment.comment_id}/reactions`, { emoji: '👍' })).statusCode).toBeLessThan(300);

    // 4. "Survey" assigned, then completed: updated + assigned, then updated + status_changed + completed.
    ok(await admin.put(`/api/v1/projects/tasks/${task.Survey}`, { assigned_to: tech.userId }));
    const mappings = ok<{ status_mapping_id: string; status_id: string }[]>(await admin.get(`/api/v1/projects/${pid}/task-status-mappings`));
    const done = mappings.find((m) => m.status_id === taskStatus.Done)!.status_mapping_id;
    ok(await admin.put(`/api/v1/projects/tasks/${task.Survey}`, { status_mapping_id: done }));

    // 5. The project goes Active: project.updated + project.status_changed.
    ok(await admin.put(`/api/v1/projects/${pid}`, { status_id: projectStatus.Active }));

    await fanOut(t);
    await drain(dispatchers.make());
    const receipts = receiver.receipts.filter((r) => r.headers['x-service-webhook-id'] === hook.webhook_id);
    // Deliveries may arrive in any order (the spec says so); event ids are time-ordered, so they give the write order.
    const envelopes = receipts.map((r) => {
      expect(verifySignature(hook.secret, r.headers['x-service-signature'], r.body)).toBe(true);
      const e = JSON.parse(r.body) as { event_id: string; event_type: string; tenant_id: string; data: Record<string, unknown>; changes?: Record<string, { previous: unknown; new: unknown }> };
      expect(r.headers['x-service-event-type']).toBe(e.event_type);
      expect(r.headers['x-service-event-id']).toBe(e.event_id);
      expect(Object.keys(e.data)).toEqual([...PROJECT_DATA_FIELDS]);
      expect(e.tenant_id).toBe(tenant);
      return e;
    }).sort((a, b) => (a.event_id < b.event_id ? -1 : 1));

    expect(envelopes.map((e) => [e.event_type, e.data.task_name ?? null])).toEqual([
      ['project.created', null],
      ['project.task.created', 'Survey'],
      ['project.task.created', 'Order kit'],
      ['project.task.created', 'Cut over'],
      ['project.task.updated', 'Order kit'],
      ['project.task.updated', 'Survey'],
      ['project.task.assigned', 'Survey'],
      ['project.task.updated', 'Survey'],
      ['project.task.status_changed', 'Survey'],
      ['project.task.completed', 'Survey'],
      ['project.updated', null],
      ['project.status_changed', null],
    ]);
    for (const e of envelopes) {
      expect(e.data).toMatchObject({ project_id: pid, project_number: project.project_number, project_name: 'Acme office move', client_id: client.client_id, client_name: 'Acme Webhooks' });
      if (e.event_type.startsWith('project.task.')) {
        expect(e.data.task_id).toBe(task[e.data.task_name as string]);
        expect(e.data.url).toEqual(expect.stringMatching(new RegExp(`/projects/tasks/${e.data.task_id as string}$`)));
      } else {
        expect(e.data.task_id).toBeNull();
        expect(e.data.url).toEqual(expect.stringMatching(new RegExp(`/projects/${pid}$`)));
      }
    }
    const [created, survey, , cutOver, moved, assignedUpdate, assigned, , statusChanged, completed, projectUpdated, projectStatusChanged] = envelopes;
    expect(created!.data).toMatchObject({ start_date: '2026-06-01', end_date: '2026-06-05', status_name: 'Planning', is_closed: false });
    expect(survey!.data).toMatchObject({ phase_id: phase.Plan, phase_name: 'Plan', due_date: null });
    expect(cutOver!.data).toMatchObject({ phase_id: phase.Move, phase_name: 'Move', due_date: '2026-06-05' });
    expect(moved!.data).toMatchObject({ phase_id: phase.Move, phase_name: 'Move', estimated_hours: 2 });
    expect(moved!.changes).toMatchObject({ phase_id: { previous: phase.Plan, new: phase.Move } });
    expect(assignedUpdate!.changes).toEqual({ assigned_to: { previous: null, new: tech.userId } });
    expect(assigned!.data).toMatchObject({ assigned_to: tech.userId });
    expect(statusChanged!.data).toMatchObject({ status_name: 'Done', previous_status_name: 'To Do', is_closed: true });
    expect(completed!.data).toMatchObject({ task_id: task.Survey, status_name: 'Done', is_closed: true });
    expect(projectUpdated!.changes).toEqual({ status_id: { previous: projectStatus.Planning, new: projectStatus.Active } });
    expect(projectStatusChanged!.data).toMatchObject({ status_name: 'Active', previous_status_name: 'Planning', is_closed: false });
    expect(new Set(envelopes.map((e) => e.event_id)).size).toBe(envelopes.length);
  });
});
