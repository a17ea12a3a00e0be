import { RE2JS } from 're2js';
import type { RuleCondition } from '../../../platform/db/schema.automation.ts';
import { CONDITION_OPERATORS, type ConditionOperator, type TriggerEnvelope } from '../automation.types.ts';
import { ENVELOPE_ROOTS, getPath, pathProblem } from './paths.ts';

/**
 * A rule's conditions over its trigger's envelope.
 *
 * Semantics (GET /automation/meta describes the operators; this is the reference):
 * - `field` is a dotted path into the envelope (`data.priority_name`); a missing path reads as undefined.
 * - `equals` / `not_equals` compare strictly (JSON values; arrays and objects deeply). The one coercion: when
 *   one side is a number and the other a numeric string (`"5"`, `" 5.0 "`), they compare as numbers — so a
 *   condition written `"value": "5"` matches `5` and the reverse. Nothing else is coerced (`"true"` is not true).
 * - `greater_than`, `less_than`, `…_or_equal` compare numbers (or numeric strings), or two ISO 8601 dates
 *   (`2026-11-25` or a full timestamp). Anything else (a missing field, a word, a date against a number) is false.
 * - `contains` / `not_contains`: substring of a string (case-sensitive), or membership in an array (by `equals`).
 * - `starts_with` / `ends_with`: strings only (case-sensitive).
 * - `in` / `not_in`: the value is an array; the field's value is one of its members (by `equals`).
 * - `exists` / `not_exists`: the path is present and not null (no `value`).
 * - `regex_match`: RE2 syntax (re2js: linear time, no backtracking, so no pattern can hang the worker),
 *   unanchored search (`^…$` to anchor; `(?i)` for case-insensitive); the pattern is at most 500 characters
 *   and the input at most 10,000 (a longer input does not match). Numbers are matched as their text.
 * - Every `not_*` operator is the exact negation of its positive (a missing field does not contain, is not in,
 *   is not equal to anything).
 * - `and` needs every condition, `or` at least one; no conditions always match. All conditions are evaluated
 *   (no short-circuit) so logs and dry runs show each result.
 */

export const MAX_REGEX_LENGTH = 500;
export const MAX_REGEX_INPUT = 10_000;
const MAX_IN_VALUES = 1000;
const SHOWN_STRING = 500;

export interface ConditionResult {
  field: string;
  operator: string;
  value: unknown;
  /** The field's value (long strings cut to 500 characters); undefined (absent) when the path leads nowhere. */
  actual: unknown;
  passed: boolean;
  /** Why the condition could not be evaluated (an invalid pattern, a too-long input): it counts as failed. */
  error?: string;
}

export interface ConditionsOutcome {
  matched: boolean;
  results: ConditionResult[];
}

const isNumericString = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v));
const ISO_DATE_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const isIsoDate = (v: unknown): v is string => typeof v === 'string' && ISO_DATE_RE.test(v) && !Number.isNaN(Date.parse(v));

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** `equals` as documented above: strict, deep, with number ↔ numeric-string coercion only. */
export function looseEquals(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && isNumericString(b)) return a === Number(b);
  if (typeof b === 'number' && isNumericString(a)) return b === Number(a);
  return deepEqual(a, b);
}

/** Compares two orderable values: numbers (or numeric strings) or ISO dates; undefined when not comparable. */
function compare(a: unknown, b: unknown): number | undefined {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : isNumericString(v) ? Number(v) : undefined);
  const na = num(a);
  const nb = num(b);
  if (na !== undefined && nb !== undefined) return na - nb;
  if (isIsoDate(a) && isIsoDate(b)) return Date.parse(a) - Date.parse(b);
  return undefined;
}

const regexCache = new Map<string, RE2JS>();

/** Compiles an RE2 pattern (cached); throws with a readable message when it is invalid or too long. */
function compileRegex(pattern: string): RE2JS {
  const cached = regexCache.get(pattern);
  if (cached) return cached;
  if (pattern.length > MAX_REGEX_LENGTH) throw new Error(`the pattern is longer than ${MAX_REGEX_LENGTH} characters`);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (err) {
    throw new Error(`invalid RE2 pattern: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (regexCache.size >= 1000) regexCache.delete(regexCache.keys().next().value!);
  regexCache.set(pattern, compiled);
  return compiled;
}

function contains(actual: unknown, value: unknown): boolean {
  if (typeof actual === 'string') return typeof value === 'string' && actual.includes(value);
  if (Array.isArray(actual)) return actual.some((v) => looseEquals(v, value));
  return false;
}

function test(operator: ConditionOperator, actual: unknown, value: unknown): boolean {
  switch (operator) {
    case 'equals': return looseEquals(actual, value);
    case 'not_equals': return !looseEquals(actual, value);
    case 'greater_than': { const c = compare(actual, value); return c !== undefined && c > 0; }
    case 'less_than': { const c = compare(actual, value); return c !== undefined && c < 0; }
    case 'greater_than_or_equal': { const c = compare(actual, value); return c !== undefined && c >= 0; }
    case 'less_than_or_equal': { const c = compare(actual, value); return c !== undefined && c <= 0; }
    case 'contains': return contains(actual, value);
    case 'not_contains': return !contains(actual, value);
    case 'starts_with': return typeof actual === 'string' && typeof value === 'string' && actual.startsWith(value);
    case 'ends_with': return typeof actual === 'string' && typeof value === 'string' && actual.endsWith(value);
    case 'in': return Array.isArray(value) && value.some((v) => looseEquals(actual, v));
    case 'not_in': return !(Array.isArray(value) && value.some((v) => looseEquals(actual, v)));
    case 'exists': return actual !== undefined && actual !== null;
    case 'not_exists': return actual === undefined || actual === null;
    case 'regex_match': {
      if (typeof value !== 'string') throw new Error('the value must be a pattern (a string)');
      const re = compileRegex(value);
      const input = typeof actual === 'number' || typeof actual === 'boolean' ? String(actual) : actual;
      if (typeof input !== 'string') return false;
      if (input.length > MAX_REGEX_INPUT) throw new Error(`the input is longer than ${MAX_REGEX_INPUT} characters`);
      return re.test(input);
    }
  }
}

const shown = (v: unknown): unknown => (typeof v === 'string' && v.length > SHOWN_STRING ? `${v.slice(0, SHOWN_STRING)}…` : v);

export function evaluateCondition(condition: RuleCondition, envelope: TriggerEnvelope | Record<string, unknown>): ConditionResult {
  const actual = getPath(envelope, condition.field);
  const base = { field: condition.field, operator: condition.operator, value: condition.value, actual: shown(actual) };
  if (!(CONDITION_OPERATORS as readonly string[]).includes(condition.operator)) {
    return { ...base, passed: false, error: `unknown operator '${condition.operator}'` };
  }
  try {
    return { ...base, passed: test(condition.operator as ConditionOperator, actual, condition.value) };
  } catch (err) {
    return { ...base, passed: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** Evaluates every condition; `and` needs all to pass, `or` one (an empty list matches). */
export function evaluateConditions(conditions: readonly RuleCondition[], logic: 'and' | 'or' | string, envelope: TriggerEnvelope | Record<string, unknown>): ConditionsOutcome {
  const results = conditions.map((c) => evaluateCondition(c, envelope));
  if (results.length === 0) return { matched: true, results };
  const matched = logic === 'or' ? results.some((r) => r.passed) : results.every((r) => r.passed);
  return { matched, results };
}

/** The first log line of a triggered execution: what triggered it and how its conditions went. */
export function conditionsLog(trigger: string, results: readonly ConditionResult[], logic: string, overridden = false): { message: string; metadata: Record<string, unknown> } {
  const passed = results.filter((r) => r.passed).length;
  const summary = results.length === 0
    ? 'no conditions'
    : `${passed} of ${results.length} conditions passed (${logic})${overridden ? ', conditions overridden' : ''}`;
  return { message: `${trigger}: ${summary}`, metadata: { conditions: results, condition_logic: logic, ...(overridden ? { override_conditions: true } : {}) } };
}

const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/**
 * Checks one condition's shape beyond its JSON schema (for the rules API): a valid path, a known operator,
 * a value that fits it (an array for in/not_in, a number/numeric string/ISO date for the comparisons, a
 * string for starts/ends_with, a valid RE2 pattern of ≤ 500 characters for regex_match, none needed for
 * exists/not_exists). Returns null when valid, else the problem (the caller adds the path).
 */
export function validateCondition(condition: { field?: unknown; operator?: unknown; value?: unknown }, roots: readonly string[] = ENVELOPE_ROOTS): string | null {
  if (typeof condition.field !== 'string') return 'field must be a string';
  const p = pathProblem(condition.field, roots);
  if (p) return `field ${p}`;
  const op = condition.operator;
  if (typeof op !== 'string' || !(CONDITION_OPERATORS as readonly string[]).includes(op)) return `operator must be one of ${CONDITION_OPERATORS.join(', ')}`;
  const value = condition.value;
  switch (op as ConditionOperator) {
    case 'exists':
    case 'not_exists':
      return null;
    case 'in':
    case 'not_in':
      if (!Array.isArray(value)) return `${op} needs an array value`;
      if (value.length > MAX_IN_VALUES) return `${op} takes at most ${MAX_IN_VALUES} values`;
      return value.every(isScalar) ? null : `${op} values must be strings, numbers, booleans or null`;
    case 'greater_than':
    case 'less_than':
    case 'greater_than_or_equal':
    case 'less_than_or_equal':
      return (typeof value === 'number' && Number.isFinite(value)) || isNumericString(value) || isIsoDate(value)
        ? null
        : `${op} needs a number or an ISO 8601 date value`;
    case 'starts_with':
    case 'ends_with':
      return typeof value === 'string' ? null : `${op} needs a string value`;
    case 'contains':
    case 'not_contains':
      return value !== undefined && isScalar(value) ? null : `${op} needs a string (substring) or a scalar (array member) value`;
    case 'equals':
    case 'not_equals':
      return value === undefined ? `${op} needs a value` : null;
    case 'regex_match':
      if (typeof value !== 'string') return 'regex_match needs a pattern (a string)';
      try {
        compileRegex(value);
        return null;
      } catch (err) {
        return `regex_match: ${err instanceof Error ? err.message : String(err)}`;
      }
  }
}
