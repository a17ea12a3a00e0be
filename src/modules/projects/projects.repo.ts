import { sql, type Insertable, type Selectable, type Transaction, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { likePattern } from '../../platform/db/like.ts';
import { PREPARE_MARK, preparedQuery } from '../../platform/db/prepared.ts';
import { consuming, reservedSeq, type ReservedNumber } from '../../platform/db/numbering.ts';
import type { DB } from '../../platform/db/schema.ts';
import type { ProjectsTable } from '../../platform/db/schema.projects.ts';
import { rowVersion } from '../../platform/http/list-cache.ts';
import { namesVersion } from '../../platform/db/names-version.ts';
import { defineList, whenUnfiltered } from '../../platform/http/list.ts';

export type ProjectRow = Selectable<ProjectsTable>;

/** A project with the names it refers to and its rolled-up counts: what the API and the events show. */
export interface ProjectViewRow extends ProjectRow {
  status_name: string;
  client_name: string | null;
  contact_name: string | null;
  contact_email: string | null;
  assigned_to_name: string | null;
  assigned_team_name: string | null;
  phase_count: number;
  task_count: number;
  completed_task_count: number;
  /** Sum of the tasks' actual hours (numeric as text). */
  actual_hours: string;
}

/** "First Last", or the username when the user has neither. */
export const userDisplayName = (alias: string) =>
  sql<string | null>`coalesce(nullif(trim(concat_ws(' ', ${sql.ref(`${alias}.first_name`)}, ${sql.ref(`${alias}.last_name`)})), ''), ${sql.ref(`${alias}.username`)})`;

const PROJECT_COLUMNS = [
  'p.tenant', 'p.project_id', 'p.project_seq', 'p.project_number', 'p.project_name', 'p.description', 'p.client_id', 'p.contact_id',
  'p.assigned_to', 'p.assigned_team_id', 'p.status_id', 'p.is_closed', 'p.start_date', 'p.end_date', 'p.budgeted_hours',
  'p.created_by', 'p.created_at', 'p.updated_by', 'p.updated_at', 'p.closed_at',
] as const;

const projectBase = (db: Executor, tenant: string) => db.selectFrom('projects as p').where('p.tenant', '=', tenant);
type ProjectBase = ReturnType<typeof projectBase>;

const phaseCount = sql<number>`(select count(*)::int from project_phases ph where ph.tenant = p.tenant and ph.project_id = p.project_id)`;
const taskCount = sql<number>`(select count(*)::int from project_tasks pt where pt.tenant = p.tenant and pt.project_id = p.project_id)`;
const completedCount = sql<number>`(select count(*)::int from project_tasks pt where pt.tenant = p.tenant and pt.project_id = p.project_id and pt.completed_at is not null)`;
const taskTotals = sql<string>`(select format('%s.%s.%s', count(*), count(pt.completed_at), coalesce(sum(pt.actual_hours), 0)) from project_tasks pt where pt.tenant = p.tenant and pt.project_id = p.project_id)`;
const actualHours = sql<string>`(select coalesce(sum(pt.actual_hours), 0)::text from project_tasks pt where pt.tenant = p.tenant and pt.project_id = p.project_id)`;

/**
 * Adds the names and counts a project shows. Left joins throughout, though the status always has its row (a
 * NOT NULL foreign key): PostgreSQL drops a left join whose columns a statement does not use, so the kept
 * list's narrow statement (ids and versions) reads no joined table.
 */
function withNames(q: ProjectBase) {
  return q
    .leftJoin('project_statuses as s', (j) => j.onRef('s.tenant', '=', 'p.tenant').onRef('s.status_id', '=', 'p.status_id'))
    .leftJoin('clients as cl', (j) => j.onRef('cl.tenant', '=', 'p.tenant').onRef('cl.client_id', '=', 'p.client_id'))
    .leftJoin('contacts as co', (j) => j.onRef('co.tenant', '=', 'p.tenant').onRef('co.contact_id', '=', 'p.contact_id'))
    .leftJoin('users as au', (j) => j.onRef('au.tenant', '=', 'p.tenant').onRef('au.user_id', '=', 'p.assigned_to'))
    .leftJoin('teams as tm', (j) => j.onRef('tm.tenant', '=', 'p.tenant').onRef('tm.team_id', '=', 'p.assigned_team_id'))
    .select(PROJECT_COLUMNS)
    .select((eb) => [
      eb.ref('s.name').$notNull().as('status_name'),
      'cl.client_name as client_name',
      'co.full_name as contact_name',
      'co.email as contact_email',
      userDisplayName('au').as('assigned_to_name'),
      'tm.team_name as assigned_team_name',
      phaseCount.as('phase_count'),
      taskCount.as('task_count'),
      completedCount.as('completed_task_count'),
      actualHours.as('actual_hours'),
    ]);
}

// Five joins and four correlated counts take PostgreSQL ~2 ms to plan and well under 1 ms to run: the
// single-project read, which every project request and event uses, is prepared once per connection.
const projectViewById = preparedQuery(['tenant', 'projectId'], (db, v) => withNames(projectBase(db, v.tenant)).where('p.project_id', '=', v.projectId));
const projectViewByIdForUpdate = preparedQuery(['tenant', 'projectId'], (db, v) =>
  withNames(projectBase(db, v.tenant)).where('p.project_id', '=', v.projectId).forUpdate('p'),
);

/** The project as shown, optionally locking its row (only it: the joined rows stay unlocked). */
export async function findProjectView(db: Executor, tenant: string, projectId: string, lock = false): Promise<ProjectViewRow | undefined> {
  const rows = await (lock ? projectViewByIdForUpdate : projectViewById)(db, { tenant, projectId });
  return rows[0] as ProjectViewRow | undefined;
}

export async function findProjectViews(db: Executor, tenant: string, projectIds: readonly string[]): Promise<ProjectViewRow[]> {
  if (projectIds.length === 0) return [];
  return (await withNames(projectBase(db, tenant)).where('p.project_id', 'in', [...projectIds]).execute()) as ProjectViewRow[];
}

/**
 * Inserts a project numbered `row.project_seq`, or with the reserved number, consuming the reservation in the same
 * statement. Prepared: every create runs it, and on PostgreSQL parsing and planning it cost more than running it.
 */
export async function insertProject(db: Transaction<DB>, row: Insertable<ProjectsTable>, reserved?: ReservedNumber): Promise<void> {
  const insert = reserved
    ? consuming(db, reserved).insertInto('projects').values({ ...row, project_seq: reservedSeq })
    : db.insertInto('projects').values(row);
  await insert.modifyEnd(sql.raw(PREPARE_MARK)).execute();
}

export async function updateProject(db: Executor, tenant: string, projectId: string, set: Updateable<ProjectsTable>): Promise<void> {
  await db.updateTable('projects').set(set).where('tenant', '=', tenant).where('project_id', '=', projectId).execute();
}

/**
 * Phases, tasks, their checklists, comments and reactions, and the status mappings go with it (FK
 * cascades). Tasks go first: they also reference the mappings (no cascade there, so a mapping in use
 * can never vanish on its own), and within one cascading statement that check may run before the
 * tasks are gone.
 */
export async function deleteProject(db: Executor, tenant: string, projectId: string): Promise<void> {
  await db.deleteFrom('project_tasks').where('tenant', '=', tenant).where('project_id', '=', projectId).execute();
  await db.deleteFrom('projects').where('tenant', '=', tenant).where('project_id', '=', projectId).execute();
}

/** What narrows a set of projects: the list's filters, plus the free text of the search endpoint. */
export interface ProjectFilter {
  onlyClientId?: string;
  clientId?: string;
  statusId?: string;
  assignedTo?: string;
  assignedTeamId?: string;
  isClosed?: boolean;
  search?: string;
  updatedSince?: Date;
  /** Free text: name, number, description or client name. */
  query?: string;
}

function filtered(q: ProjectBase, f: ProjectFilter): ProjectBase {
  const equal: [keyof ProjectRow, string | undefined][] = [
    ['client_id', f.onlyClientId],
    ['client_id', f.clientId],
    ['status_id', f.statusId],
    ['assigned_to', f.assignedTo],
    ['assigned_team_id', f.assignedTeamId],
  ];
  for (const [column, value] of equal) if (value !== undefined) q = q.where(`p.${column}`, '=', value);
  if (f.isClosed !== undefined) q = q.where('p.is_closed', '=', f.isClosed);
  if (f.updatedSince !== undefined) q = q.where('p.updated_at', '>=', f.updatedSince);
  if (f.search !== undefined) {
    const like = likePattern(f.search);
    q = q.where((eb) => eb.or([eb('p.project_name', 'ilike', like), eb('p.project_number', 'ilike', like), eb('p.description', 'ilike', like)]));
  }
  if (f.query !== undefined) {
    const like = likePattern(f.query);
    q = q.where((eb) => eb.or([
      eb('p.project_name', 'ilike', like),
      eb('p.project_number', 'ilike', like),
      eb('p.description', 'ilike', like),
      eb('p.client_id', 'in', eb.selectFrom('clients as cl').select('cl.client_id').whereRef('cl.tenant', '=', 'p.tenant').where('cl.client_name', 'ilike', like)),
    ]));
  }
  return q;
}

/** The tenant's projects that match `f` (no columns selected yet). */
export const filteredProjects = (db: Executor, tenant: string, f: ProjectFilter) => filtered(projectBase(db, tenant), f);

/**
 * The page is joined for its names, the count is not. Ties break on project_id in the same direction.
 * `updated_since` is part of the shared filter (export, stats and search apply it too), so the spec
 * leaves `updatedAt` out.
 */
export function projectList(db: Executor, tenant: string, f: ProjectFilter) {
  return defineList({
    from: filteredProjects(db, tenant, f),
    page: withNames(filteredProjects(db, tenant, f)),
    sorts: {
      project_number: ['p.project_seq'],
      project_name: [sql`lower(p.project_name)`],
      created_at: ['p.created_at'],
      updated_at: ['p.updated_at'],
      start_date: [{ by: 'p.start_date', nullsLast: true }],
      end_date: [{ by: 'p.end_date', nullsLast: true }],
    },
    defaultSort: 'project_number',
    defaultOrder: 'asc',
    tieBreaker: 'p.project_id',
    updatedAt: 'p.updated_at',
    counter: whenUnfiltered(f, { tenant, list: 'projects' }),
    // The project, the names it shows, and the counts and hours of its phases and tasks as shown (the
    // three of its tasks from one subquery: the version is read on every page).
    version: rowVersion('p.tenant', ['p'], [namesVersion('p.tenant'), phaseCount, taskTotals]),
  });
}

/** Keyset page of the tenant's project ids (search re-index). */
export async function listProjectIds(db: Executor, tenant: string, afterId: string | null, limit: number): Promise<string[]> {
  let q = db.selectFrom('projects').select('project_id').where('tenant', '=', tenant);
  if (afterId !== null) q = q.where('project_id', '>', afterId);
  return (await q.orderBy('project_id').limit(limit).execute()).map((r) => r.project_id);
}
