import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { defineList } from '../../../platform/http/list.ts';
import { filteredProjects, type ProjectFilter } from '../projects.repo.ts';

/** Keyset page of matching project ids by project number (stable while rows are added or removed). */
export async function pageProjectIds(db: Executor, tenant: string, f: ProjectFilter, afterSeq: number, limit: number): Promise<{ project_id: string; project_seq: number }[]> {
  return filteredProjects(db, tenant, f).select(['p.project_id', 'p.project_seq']).where('p.project_seq', '>', afterSeq).orderBy('p.project_seq').limit(limit).execute();
}

/**
 * Search hits: an exact project number first, then names starting with the query, then the rest by name
 * (the query takes no sort or order, so this one ordering always runs ascending). Only the ids are paged;
 * the service loads their views. `updated_since` is part of the shared filter, so `updatedAt` stays out.
 */
export function projectSearchList(db: Executor, tenant: string, f: ProjectFilter & { query: string }) {
  const exact = f.query.toLowerCase();
  const prefix = `${f.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return defineList({
    from: filteredProjects(db, tenant, f),
    page: filteredProjects(db, tenant, f).select('p.project_id'),
    sorts: {
      relevance: [
        { by: sql`lower(p.project_number) = ${exact}`, reverse: true },
        { by: sql`p.project_name ilike ${prefix}`, reverse: true },
        sql`lower(p.project_name)`,
      ],
    },
    defaultSort: 'relevance',
    defaultOrder: 'asc',
    tieBreaker: 'p.project_id',
    updatedAt: 'p.updated_at',
  });
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
