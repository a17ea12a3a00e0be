import { isKeptRow } from './list-cache.ts';

/**
 * The response serializer of list envelopes (`{ data: [...], pagination }`): the same fast-json-stringify
 * output as the envelope's own serializer, but each row a list keeps by version (list-cache.ts; kept rows
 * are deeply frozen) is serialized once per route and its JSON reused on every page that shows it again.
 */
type Serialize = (data: unknown) => string;
type Schema = { type?: unknown; properties?: Record<string, Schema>; items?: Schema };

/** Whether `schema` is exactly a list envelope (listOf in schemas.ts). */
export function isListEnvelope(schema: unknown): schema is Schema & { properties: { data: Schema & { items: Schema }; pagination: Schema } } {
  const s = schema as Schema | undefined;
  const props = s?.type === 'object' ? s.properties : undefined;
  return props !== undefined && Object.keys(props).join() === 'data,pagination' && props.data?.type === 'array' && props.data.items !== undefined;
}

/** `compile` compiles a schema as the route's own serializer would. */
export function listEnvelopeSerializer(schema: Schema & { properties: { data: Schema & { items: Schema }; pagination: Schema } }, compile: (schema: Schema) => Serialize): Serialize {
  const whole = compile(schema);
  const item = compile(schema.properties.data.items);
  const pagination = compile(schema.properties.pagination);
  const kept = new WeakMap<object, string>();
  const itemJson = (row: unknown): string => {
    if (!isKeptRow(row)) return item(row);
    let json = kept.get(row);
    if (json === undefined) kept.set(row, (json = item(row)));
    return json;
  };
  return (payload) => {
    const { data, pagination: p } = (payload ?? {}) as { data?: unknown; pagination?: unknown };
    if (!Array.isArray(data) || p === null || typeof p !== 'object' || !data.some(isKeptRow)) return whole(payload);
    return `{"data":[${data.map(itemJson).join(',')}],"pagination":${pagination(p)}}`;
  };
}
