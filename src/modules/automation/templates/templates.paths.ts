/**
 * Dotted paths into a rule definition (`actions.1.config.board_id`): a numeric segment indexes an array,
 * any other segment names an object's own key. Used to place a template's variables.
 */

export const segmentsOf = (path: string): string[] => path.split('.');

const isIndex = (s: string) => /^(0|[1-9][0-9]{0,5})$/.test(s);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether the path names a value that is present (an own key with a value other than undefined). */
export function hasPath(root: unknown, path: string): boolean {
  let cur: unknown = root;
  for (const seg of segmentsOf(path)) {
    if (Array.isArray(cur)) {
      if (!isIndex(seg) || Number(seg) >= cur.length) return false;
      cur = cur[Number(seg)];
    } else if (isObject(cur)) {
      if (!Object.hasOwn(cur, seg)) return false;
      cur = cur[seg];
    } else return false;
    if (cur === undefined) return false;
  }
  return true;
}

function parentOf(root: unknown, path: string): { parent: unknown; key: string } {
  const segs = segmentsOf(path);
  let cur: unknown = root;
  for (const seg of segs.slice(0, -1)) cur = Array.isArray(cur) ? cur[Number(seg)] : (cur as Record<string, unknown>)[seg];
  return { parent: cur, key: segs[segs.length - 1]! };
}

/** Replaces the value at a path that exists (hasPath). */
export function setPath(root: unknown, path: string, value: unknown): void {
  const { parent, key } = parentOf(root, path);
  if (Array.isArray(parent)) parent[Number(key)] = value;
  else (parent as Record<string, unknown>)[key] = value;
}

/** Leaves a value out: an object's key is removed, an array element becomes null (the other indexes stay). */
export function unsetPath(root: unknown, path: string): void {
  const { parent, key } = parentOf(root, path);
  if (Array.isArray(parent)) parent[Number(key)] = null;
  else delete (parent as Record<string, unknown>)[key];
}

/** Whether one path is the other or lies inside it. */
export const overlaps = (a: string, b: string): boolean => a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
