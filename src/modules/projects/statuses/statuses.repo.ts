import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../../platform/db/executor.ts';
import { everyColumn, PREPARE_MARK, preparedQuery } from '../../../platform/db/prepared.ts';
import type { ProjectStatusesTable, TaskStatusesTable } from '../../../platform/db/schema.projects.ts';

export type ProjectStatusRow = Selectable<ProjectStatusesTable>;

/** A project's task status mapping with the tenant status it maps. */
export interface StatusMappingRow {
  status_mapping_id: string;
  project_id: string;
  task_status_id: string;
  status_name: string;
  is_closed: boolean;
  is_default: boolean;
  display_order: number;
  is_visible: boolean;
}

export async function listProjectStatuses(db: Executor, tenant: string): Promise<ProjectStatusRow[]> {
  return db.selectFrom('project_statuses').selectAll().where('tenant', '=', tenant).orderBy('order_number').orderBy('status_id').execute();
}

export async function findProjectStatus(db: Executor, tenant: string, statusId: string): Promise<ProjectStatusRow | undefined> {
  return db.selectFrom('project_statuses').selectAll().where('tenant', '=', tenant).where('status_id', '=', statusId).executeTakeFirst();
}

const PROJECT_STATUS_COLUMNS = everyColumn<ProjectStatusesTable>()(['tenant', 'status_id', 'name', 'is_closed', 'is_default', 'order_number', 'created_at', 'updated_at']);

// Prepared: every project create that names no status runs it.
const defaultProjectStatus = preparedQuery(['tenant'], (db, v) =>
  db
    .selectFrom('project_statuses')
    .select(PROJECT_STATUS_COLUMNS)
    .where('tenant', '=', v.tenant)
    .where('is_closed', '=', false)
    .orderBy('is_default', 'desc')
    .orderBy('order_number')
    .orderBy('status_id')
    .limit(1),
);

/** The default status, else the first by order (a tenant whose default was removed still creates projects). */
export async function findDefaultProjectStatus(db: Executor, tenant: string): Promise<ProjectStatusRow | undefined> {
  return (await defaultProjectStatus(db, { tenant }))[0];
}

export async function insertProjectStatuses(db: Executor, rows: Insertable<ProjectStatusesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('project_statuses').values(rows).execute();
}

export async function insertTaskStatuses(db: Executor, rows: Insertable<TaskStatusesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('task_statuses').values(rows).execute();
}

const mappingBase = (db: Executor, tenant: string) =>
  db
    .selectFrom('project_task_status_mappings as m')
    .innerJoin('task_statuses as ts', (j) => j.onRef('ts.tenant', '=', 'm.tenant').onRef('ts.task_status_id', '=', 'm.task_status_id'))
    .select(['m.status_mapping_id', 'm.project_id', 'm.task_status_id', 'ts.name as status_name', 'ts.is_closed', 'ts.is_default', 'm.display_order', 'm.is_visible'])
    .where('m.tenant', '=', tenant);

export async function listStatusMappings(db: Executor, tenant: string, projectId: string): Promise<StatusMappingRow[]> {
  return mappingBase(db, tenant).where('m.project_id', '=', projectId).orderBy('m.display_order').orderBy('m.status_mapping_id').execute();
}

export async function findStatusMapping(db: Executor, tenant: string, mappingId: string): Promise<StatusMappingRow | undefined> {
  return mappingBase(db, tenant).where('m.status_mapping_id', '=', mappingId).executeTakeFirst();
}

/** Where a new task of the project starts: the mapping of the default task status, else the first open one. */
export async function findDefaultStatusMapping(db: Executor, tenant: string, projectId: string): Promise<StatusMappingRow | undefined> {
  return mappingBase(db, tenant)
    .where('m.project_id', '=', projectId)
    .where('ts.is_closed', '=', false)
    .orderBy('ts.is_default', 'desc')
    .orderBy('m.display_order')
    .orderBy('m.status_mapping_id')
    .executeTakeFirst();
}

/** Mapping ids sent with each statement of insertDefaultMappings: more than a tenant usually has task statuses. */
const MAPPING_IDS_PER_STATEMENT = 32;

/**
 * Gives a project one mapping per tenant task status, in the statuses' order, reading the statuses and
 * writing the mappings in one statement (one round trip on every project create): the new ids come as an
 * array; a tenant with more statuses than it holds gets the rest from further statements. Prepared: one text.
 */
export async function insertDefaultMappings(db: Executor, tenant: string, projectId: string, newId: () => string): Promise<void> {
  for (let from = 0; ; from += MAPPING_IDS_PER_STATEMENT) {
    const ids = Array.from({ length: MAPPING_IDS_PER_STATEMENT }, newId);
    const { rows } = await sql<{ total: number }>`
      with s as (
        select task_status_id, row_number() over (order by order_number, task_status_id)::int as n, count(*) over ()::int as total
        from task_statuses where tenant = ${tenant}
      ), written as (
        insert into project_task_status_mappings (tenant, status_mapping_id, project_id, task_status_id, display_order)
        select ${tenant}, (${ids}::uuid[])[s.n - ${from}::int], ${projectId}, s.task_status_id, s.n
        from s where s.n > ${from}::int and s.n <= ${from + MAPPING_IDS_PER_STATEMENT}::int
      )
      select coalesce(max(total), 0) as total from s${sql.raw(PREPARE_MARK)}`.execute(db);
    if ((rows[0]?.total ?? 0) <= from + MAPPING_IDS_PER_STATEMENT) return;
  }
}
