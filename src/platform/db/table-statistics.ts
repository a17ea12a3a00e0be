import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** Most tables one run analyzes (the most changed first); the rest wait for the next run. */
const MAX_TABLES_PER_RUN = 10;

/**
 * ANALYZE for a PostgreSQL server whose autovacuum is off, as autovacuum would: every table changed by more
 * than the server's own analyze threshold (autovacuum_analyze_threshold + autovacuum_analyze_scale_factor ×
 * its rows) since it was last analyzed, and none more often than once per autovacuum_naptime. With
 * autovacuum on (or on PGlite, whose counters say nothing changed) it does nothing. Returns the tables it
 * analyzed.
 *
 * Why the worker does this: without statistics the planner cannot tell a table's primary key from another
 * index that leads with the same column, and a generic plan made then is kept for the connection's life. The
 * foreign-key check of every insert into automation_execution_logs was planned on the (tenant, updated_at,
 * execution_id) keyset index while automation_executions was empty, and scanned every execution of the
 * tenant per log row from then on (0.2 ms a row at 20,000 executions, growing). ANALYZE both fixes the
 * estimates and invalidates the plans made without them.
 */
export async function analyzeChangedTables(db: Kysely<DB>): Promise<string[]> {
  const { rows } = await sql<{ relname: string }>`
    select relname from pg_stat_user_tables
    where schemaname = current_schema()
      and current_setting('autovacuum') = 'off'
      and n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
        + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(n_live_tup, 0)
      -- A queue table growing by thousands of rows a second passes the threshold every few seconds; each
      -- ANALYZE of it costs a quarter of a second of a core, which stalled the automation pipeline every time.
      and (last_analyze is null or last_analyze < now() - current_setting('autovacuum_naptime')::interval)
    order by n_mod_since_analyze desc
    limit ${MAX_TABLES_PER_RUN}`.execute(db);
  for (const { relname } of rows) await sql`analyze ${sql.id(relname)}`.execute(db);
  return rows.map((r) => r.relname);
}
