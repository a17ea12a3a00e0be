import { validation } from '../../../platform/http/errors.ts';
import type { FieldDefinition } from '../../../platform/db/builtin-asset-types.ts';
import { DEFAULT_STRING_MAX } from './types.schemas.ts';

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isCalendarDate(s: string): boolean {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

/**
 * A type's field schema, checked at save: keys unique, enum values only (and always) on enum fields,
 * max_length only on string fields. Returns the list normalised (required always present).
 */
export function checkFieldSchema(fields: readonly FieldDefinition[], path = 'body.field_schema'): FieldDefinition[] {
  const seen = new Set<string>();
  return fields.map((f, i) => {
    const at = `${path}[${i}]`;
    if (seen.has(f.key)) throw validation(`${at}.key`, `duplicate key '${f.key}'`);
    seen.add(f.key);
    if (f.label.trim() === '') throw validation(`${at}.label`, 'must not be blank');
    if (f.type === 'enum') {
      if (!f.enum_values) throw validation(`${at}.enum_values`, 'an enum field needs enum_values');
      if (new Set(f.enum_values).size !== f.enum_values.length) throw validation(`${at}.enum_values`, 'values must be unique');
    } else if (f.enum_values !== undefined) {
      throw validation(`${at}.enum_values`, `only enum fields take enum_values (this one is ${f.type})`);
    }
    if (f.max_length !== undefined && f.type !== 'string') throw validation(`${at}.max_length`, `only string fields take max_length (this one is ${f.type})`);
    const out: FieldDefinition = { key: f.key, label: f.label.trim(), type: f.type, required: f.required ?? false };
    if (f.enum_values) out.enum_values = [...f.enum_values];
    if (f.max_length !== undefined) out.max_length = f.max_length;
    return out;
  });
}

function checkValue(f: FieldDefinition, value: unknown, at: string): void {
  const wrong = (what: string) => validation(at, `attribute '${f.key}' must be ${what}`);
  switch (f.type) {
    case 'string': {
      const max = f.max_length ?? DEFAULT_STRING_MAX;
      if (typeof value !== 'string') throw wrong('a string');
      if (value.length > max) throw wrong(`at most ${max} characters`);
      if (value.includes('\u0000')) throw wrong('text without NUL characters');
      return;
    }
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw wrong('a number');
      return;
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw wrong('an integer');
      return;
    case 'boolean':
      if (typeof value !== 'boolean') throw wrong('true or false');
      return;
    case 'date':
      if (typeof value !== 'string' || !isCalendarDate(value)) throw wrong('a date (YYYY-MM-DD)');
      return;
    case 'enum':
      if (typeof value !== 'string' || !(f.enum_values ?? []).includes(value)) throw wrong(`one of ${(f.enum_values ?? []).join(', ')}`);
      return;
  }
}

/**
 * An asset's attributes against its type's schema: unknown keys, wrong types and missing required
 * attributes are a 400 naming the attribute. Null means "no value" (allowed unless required) and is dropped.
 */
export function checkAttributes(fields: readonly FieldDefinition[], attributes: Record<string, unknown>, typeSlug: string, path = 'body.attributes'): Record<string, unknown> {
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(attributes)) {
    const f = byKey.get(key);
    if (!f) throw validation(`${path}.${key.slice(0, 100)}`, `asset type '${typeSlug}' has no attribute '${key.slice(0, 100)}'`);
    if (value === null) continue;
    checkValue(f, value, `${path}.${key}`);
    out[key] = value;
  }
  for (const f of fields) {
    if (f.required && out[f.key] === undefined) throw validation(`${path}.${f.key}`, `attribute '${f.key}' is required by asset type '${typeSlug}'`);
  }
  return out;
}
