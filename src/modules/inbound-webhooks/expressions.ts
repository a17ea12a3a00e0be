import { createRequire } from 'node:module';
import type jsonata from 'jsonata';

/**
 * JSONata for idempotency keys and field mappings: the standard function library, compiled when a
 * configuration is saved, evaluated with limits enforced during evaluation. jsonata checks its
 * `timeout` and `stack` guardrails at every evaluation step (functions included, and `$eval`, which runs
 * in the same environment), so a runaway expression is stopped mid-way, not measured afterwards.
 */
export const EXPRESSION_MAX_LENGTH = 4000;
/** Time one evaluation may take. */
export const EVALUATION_TIME_LIMIT_MS = 100;
/** Nesting of evaluation steps (recursion through user-defined functions counts). */
const STACK_LIMIT = 250;
/** Longest sequence an expression may build. */
const SEQUENCE_LIMIT = 100_000;
/** Largest result (serialized) one expression may produce. */
export const RESULT_MAX_BYTES = 256 * 1024;

export interface ExpressionProblem {
  message: string;
  /** Character offset of a syntax error in the expression (1-based, as jsonata reports it). */
  position: number | null;
  code: string | null;
}

export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
    readonly position: number | null,
    readonly reason: 'error' | 'timeout' | 'too_large',
  ) {
    super(message);
    this.name = 'ExpressionError';
  }
}

interface JsonataFailure {
  code?: string;
  position?: number;
  message?: string;
  token?: string;
}

// jsonata is loaded when the first expression is compiled, not at start-up (~10 MB resident).
const require = createRequire(import.meta.url);
let jsonataFn: typeof jsonata | undefined;

const compiled = new Map<string, jsonata.Expression>();
const CACHE_MAX = 1000;

function compile(source: string): jsonata.Expression {
  const hit = compiled.get(source);
  if (hit) return hit;
  jsonataFn ??= require('jsonata') as typeof jsonata;
  const expr = jsonataFn(source, { timeout: EVALUATION_TIME_LIMIT_MS, stack: STACK_LIMIT, sequence: SEQUENCE_LIMIT });
  if (compiled.size >= CACHE_MAX) compiled.delete(compiled.keys().next().value!);
  compiled.set(source, expr);
  return expr;
}

/** The syntax problem of an expression, or undefined when it compiles. */
export function checkExpression(source: string): ExpressionProblem | undefined {
  if (source.trim() === '') return { message: 'the expression is empty', position: null, code: null };
  try {
    compile(source);
    return undefined;
  } catch (err) {
    const e = err as JsonataFailure;
    return { message: e.message ?? 'the expression does not compile', position: typeof e.position === 'number' ? e.position : null, code: e.code ?? null };
  }
}

/** Whether a JSON value nests deeper than `max` (iterative: safe on hostile input). */
export function nestsDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** JSON.stringify replacer: functions and jsonata lambdas (which reference their environment) are no data. */
function dropFunctions(_key: string, value: unknown): unknown {
  if (typeof value === 'function') return undefined;
  if (value !== null && typeof value === 'object' && ('_jsonata_lambda' in value || '_jsonata_function' in value)) return undefined;
  return value;
}

/**
 * Evaluates `source` against `input` (the request body is the root `$`); `bindings` become variables
 * (`$headers`). The result is plain JSON: undefined when the expression selects nothing, functions
 * dropped, sequences flattened to arrays. Throws ExpressionError on any failure.
 */
export async function evaluateExpression(source: string, input: unknown, bindings: Record<string, unknown> = {}): Promise<unknown> {
  let result: unknown;
  try {
    result = await compile(source).evaluate(input, bindings);
  } catch (err) {
    if (err instanceof RangeError) throw new ExpressionError('the expression recursed too deeply', null, null, 'error');
    const e = err as JsonataFailure;
    if (e.code === 'D1012') throw new ExpressionError(`the expression ran longer than ${EVALUATION_TIME_LIMIT_MS} ms and was stopped`, e.code, e.position ?? null, 'timeout');
    throw new ExpressionError(e.message ?? 'the expression failed', e.code ?? null, typeof e.position === 'number' ? e.position : null, 'error');
  }
  if (result === undefined) return undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(result, dropFunctions);
  } catch {
    throw new ExpressionError('the expression produced a value that is not JSON', null, null, 'error');
  }
  if (text === undefined) return undefined;
  if (Buffer.byteLength(text, 'utf8') > RESULT_MAX_BYTES) {
    throw new ExpressionError(`the expression produced more than ${RESULT_MAX_BYTES / 1024} KiB`, null, null, 'too_large');
  }
  return JSON.parse(text) as unknown;
}
