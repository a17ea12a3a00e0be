import { AppError } from '../../platform/http/errors.ts';
import { UUID_RE } from '../../platform/ids.ts';
import type { ActionDefinition, ActionInput, TargetField } from '../../platform/actions/action.ts';
import { ExpressionError, evaluateExpression } from './expressions.ts';

/**
 * Field mapping: each target field of the action is a JSONata expression over the request body
 * (`$headers` holds the filtered request headers). The values are then checked against the field's
 * type. Every failure is a 422 naming the field, and nothing is written.
 */

const mappingError = (message: string, details: Record<string, unknown>): AppError => new AppError('UNPROCESSABLE', message, details);

function invalid(field: TargetField, message: string): AppError {
  return mappingError(`Field '${field.name}' ${message}`, { reason: 'invalid_field', field: field.name, message });
}

const BOOLEAN_WORDS: Record<string, boolean> = { true: true, false: false, yes: true, no: false, '1': true, '0': false };

/** The value of one target field, typed; undefined when the sender gave none. */
export function coerceField(field: TargetField, raw: unknown): unknown {
  let v = raw;
  if (v === undefined) return undefined;
  if (Array.isArray(v) && field.type !== 'json') {
    if (v.length !== 1) throw invalid(field, `expects one ${field.type} value, got an array of ${v.length}`);
    v = v[0];
  }
  if (v === null) return field.nullable ? null : undefined;
  switch (field.type) {
    case 'string': {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw invalid(field, 'expects text, got an object');
      const s = String(v);
      if (s.trim() === '') return field.nullable ? null : undefined;
      if (field.max_length !== undefined && s.length > field.max_length) throw invalid(field, `is longer than ${field.max_length} characters`);
      return s;
    }
    case 'integer': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d{1,15}\s*$/.test(v) ? Number(v) : NaN;
      if (!Number.isSafeInteger(n)) throw invalid(field, `expects an integer, got ${JSON.stringify(v).slice(0, 50)}`);
      return n;
    }
    case 'number': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      if (!Number.isFinite(n)) throw invalid(field, `expects a number, got ${JSON.stringify(v).slice(0, 50)}`);
      return n;
    }
    case 'boolean': {
      if (typeof v === 'boolean') return v;
      const word = typeof v === 'string' || typeof v === 'number' ? BOOLEAN_WORDS[String(v).trim().toLowerCase()] : undefined;
      if (word === undefined) throw invalid(field, `expects true or false, got ${JSON.stringify(v).slice(0, 50)}`);
      return word;
    }
    case 'enum': {
      const s = typeof v === 'string' || typeof v === 'number' ? String(v).trim().toLowerCase() : undefined;
      const match = s === undefined ? undefined : field.enum_values?.find((e) => e.toLowerCase() === s);
      if (match === undefined) throw invalid(field, `must be one of: ${(field.enum_values ?? []).join(', ')}`);
      return match;
    }
    case 'ref': {
      if (typeof v !== 'string' || !UUID_RE.test(v.trim())) throw invalid(field, `expects the UUID of a ${field.ref_entity ?? 'record'}`);
      return v.trim().toLowerCase();
    }
    case 'json':
      return v;
  }
}

export interface MappingInput {
  body: unknown;
  headers: Record<string, string>;
}

/** Evaluates every mapped target field and types the results; required fields must come out present. */
export async function mapFields(action: ActionDefinition, mapping: Record<string, string>, input: MappingInput): Promise<ActionInput> {
  const out: ActionInput = {};
  for (const field of action.target_fields) {
    const source = mapping[field.name];
    if (source === undefined) continue;
    let value: unknown;
    try {
      value = await evaluateExpression(source, input.body, { headers: input.headers });
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      throw mappingError(`The mapping of '${field.name}' failed: ${err.message}`, {
        reason: err.reason === 'timeout' ? 'mapping_timeout' : 'mapping_failed',
        field: field.name,
        message: err.message,
        ...(err.code ? { jsonata_code: err.code } : {}),
        ...(err.position !== null ? { position: err.position } : {}),
      });
    }
    const typed = coerceField(field, value);
    if (typed !== undefined) out[field.name] = typed;
  }
  const missing = action.target_fields.filter((f) => f.required && (out[f.name] === undefined || out[f.name] === null)).map((f) => f.name);
  if (missing.length > 0) {
    throw mappingError(`Required field(s) ${missing.join(', ')} came out empty for this body`, { reason: 'missing_field', fields: missing });
  }
  return out;
}
