import { sql, type Kysely } from 'kysely';

/**
 * Runs a migration's DDL one statement at a time. PGlite's query() takes a single statement (it uses
 * the extended protocol), so a script is split on semicolons that end a line. Migration scripts must
 * therefore not put `;` at the end of a line inside a string literal or function body.
 */
export async function runStatements(db: Kysely<unknown>, script: string): Promise<void> {
  const statements = script.split(/;\s*$/m).map((s) => s.trim()).filter((s) => s && !/^(--[^\n]*\n?)*$/.test(s));
  for (const statement of statements) await sql.raw(statement).execute(db);
}
