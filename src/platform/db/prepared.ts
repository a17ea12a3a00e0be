import type { CompiledQuery } from 'kysely';
import type { Executor } from './executor.ts';

/**
 * SQL texts that run as named prepared statements on PostgreSQL (see database.ts). Only texts
 * registered here are prepared, so the set stays small and known: hot, fixed-shape queries.
 */
export const PREPARED_TEXTS = new Set<string>();

const MARK = '\u0000psa-param:';

/**
 * A query built once with Kysely and then run many times with new values: no builder or compiler
 * work per call and, on PostgreSQL, no parse or plan per call either. `build` receives markers for
 * the named values; select explicit columns (a prepared `select *` breaks when a column is added).
 */
export function preparedQuery<P extends string, R>(
  names: readonly P[],
  build: (db: Executor, values: Record<P, string>) => { compile(): CompiledQuery<R> },
): (db: Executor, values: Record<P, unknown>) => Promise<R[]> {
  let compiled: CompiledQuery<R> | undefined;
  const markers = Object.fromEntries(names.map((n) => [n, `${MARK}${n}`])) as Record<P, string>;
  return async (db, values) => {
    if (!compiled) {
      compiled = build(db, markers).compile();
      PREPARED_TEXTS.add(compiled.sql);
    }
    const parameters = compiled.parameters.map((p) =>
      typeof p === 'string' && p.startsWith(MARK) ? values[p.slice(MARK.length) as P] : p,
    );
    const result = await db.executeQuery<R>({ ...compiled, parameters });
    return result.rows;
  };
}
