import { Ajv, type Options, type ValidateFunction } from 'ajv';
import * as addFormatsModule from 'ajv-formats';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { isListEnvelope, listEnvelopeSerializer } from './list-serializer.ts';

// ajv-formats ships CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule.default as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ strict: false, useDefaults: true, removeAdditional: false, allErrors: true, ...options });
  addFormats(ajv);
  return ajv;
}

type Validate = ((data: unknown) => boolean) & { errors?: ValidateFunction['errors'] };
type Serialize = (data: unknown) => string;

/**
 * Fastify compiles every route's validators and response serializers when the app starts: with ~460 routes
 * and the documented error responses on each, that was ~2 s of start-up and ~70 MB of heap, mostly for routes a
 * given process never serves. These compilers compile a schema on its first use instead (a few ms, once per
 * route and part); compileAll() compiles every pending one at once, so a test can still prove that all
 * schemas compile.
 */
export interface SchemaCompilers {
  /** Fastify's schemaController option: lazy response serializers (fast-json-stringify, as Fastify's default). */
  schemaController: NonNullable<FastifyServerOptions['schemaController']>;
  /** A validator that compiles on its first call. */
  lazyValidator(compile: () => Validate): Validate;
  /** Compiles every schema not compiled yet; returns how many it compiled. Throws on the first that fails. */
  compileAll(): number;
}

export function createSchemaCompilers(): SchemaCompilers {
  const pending = new Set<() => unknown>();
  const lazy = <F>(compile: () => F): (() => F) => {
    let fn: F | undefined;
    const get = () => {
      if (fn === undefined) {
        fn = compile();
        pending.delete(get);
      }
      return fn;
    };
    pending.add(get);
    return get;
  };
  return {
    schemaController: {
      compilersFactory: {
        buildSerializer: (externalSchemas: unknown, options: unknown) => {
          const compile = SerializerSelector()(externalSchemas, options as Parameters<ReturnType<typeof SerializerSelector>>[1]);
          return (route: Parameters<typeof compile>[0]): Serialize => {
            const get = lazy(() => isListEnvelope(route.schema) ? listEnvelopeSerializer(route.schema, (schema) => compile({ ...route, schema })) : compile(route));
            return (data) => get()(data);
          };
        },
      },
    },
    lazyValidator(compile) {
      const get = lazy(compile);
      const validate: Validate = (data) => {
        const fn = get();
        const ok = fn(data);
        validate.errors = fn.errors;
        return ok;
      };
      return validate;
    },
    compileAll() {
      let n = 0;
      for (const get of [...pending]) {
        get();
        n++;
      }
      return n;
    },
  };
}

/**
 * Bodies are validated strictly (a string "5" is not the integer 5); query strings, path parameters
 * and headers arrive as text, so they are coerced. Unknown fields are never dropped silently: every
 * schema says additionalProperties: false and ajv reports them. With compilers, each validator is
 * compiled on its first use (see SchemaCompilers).
 */
export function registerValidators(app: FastifyInstance, compilers?: SchemaCompilers): void {
  const body = makeAjv({ coerceTypes: false });
  const text = makeAjv({ coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? body : text;
    return compilers ? compilers.lazyValidator(() => ajv.compile(schema) as Validate) : ajv.compile(schema);
  });
}
