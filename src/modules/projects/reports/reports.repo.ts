import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { filteredProjects, type ProjectFilter } from '../projects.repo.ts';

/** Keyset page of matching project ids by project number (stable while rows are added or removed). */
export async function pageProjectIds(db: Executor, tenant: string, f: ProjectFilter, afterSeq: number, limit: number): Promise<{ project_id: string; project_seq: number }[]> {
  return filteredProjects(db, tenant, f).select(['p.project_id', 'p.project_seq']).where('p.project_seq', '>', afterSeq).orderBy('p.project_seq').limit(limit).execute();
}

/**
 * One page of search hits and the total: an exact project number first, then names starting with the
 * query, then the rest by name.
 */
export async function searchProjectIds(db: Executor, tenant: string, f: ProjectFilter & { query: string }, limit: number, offset: number) {
  const exact = f.query.toLowerCase();
  const prefix = `${f.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await filteredProjects(db, tenant, f)
    .select('p.project_id')
    .orderBy(sql`lower(p.project_number) = ${exact}`, 'desc')
    .orderBy(sql`p.project_name ilike ${prefix}`, 'desc')
    .orderBy(sql`lower(p.project_name)`)
    .orderBy('p.project_id')
    .limit(limit)
    .offset(offset)
    .execute();
  const n = await filteredProjects(db, tenant, f).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { ids: rows.map((r) => r.project_id), total: Number(n.n) };
}

/** Counts per status (every status of the tenant, zero included) and the hour totals of the matching projects. */
export async function projectStats(db: Executor, tenant: string, f: ProjectFilter, today: string) {
  const matching = filteredProjects(db, tenant, f).select(['p.project_id', 'p.status_id', 'p.is_closed', 'p.end_date', 'p.budgeted_hours']);
  const totals = await db
    .selectFrom(matching.as('m'))
    .select([
      sql<number>`count(*)::int`.as('total'),
      sql<number>`count(*) filter (where m.is_closed)::int`.as('closed'),
      sql<number>`count(*) filter (where not m.is_closed and m.end_date < ${today}::date)::int`.as('overdue'),
      sql<string>`coalesce(sum(m.budgeted_hours), 0)::text`.as('budgeted'),
    ])
    .executeTakeFirstOrThrow();
  const taskHours = await db
    .selectFrom('project_tasks as t')
    .select([sql<string>`coalesce(sum(t.estimated_hours), 0)::text`.as('estimated'), sql<string>`coalesce(sum(t.actual_hours), 0)::text`.as('actual')])
    .where('t.tenant', '=', tenant)
    .where('t.project_id', 'in', filteredProjects(db, tenant, f).select('p.project_id'))
    .executeTakeFirstOrThrow();
  const byStatus = await db
    .selectFrom('project_statuses as s')
    .leftJoin(matching.as('m'), 'm.status_id', 's.status_id')
    .select(['s.status_id', 's.name as status_name', 's.is_closed', sql<number>`count(m.project_id)::int`.as('project_count')])
    .where('s.tenant', '=', tenant)
    .groupBy(['s.status_id', 's.name', 's.is_closed', 's.order_number'])
    .orderBy('s.order_number')
    .orderBy('s.status_id')
    .execute();
  return { totals, taskHours, byStatus };
}
