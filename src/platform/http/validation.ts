import { Ajv, type Options } from 'ajv';
import * as addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// ajv-formats ships CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule.default as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ strict: false, useDefaults: true, removeAdditional: false, allErrors: true, ...options });
  addFormats(ajv);
  return ajv;
}

/**
 * Bodies are validated strictly (a string "5" is not the integer 5); query strings, path parameters
 * and headers arrive as text, so they are coerced. Unknown fields are never dropped silently: every
 * schema says additionalProperties: false and ajv reports them.
 */
export function registerValidators(app: FastifyInstance): void {
  const body = makeAjv({ coerceTypes: false });
  const text = makeAjv({ coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? body : text).compile(schema));
}
