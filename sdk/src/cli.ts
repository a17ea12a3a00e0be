#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import {
  binaryBody,
  DEFAULT_BASE_URL,
  errorBody,
  executeOperation,
  fetchAll,
  findOperation,
  InputError,
  isEntryPoint,
  loadOperations,
  type JsonSchema,
  type Operation,
} from './operations.ts';
import { createTransport } from './http.ts';

/**
 * psa-api: every operation of the PSA API from the shell, generated from the bundled OpenAPI document.
 * Exit codes: 0 done, 1 the API (or the network) refused, 2 the command line is wrong.
 */

export interface CliIo {
  stdout: { write(chunk: string | Uint8Array): unknown };
  stderr: { write(chunk: string): unknown };
  env: Record<string, string | undefined>;
}

const USAGE = `Usage:
  psa-api operations [--tag <tag>]                 list the operations
  psa-api <operationId> --help                     the operation's parameters
  psa-api <operationId> [--<param> <value> ...] [--body '<json>' | --body @file.json] [--all] [--base-url <url>]

Environment: PSA_API_KEY (required for calls), PSA_URL (default ${DEFAULT_BASE_URL}).
Repeat a flag to pass a list; --all follows every page of a list and prints one JSON array.
`;

class UsageError extends Error {}

/** Each flag's values in order; null for a bare `--name` (no value follows it). */
type Flags = Map<string, (string | null)[]>;

/** Flags that never take a value, so that `--all 5` is not read as all=5. */
const SWITCHES = new Set(['all', 'help']);

/** `--name value`, `--name=value`, and a bare `--name`, which only a switch or a boolean parameter may be. */
function parseFlags(args: string[]): Flags {
  const flags: Flags = new Map();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--') || arg === '--') throw new UsageError(`unexpected argument '${arg}'`);
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    let value: string | null = null;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (!SWITCHES.has(name) && i + 1 < args.length && !args[i + 1]!.startsWith('--')) value = args[++i]!;
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return flags;
}

/** The one value of a CLI-level flag (--body, --base-url, --tag). */
function single(flags: Flags, name: string): string | undefined {
  const values = flags.get(name);
  if (values && values.length > 1) throw new UsageError(`--${name} given more than once`);
  if (values?.[0] === null) throw new UsageError(`--${name} needs a value`);
  return values?.[0];
}

/** The schema's own type, or the first non-null one of a union such as ["string", "null"]. */
function typeOf(schema: JsonSchema | undefined): string | undefined {
  if (!schema) return undefined;
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x) => x !== 'null') as string | undefined;
  return undefined;
}

function coerce(name: string, raw: string | null, schema: JsonSchema | undefined): unknown {
  if (raw === null) {
    if (typeOf(schema) === 'boolean') return true;
    throw new UsageError(`--${name} needs a value`);
  }
  switch (typeOf(schema)) {
    case 'integer':
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || (typeOf(schema) === 'integer' && !Number.isInteger(n))) {
        throw new UsageError(`--${name} must be ${typeOf(schema) === 'integer' ? 'an integer' : 'a number'}, not '${raw}'`);
      }
      return n;
    }
    case 'boolean':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      throw new UsageError(`--${name} must be true or false, not '${raw}'`);
    default:
      return raw;
  }
}

function readBody(spec: string): unknown {
  let text = spec;
  if (spec.startsWith('@')) {
    try {
      text = readFileSync(spec.slice(1), 'utf8');
    } catch (err) {
      throw new UsageError(`--body ${spec}: ${(err as Error).message}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`--body is not JSON: ${(err as Error).message}`);
  }
}

const RESERVED = new Set(['body', 'all', 'base-url', 'help']);

/** The flat input of an operation from its flags, each value coerced to its parameter's type. */
function inputFrom(op: Operation, flags: Flags): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [flag, values] of flags) {
    if (RESERVED.has(flag)) continue;
    // --client-type works as well as --client_type.
    const name = flag in op.inputSchema.properties ? flag : flag.replaceAll('-', '_');
    const schema = op.inputSchema.properties[name];
    if (!schema || name === 'body') throw new UsageError(`${op.operationId} has no parameter --${flag} (see: psa-api ${op.operationId} --help)`);
    if (typeOf(schema) === 'array') input[name] = values.map((v) => coerce(flag, v, schema.items as JsonSchema | undefined));
    else if (values.length > 1) throw new UsageError(`--${flag} given more than once`);
    else input[name] = coerce(flag, values[0]!, schema);
  }
  const body = single(flags, 'body');
  if (body !== undefined) {
    if (!op.hasBody) throw new UsageError(`${op.operationId} takes no --body`);
    input.body = readBody(body);
  }
  const missing = op.inputSchema.required.filter((n) => input[n] === undefined);
  if (missing.length > 0) throw new UsageError(`${op.operationId} needs ${missing.map((n) => `--${n}`).join(', ')}`);
  return input;
}

function describe(op: Operation): string {
  const lines = [`${op.operationId}: ${op.method} ${op.path}`, op.summary];
  if (op.description) lines.push('', op.description);
  if (op.requiresApproval) lines.push('', 'Requires approval when an AI agent calls it.');
  lines.push('', 'Parameters:');
  for (const [name, schema] of Object.entries(op.inputSchema.properties)) {
    const type = name === 'body' ? 'JSON' : typeOf(schema) === 'array' ? `${typeOf(schema.items as JsonSchema) ?? 'string'} (repeatable)` : (typeOf(schema) ?? 'string');
    const required = op.inputSchema.required.includes(name) ? ' required' : '';
    const text = typeof schema.description === 'string' && name !== 'body' ? `  ${schema.description}` : '';
    lines.push(`  --${name} <${type}>${required}${text}`);
  }
  if (op.isList) lines.push('  --all  every page, as one JSON array');
  return `${lines.join('\n')}\n`;
}

function listOperations(flags: Flags, io: CliIo): number {
  const unknown = [...flags.keys()].find((name) => name !== 'tag');
  if (unknown !== undefined) throw new UsageError(`operations takes only --tag, not --${unknown}`);
  const tag = single(flags, 'tag')?.toLowerCase();
  const ops = loadOperations().filter((op) => tag === undefined || op.tags.some((t) => t.toLowerCase() === tag));
  const width = Math.max(0, ...ops.map((op) => op.operationId.length));
  for (const op of ops) io.stdout.write(`${op.operationId.padEnd(width)}  ${op.method.padEnd(6)} ${op.path}  ${op.summary}\n`);
  return 0;
}

function printError(io: CliIo, err: unknown): number {
  io.stderr.write(`${JSON.stringify({ error: errorBody(err) }, null, 2)}\n`);
  return 1;
}

async function callOperation(op: Operation, flags: Flags, io: CliIo): Promise<number> {
  const input = inputFrom(op, flags);
  const all = flags.has('all');
  if (all && !op.isList) throw new UsageError(`--all applies to lists only; ${op.operationId} is not one`);
  const apiKey = io.env.PSA_API_KEY;
  if (!apiKey) throw new UsageError('set PSA_API_KEY to an API key');
  const api = createTransport({ baseUrl: single(flags, 'base-url') ?? io.env.PSA_URL ?? DEFAULT_BASE_URL, apiKey, userAgent: 'psa-api' });
  try {
    if (all) {
      io.stdout.write(`${JSON.stringify(await fetchAll(api, op, input), null, 2)}\n`);
      return 0;
    }
    const res = await executeOperation(api, op, input);
    const binary = binaryBody(res);
    if (binary) io.stdout.write(binary.bytes);
    else if (typeof res.body === 'string') io.stdout.write(res.body);
    else if (res.body !== null) io.stdout.write(`${JSON.stringify(res.body, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof InputError) throw new UsageError(err.message);
    return printError(io, err);
  }
}

/** Runs one command line (argv without node and the script); resolves the exit code. */
export async function main(argv: string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) {
      io.stderr.write(USAGE);
      return 2;
    }
    if (command === '--help' || command === 'help') {
      io.stdout.write(USAGE);
      return 0;
    }
    const flags = parseFlags(rest);
    if (command === 'operations') return listOperations(flags, io);
    const op = findOperation(command);
    if (!op) throw new UsageError(`unknown operation '${command}' (psa-api operations lists them)`);
    if (flags.has('help')) {
      io.stdout.write(describe(op));
      return 0;
    }
    return await callOperation(op, flags, io);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`psa-api: ${err.message}\n`);
    return 2;
  }
}

if (isEntryPoint(import.meta.url)) {
  // `psa-api operations | head` closes the pipe early: that ends the output, it is not a crash.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
  process.exitCode = await main(process.argv.slice(2));
}
