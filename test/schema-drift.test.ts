/**
 * The Kysely table types in src/platform/db/schema*.ts are written by hand, while the real schema is
 * whatever migrations/ create. Nothing else ties the two together: a column added, renamed, made
 * nullable or retyped in a migration still type-checks against the old declaration, and the mistake
 * shows up only at run time. This test migrates a fresh database, reads its columns from
 * information_schema, reads the declared `DB` interface with the TypeScript type checker, and lists
 * every disagreement: tables, columns, nullability, and the JS type each SQL type comes back as.
 */
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/platform/db/database.ts';
import type { DB } from '../src/platform/db/schema.ts';
import { createTestDatabase, engine } from './harness.ts';

const SCHEMA_FILE = fileURLToPath(new URL('../src/platform/db/schema.ts', import.meta.url));
const TSCONFIG_FILE = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
const MIGRATION_TABLES = ['kysely_migration', 'kysely_migration_lock'];

/** How one member of a declared select type reads at run time. */
type Kind = 'string' | 'string literal' | 'number' | 'boolean' | 'bigint' | 'Date' | 'Buffer or Uint8Array' | 'array' | 'object' | 'unknown' | 'null' | 'other';

const JSON_KINDS: readonly Kind[] = ['object', 'array', 'unknown'];

/**
 * The kinds a declared type may use for each SQL type (udt_name), as the drivers return them:
 * database.ts parses int8 to a number and keeps date as a 'YYYY-MM-DD' string; numeric has no
 * parser, so it stays the exact decimal text; bytea is a Buffer on pg and a Uint8Array on PGlite.
 */
const KINDS_BY_SQL_TYPE: Record<string, readonly Kind[]> = {
  text: ['string', 'string literal'],
  varchar: ['string', 'string literal'],
  bpchar: ['string', 'string literal'],
  citext: ['string', 'string literal'],
  uuid: ['string'],
  inet: ['string'],
  tsvector: ['string'],
  int2: ['number'],
  int4: ['number'],
  int8: ['number'],
  float4: ['number'],
  float8: ['number'],
  numeric: ['string'],
  bool: ['boolean'],
  timestamptz: ['Date'],
  timestamp: ['Date'],
  date: ['string'],
  json: JSON_KINDS,
  jsonb: JSON_KINDS,
  bytea: ['Buffer or Uint8Array'],
};
/** A user-defined enum reads as one of its labels. */
const ENUM_KINDS: readonly Kind[] = ['string literal'];
/**
 * Array element types both drivers parse like the scalar. The parsers in database.ts are for the
 * scalars only, so int8[], numeric[] and date[] read differently on pg and PGlite, and neither parses
 * an array of an enum (it reads as the text '{a,b}'): such columns need a deliberate decision here.
 */
const ARRAY_ELEMENTS_READ_ALIKE = ['text', 'varchar', 'bpchar', 'uuid', 'inet', 'int2', 'int4', 'float4', 'float8', 'bool', 'timestamptz', 'timestamp', 'json', 'jsonb', 'bytea'];

interface ActualColumn {
  /** udt_name; for an array, its element's (pg names array types _element). */
  sqlType: string;
  isArray: boolean;
  /** The column's type, or its element's, is a user-defined enum. */
  isEnum: boolean;
  nullable: boolean;
}
interface DeclaredColumn { typeText: string; kinds: Kind[]; elementKinds: Kind[] }
type Schema<C> = Map<string, Map<string, C>>;

// ---- the migrated database ----

interface ColumnRow { table_name: string; column_name: string; data_type: string; udt_name: string; is_nullable: string; is_enum: boolean }

async function readActualSchema(db: Kysely<DB>): Promise<Schema<ActualColumn>> {
  const { rows } = await sql<ColumnRow>`
    select c.table_name, c.column_name, c.data_type, c.udt_name, c.is_nullable,
      exists (
        select 1 from pg_type t join pg_namespace n on n.oid = t.typnamespace
        where n.nspname = c.udt_schema and t.typtype = 'e'
          and t.typname = case when c.data_type = 'ARRAY' then substr(c.udt_name, 2) else c.udt_name end
      ) as is_enum
    from information_schema.columns c
    where c.table_schema = current_schema() and c.table_name not in (${sql.join(MIGRATION_TABLES)})
      -- A partition is part of its parent table, which DB declares (search_documents: one per record type).
      and not exists (select 1 from pg_class r join pg_namespace rn on rn.oid = r.relnamespace
        where rn.nspname = c.table_schema and r.relname = c.table_name and r.relispartition)
    order by c.table_name, c.ordinal_position
  `.execute(db);
  const schema: Schema<ActualColumn> = new Map();
  for (const row of rows) {
    const columns = schema.get(row.table_name) ?? new Map<string, ActualColumn>();
    columns.set(row.column_name, toActualColumn(row));
    schema.set(row.table_name, columns);
  }
  return schema;
}

function toActualColumn(row: ColumnRow): ActualColumn {
  const isArray = row.data_type === 'ARRAY';
  return { sqlType: isArray ? row.udt_name.slice(1) : row.udt_name, isArray, isEnum: row.is_enum, nullable: row.is_nullable === 'YES' };
}

// ---- the declared DB interface ----

function loadChecker(): { checker: ts.TypeChecker; schemaFile: ts.SourceFile } {
  const config = ts.readConfigFile(TSCONFIG_FILE, (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, fileURLToPath(new URL('..', import.meta.url)));
  const program = ts.createProgram([SCHEMA_FILE], { ...options, noEmit: true });
  const schemaFile = program.getSourceFile(SCHEMA_FILE);
  if (!schemaFile) throw new Error(`cannot load ${SCHEMA_FILE}`);
  return { checker: program.getTypeChecker(), schemaFile };
}

function readDeclaredSchema(): Schema<DeclaredColumn> {
  const { checker, schemaFile } = loadChecker();
  const moduleSymbol = checker.getSymbolAtLocation(schemaFile);
  const dbSymbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === 'DB');
  if (!dbSymbol) throw new Error('schema.ts exports no DB interface');
  const schema: Schema<DeclaredColumn> = new Map();
  for (const table of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(dbSymbol))) {
    const columns = new Map<string, DeclaredColumn>();
    for (const column of checker.getPropertiesOfType(checker.getTypeOfSymbol(table))) {
      columns.set(column.name, describeColumn(checker, selectMembers(checker, checker.getTypeOfSymbol(column))));
    }
    schema.set(table.name, columns);
  }
  return schema;
}

/** The members of what a select returns: ColumnType<S, I, U> (Generated, JSONColumnType, ...) reads as S. */
function selectMembers(checker: ts.TypeChecker, type: ts.Type): ts.Type[] {
  return unionMembers(type).flatMap((member) => {
    const select = member.getProperty('__select__');
    return select ? unionMembers(checker.getTypeOfSymbol(select)) : [member];
  });
}

const unionMembers = (type: ts.Type): ts.Type[] => (type.isUnion() ? type.types : [type]);
const isNull = (type: ts.Type): boolean => (type.flags & ts.TypeFlags.Null) !== 0;

function describeColumn(checker: ts.TypeChecker, members: ts.Type[]): DeclaredColumn {
  const arrays = members.filter((m) => checker.isArrayType(m));
  const elements = arrays.flatMap((m) => checker.getTypeArguments(m as ts.TypeReference).flatMap(unionMembers));
  return {
    typeText: [...members.filter((m) => !isNull(m)), ...members.filter(isNull)].map((m) => checker.typeToString(m)).join(' | '),
    kinds: members.map((m) => kindOf(checker, m)),
    elementKinds: elements.map((m) => kindOf(checker, m)),
  };
}

function kindOf(checker: ts.TypeChecker, type: ts.Type): Kind {
  const f = type.flags;
  if (isNull(type)) return 'null';
  if (f & ts.TypeFlags.StringLiteral) return 'string literal';
  if (f & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral)) return 'string';
  if (f & ts.TypeFlags.NumberLike) return 'number';
  if (f & ts.TypeFlags.BooleanLike) return 'boolean';
  if (f & ts.TypeFlags.BigIntLike) return 'bigint';
  if (f & ts.TypeFlags.Unknown) return 'unknown';
  if (checker.isArrayType(type)) return 'array';
  const name = type.getSymbol()?.name;
  if (name === 'Date') return 'Date';
  if (name === 'Buffer' || name === 'Uint8Array') return 'Buffer or Uint8Array';
  if (f & ts.TypeFlags.Object) return 'object';
  return 'other'; // any, undefined, never, ...: no column reads as these
}

// ---- the comparison ----

function compareSchemas(actual: Schema<ActualColumn>, declared: Schema<DeclaredColumn>): string[] {
  const problems: string[] = [];
  for (const table of difference(actual.keys(), declared.keys())) problems.push(`${table}: table is in the database but not declared in DB`);
  for (const table of difference(declared.keys(), actual.keys())) problems.push(`${table}: table is declared in DB but not in the database`);
  for (const [table, actualColumns] of actual) {
    const declaredColumns = declared.get(table);
    if (declaredColumns) problems.push(...compareTable(table, actualColumns, declaredColumns));
  }
  return problems;
}

function compareTable(table: string, actual: Map<string, ActualColumn>, declared: Map<string, DeclaredColumn>): string[] {
  const problems: string[] = [];
  for (const column of difference(actual.keys(), declared.keys())) problems.push(`${table}.${column}: column is in the database but not declared`);
  for (const column of difference(declared.keys(), actual.keys())) problems.push(`${table}.${column}: column is declared but not in the database`);
  for (const [column, a] of actual) {
    const d = declared.get(column);
    if (d) problems.push(...compareColumn(a, d).map((problem) => `${table}.${column}: ${problem}`));
  }
  return problems;
}

function compareColumn(actual: ActualColumn, declared: DeclaredColumn): string[] {
  const problems: string[] = [];
  if (actual.nullable !== declared.kinds.includes('null')) {
    problems.push(`${actual.nullable ? 'nullable' : 'not null'} in the database, but declared ${declared.typeText}`);
  }
  const sqlType = `${actual.sqlType}${actual.isArray ? '[]' : ''}`;
  const expected = expectedKinds(actual);
  if (!expected) return [...problems, `SQL type ${sqlType} has no entry in KINDS_BY_SQL_TYPE / ARRAY_ELEMENTS_READ_ALIKE`];
  const fits = onlyKinds(declared.kinds, expected.kinds) && (!expected.elementKinds || onlyKinds(declared.elementKinds, expected.elementKinds));
  if (!fits) problems.push(`SQL type ${sqlType} reads as ${expected.text}, but declared ${declared.typeText}`);
  return problems;
}

/** What the column reads as; undefined for an SQL type the maps above do not know. */
function expectedKinds(actual: ActualColumn): { kinds: readonly Kind[]; elementKinds?: readonly Kind[]; text: string } | undefined {
  if (actual.isArray && actual.isEnum) return { kinds: ['string'], text: "unparsed text ('{a,b}')" };
  const scalar = actual.isEnum ? ENUM_KINDS : KINDS_BY_SQL_TYPE[actual.sqlType];
  if (!scalar) return undefined;
  if (!actual.isArray) return { kinds: scalar, text: scalar.join(' / ') };
  if (!ARRAY_ELEMENTS_READ_ALIKE.includes(actual.sqlType)) return undefined;
  return { kinds: ['array'], elementKinds: scalar, text: `an array of ${scalar.join(' / ')}` };
}

/** Every kind is allowed (or null, checked apart), and there is at least one that is not null. */
const onlyKinds = (kinds: Kind[], allowed: readonly Kind[]): boolean =>
  kinds.some((k) => k !== 'null') && kinds.every((k) => k === 'null' || allowed.includes(k));

const difference = (a: Iterable<string>, b: Iterable<string>): string[] => {
  const other = new Set(b);
  return [...a].filter((x) => !other.has(x)).sort();
};

// ---- the test ----

let database: Database;
beforeAll(async () => { database = await createTestDatabase(); });
afterAll(async () => database.close());

describe(`schema.ts against the migrated database (${engine})`, () => {
  it('declares exactly the tables and columns the migrations create, with their nullability and JS types', async () => {
    const actual = await readActualSchema(database.db);
    const declared = readDeclaredSchema();
    expect(actual.size, 'information_schema lists no tables').toBeGreaterThan(0);
    expect(compareSchemas(actual, declared)).toEqual([]);
  }, 60_000); // type-checking schema.ts with kysely's typings takes several seconds of CPU
});
