/**
 * The typed client: openapi-fetch over the generated `paths`, sending every request through the
 * transport (API key, Idempotency-Key on POST, 429/503 retries honouring Retry-After). A non-2xx answer
 * is thrown as PsaApiError, so a call resolves only with its 2xx body: `const { data } = await client.GET(...)`.
 */
import createClient, { type Client, type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import { createTransportFetch, type TransportOptions, type TransportRequestOptions } from './http.ts';
import type { paths } from './schema.d.ts';

export type { paths, components, operations } from './schema.d.ts';

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type MediaType = `${string}/${string}`;

/** The API's paths that have an operation for this method. */
export type PathsWith<M extends Method> = ClientPathsWithMethod<Client<paths>, M>;

// Mirrors openapi-fetch's own (unexported) helpers: the options argument is optional exactly when
// nothing in it is required (no path parameter, no required query parameter, no required body).
type RequiredKeysOfHelper<T> = { [K in keyof T]: object extends Pick<T, K> ? never : K }[keyof T];
type RequiredKeysOf<T> = RequiredKeysOfHelper<T> extends undefined ? never : RequiredKeysOfHelper<T>;
type Init<I> = I & TransportRequestOptions & { [key: string]: unknown };
type InitParam<I> = RequiredKeysOf<I> extends never ? [Init<I>?] : [Init<I>];

/** What a call resolves with: openapi-fetch's success branch only (its error branch is thrown instead). */
export type Success<R> = Exclude<R, { error: unknown }>;

type Operation<P extends keyof paths, M extends Method> = paths[P][M] extends Record<string | number, unknown> ? paths[P][M] : never;

export type PsaMethod<M extends Method> = <P extends PathsWith<M>, I extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: InitParam<I>
) => Promise<Success<FetchResponse<Operation<P, M>, I, MediaType>>>;

export interface PsaClient {
  GET: PsaMethod<'get'>;
  POST: PsaMethod<'post'>;
  PUT: PsaMethod<'put'>;
  PATCH: PsaMethod<'patch'>;
  DELETE: PsaMethod<'delete'>;
}

export type PsaClientOptions = TransportOptions;

/** The 2xx JSON body of an operation (e.g. `ResponseBody<'/api/v1/tickets/{ticketId}', 'get'>`). */
export type ResponseBody<P extends keyof paths, M extends Method = 'get'> = paths[P][M] extends {
  responses: infer R;
}
  ? { [S in keyof R]: S extends 200 | 201 | 202 ? (R[S] extends { content: { 'application/json': infer B } } ? B : never) : never }[keyof R]
  : never;

export function createPsaClient(options: PsaClientOptions): PsaClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: createTransportFetch(options) });
  // The casts only narrow each result to its success branch: the transport throws on every non-2xx.
  return {
    GET: client.GET as unknown as PsaMethod<'get'>,
    POST: client.POST as unknown as PsaMethod<'post'>,
    PUT: client.PUT as unknown as PsaMethod<'put'>,
    PATCH: client.PATCH as unknown as PsaMethod<'patch'>,
    DELETE: client.DELETE as unknown as PsaMethod<'delete'>,
  };
}
