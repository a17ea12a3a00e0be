import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/harness.ts';
import { makeTenant } from '../../../test/factories.ts';
import { defaultProfileId, eventsOf, expectStatus, makeClient } from '../../../test/client-factories.ts';
import { makeProject, makeProjectTree, type ProjectJson } from '../../../test/project-factories.ts';
import { search, uniqueWord } from '../../../test/search-kit.ts';
import type { MergeContext } from '../clients/index.ts';
import { projectsMergeParticipant } from './projects.merge.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => { await t.close(); });

const participant = projectsMergeParticipant({ publicUrl: 'https://psa.test' });

/** count then move in one transaction, as the merge runs them. */
async function runMerge(ctx: MergeContext) {
  return t.database.db.transaction().execute(async (trx) => {
    const counts = await participant.count(trx, ctx);
    const moved = await participant.move(trx, ctx);
    return { counts, moved };
  });
}

async function projectRow(tenant: string, projectId: string) {
  return t.database.db.selectFrom('projects').selectAll().where('tenant', '=', tenant).where('project_id', '=', projectId).executeTakeFirstOrThrow();
}

describe('the projects merge participant', () => {
  it('moves every project of the source to the target, with events and the whole tree re-indexed', async () => {
    const { tenant, admin } = await makeTenant(t);
    const [sw, tw] = [uniqueWord(), uniqueWord()];
    const source = await makeClient(admin, { client_name: `${sw} Ltd` });
    const target = await makeClient(admin, { client_name: `${tw} Holdings` });
    const other = await makeClient(admin);
    const ctx: MergeContext = {
      tenant, sourceId: source.client_id, targetId: target.client_id, cutoverDate: '2026-11-01',
      profileIds: [await defaultProfileId(admin, source.client_id)], actorUserId: null,
    };

    const tree = await makeProjectTree(admin, { client_id: source.client_id });
    const second = await makeProject(admin, { client_id: source.client_id });
    const own = await makeProject(admin, { client_id: target.client_id });
    const elsewhere = await makeProject(admin, { client_id: other.client_id });
    const internal = await makeProject(admin);
    const untouched = [own, elsewhere, internal];
    const before = await Promise.all(untouched.map(async (p) => ({ row: await projectRow(tenant, p.project_id), events: (await eventsOf(t, tenant, p.project_id)).length })));

    const { counts, moved } = await runMerge(ctx);
    expect(counts).toEqual({ projects: 2 });
    expect(moved).toEqual(counts);

    for (const project of [tree.project, second]) {
      const res = await admin.get(`/api/v1/projects/${project.project_id}`);
      expectStatus(res, 200);
      expect(res.json().data as ProjectJson).toMatchObject({ client_id: target.client_id, client_name: `${tw} Holdings` });
      const events = await eventsOf(t, tenant, project.project_id);
      expect(events.at(-1)).toMatchObject({
        event_type: 'project.updated',
        payload: { changes: { client_id: { previous: source.client_id, new: target.client_id } }, merge: true, data: { project_id: project.project_id, client_id: target.client_id } },
      });
      expect(events.filter((e) => e.payload.merge === true)).toHaveLength(1);
    }

    // Search: the projects under the target's name, and the rows under them scoped to the target.
    const byTarget = await search(admin, { query: tw, types: 'project', limit: 50 });
    expect(byTarget.results.map((r) => r.id).sort()).toEqual([tree.project.project_id, second.project_id, own.project_id].sort());
    expect(byTarget.results.find((r) => r.id === second.project_id)!.subtitle).toBe(`${tw} Holdings | ${second.project_number}`);
    expect((await search(admin, { query: sw, types: 'project' })).totalCount).toBe(0);
    const treeDocs = await t.database.db.selectFrom('search_documents').select(['object_type', 'client_id']).where('tenant', '=', tenant)
      .where('object_id', 'in', [tree.phase.phase_id, tree.task.task_id]).execute();
    expect(treeDocs.map((d) => [d.object_type, d.client_id]).sort()).toEqual([['project_phase', target.client_id], ['project_task', target.client_id]]);

    // Other clients' projects (and those of no client) untouched.
    for (const [i, p] of untouched.entries()) {
      expect(await projectRow(tenant, p.project_id)).toEqual(before[i]!.row);
      expect(await eventsOf(t, tenant, p.project_id)).toHaveLength(before[i]!.events);
    }

    expect(await runMerge(ctx)).toEqual({ counts: { projects: 0 }, moved: { projects: 0 } });
  });
});
