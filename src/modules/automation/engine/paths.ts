/**
 * Dotted paths into a trigger's envelope (`data.priority_name`, `changes.status_id.new`, `data.tags.0`).
 * A segment is a property name (own properties only: `__proto__` and friends name nothing) or, on an
 * array, an index. A path that leads nowhere reads as undefined.
 */

export const PATH_RE = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+){0,15}$/;
export const MAX_PATH_LENGTH = 255;

/** The envelope's top-level members a path may start with (see TriggerEnvelope). */
export const ENVELOPE_ROOTS = ['event_type', 'data', 'changes', 'headers', 'trigger'] as const;

/**
 * One more root for the conditions of event rules: `current`, the record the event is about as it is when the
 * execution runs (engine/current.ts), not as the event saw it.
 */
export const CURRENT_ROOT = 'current';
export const EVENT_CONDITION_ROOTS: readonly string[] = [...ENVELOPE_ROOTS, CURRENT_ROOT];

/** Whether a condition reads `current` (it is decided when the execution runs, not when the event arrives). */
export const readsCurrent = (condition: { field: string }): boolean => condition.field === CURRENT_ROOT || condition.field.startsWith(`${CURRENT_ROOT}.`);

/** Null when `path` is a valid envelope path (starting at one of `roots`), else why not. */
export function pathProblem(path: string, roots: readonly string[] = ENVELOPE_ROOTS): string | null {
  if (path.length === 0 || path.length > MAX_PATH_LENGTH || !PATH_RE.test(path)) {
    return `'${path.slice(0, 50)}' is not a dotted path (letters, digits, _ and - segments separated by dots, at most ${MAX_PATH_LENGTH} characters)`;
  }
  const root = path.split('.', 1)[0]!;
  if (!roots.includes(root)) return `'${path.slice(0, 50)}' must start with one of ${roots.join(', ')}`;
  return null;
}

export function getPath(root: unknown, path: string): unknown {
  let current: unknown = root;
  for (const segment of path.split('.')) {
    if (current === null || current === undefined) return undefined;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (typeof current === 'object') {
      if (!Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}
