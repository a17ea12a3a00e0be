import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import type { Executor } from './executor.ts';

/**
 * SQL texts that run as named prepared statements on PostgreSQL (see database.ts). Only texts
 * registered here, or ending with PREPARE_MARK, are prepared, so the set stays small and known.
 */
export const PREPARED_TEXTS = new Set<string>();

/**
 * Appended (with `modifyEnd`) to a query the builder assembles per request from a few shapes — a
 * list's page for each combination of filters and sort — so that it runs prepared too.
 */
export const PREPARE_MARK = ' /* prepared */';

/**
 * PREPARE_MARK when `oneShape` (a statement whose text varies with its input, in the case that makes it one
 * of a few: a single key, a single row), nothing otherwise; for the end of a `sql` template or `modifyEnd`.
 */
export const prepareIf = (oneShape: boolean): RawBuilder<unknown> => (oneShape ? sql.raw(PREPARE_MARK) : sql``);

/** Bounds the marked shapes each connection keeps: past it, new shapes run unnamed. */
const MAX_MARKED_SHAPES = 2_000;

const statementNames = new Map<string, string>();
let markedShapes = 0;

/** The statement name a SQL text runs under, or undefined when it runs unnamed (parsed and planned per call). */
export function preparedStatementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name) return name;
  // trimEnd: a `sql` template that ends with the mark on its own line leaves a newline and indent after it.
  const marked = text.trimEnd().endsWith(PREPARE_MARK) && !PREPARED_TEXTS.has(text);
  if (marked ? markedShapes >= MAX_MARKED_SHAPES : !PREPARED_TEXTS.has(text)) return undefined;
  if (marked) markedShapes += 1;
  statementNames.set(text, (name = `psa_${statementNames.size + 1}`));
  return name;
}

/**
 * Every column of table T, listed by name: what a prepared statement that needs the whole row selects
 * instead of `select *` (see preparedQuery). The compiler rejects the list while it misses a column.
 */
export const everyColumn =
  <T>() =>
  <const C extends readonly (keyof T & string)[]>(
    columns: C & ([Exclude<keyof T, C[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, C[number]> }),
  ): C =>
    columns;

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
