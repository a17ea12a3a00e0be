import type { TriggerEnvelope } from '../automation.types.ts';
import { getPath } from './paths.ts';

/**
 * `{{path}}` placeholders in an action's config (any string, at any depth; object keys are never templated).
 *
 * - A string that is exactly one placeholder (`"{{data.ticket_id}}"`, spaces inside the braces allowed)
 *   takes the value itself, whatever its type (a number stays a number, an array an array, null stays null).
 * - Placeholders inside a longer string are replaced by their text: strings as they are, numbers and
 *   booleans as text, objects and arrays as JSON, null as the empty string.
 * - A path that leads nowhere (undefined) is an error of the step — `placeholder data.x has no value` — so
 *   an action never runs with a silently empty id.
 */

const PLACEHOLDER_RE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;
const EXACT_RE = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\s*\}\}$/;

export class PlaceholderError extends Error {
  constructor(readonly path: string) {
    super(`placeholder ${path} has no value`);
    this.name = 'PlaceholderError';
  }
}

const text = (v: unknown): string => (v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

function fillString(s: string, envelope: TriggerEnvelope | Record<string, unknown>): unknown {
  if (!s.includes('{{')) return s;
  const exact = EXACT_RE.exec(s);
  if (exact) {
    const value = getPath(envelope, exact[1]!);
    if (value === undefined) throw new PlaceholderError(exact[1]!);
    return value;
  }
  return s.replace(PLACEHOLDER_RE, (_m, path: string) => {
    const value = getPath(envelope, path);
    if (value === undefined) throw new PlaceholderError(path);
    return text(value);
  });
}

function fill(value: unknown, envelope: TriggerEnvelope | Record<string, unknown>): unknown {
  if (typeof value === 'string') return fillString(value, envelope);
  if (Array.isArray(value)) return value.map((v) => fill(v, envelope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, envelope)]));
  }
  return value;
}

/** The config with every placeholder filled from the envelope; throws PlaceholderError for a path with no value. */
export function fillPlaceholders<T extends Record<string, unknown>>(config: T, envelope: TriggerEnvelope | Record<string, unknown>): Record<string, unknown> {
  return fill(config, envelope) as Record<string, unknown>;
}

/** Every placeholder path the config uses (each once, in order of appearance). */
export function placeholderPaths(config: unknown): string[] {
  const paths = new Set<string>();
  const walk = (v: unknown) => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(PLACEHOLDER_RE)) paths.add(m[1]!);
    } else if (Array.isArray(v)) {
      v.forEach(walk);
    } else if (v !== null && typeof v === 'object') {
      Object.values(v).forEach(walk);
    }
  };
  walk(config);
  return [...paths];
}
