import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteOptions } from 'fastify';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildTestApp, TEST_SECRET_KEY, type TestApp } from './harness.ts';
import { loadConfig } from '../src/config.ts';
import { isPermission } from '../src/platform/auth/permissions.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(async () => t.close());

type Schema = Record<string, unknown>;

/** The documented routes: everything except plugin internals (docs UI, CORS preflight) and HEAD twins. */
function routes(): RouteOptions[] {
  return t.app.routeTable.filter((r) => r.method !== 'HEAD' && !(r.schema as Schema | undefined)?.hide && r.url !== '*');
}

const label = (r: RouteOptions) => `${String(r.method)} ${r.url}`;

/** Collects problems with input bounds: open objects and unbounded strings. */
function unbounded(schema: unknown, path: string, out: string[]): void {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Schema;
  if (s.type === 'object' || s.properties) {
    if (s.additionalProperties !== false) out.push(`${path} allows unknown fields`);
    for (const [k, v] of Object.entries((s.properties as Schema) ?? {})) unbounded(v, `${path}.${k}`, out);
  }
  if (s.type === 'string' && s.maxLength === undefined && s.enum === undefined && s.const === undefined && !['uuid', 'date', 'date-time'].includes(String(s.format))) {
    out.push(`${path} is a string without maxLength`);
  }
  if (s.type === 'array') {
    if (s.maxItems === undefined) out.push(`${path} is an array without maxItems`);
    unbounded(s.items, `${path}[]`, out);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(s[key])) (s[key] as unknown[]).forEach((sub, i) => unbounded(sub, `${path}<${key}${i}>`, out));
  }
}

describe('route contract (ARCHITECTURE.md rule 6 and 7)', () => {
  it('every route declares operationId, tags, summary, a 2xx response schema and its permission or public flag', () => {
    const problems: string[] = [];
    const operationIds = new Map<string, string>();
    for (const r of routes()) {
      const s = (r.schema ?? {}) as Schema;
      const where = label(r);
      if (typeof s.operationId !== 'string' || !/^[a-z][A-Za-z0-9]+$/.test(s.operationId)) problems.push(`${where}: operationId missing or not camelCase`);
      else if (operationIds.has(s.operationId)) problems.push(`${where}: operationId ${s.operationId} also used by ${operationIds.get(s.operationId)}`);
      else operationIds.set(s.operationId, where);
      if (!Array.isArray(s.tags) || s.tags.length === 0) problems.push(`${where}: no tags`);
      if (typeof s.summary !== 'string' || s.summary.length < 5) problems.push(`${where}: no summary`);
      const response = (s.response ?? {}) as Schema;
      if (!Object.keys(response).some((c) => /^2\d\d$/.test(c))) problems.push(`${where}: no 2xx response schema`);
      const config = (r.config ?? {}) as Schema;
      if (config.public !== true) {
        if (!('permission' in config)) problems.push(`${where}: declares neither config.permission nor config.public`);
        const perms = config.permission === null ? [] : typeof config.permission === 'string' ? [config.permission] : (config.permission as string[] | undefined) ?? [];
        for (const p of perms) if (!isPermission(p)) problems.push(`${where}: unknown permission ${p}`);
      }
      if (r.url.includes(':') && !s.params) problems.push(`${where}: path parameters without a params schema`);
      if (['POST', 'PUT', 'PATCH'].includes(String(r.method)) && !s.body && !r.url.match(/\/(publish|archive|execute|test|rotate|retry|replay|refresh|reboot|win|accept|dismiss|complete)\b/)) {
        problems.push(`${where}: write route without a body schema`);
      }
    }
    expect(problems, `Fix these routes:\n${problems.join('\n')}`).toEqual([]);
  });

  it('every route\'s validators and response serializers compile (they compile on first use when serving)', () => {
    expect(t.app.compileSchemas()).toBeGreaterThan(routes().length);
    expect(t.app.compileSchemas()).toBe(0);
  });

  it('every input is bounded: closed objects, strings with maxLength, arrays with maxItems', () => {
    const problems: string[] = [];
    for (const r of routes()) {
      const s = (r.schema ?? {}) as Schema;
      for (const part of ['body', 'querystring', 'params'] as const) if (s[part]) unbounded(s[part], `${label(r)} ${part}`, problems);
    }
    expect(problems, `Bound these inputs:\n${problems.join('\n')}`).toEqual([]);
  });
});

describe('OpenAPI description', () => {
  it('is valid OpenAPI 3.1 with version 0.1.0 and documents every route with security and error responses', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('0.1.0');
    const result = await new Validator().validate(doc);
    expect(result.valid, JSON.stringify(result.errors, null, 2)).toBe(true);

    const ops: { path: string; method: string; op: Schema }[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
      for (const [method, op] of Object.entries(item)) ops.push({ path, method, op });
    }
    for (const r of routes().filter((x) => (x.url.startsWith('/api/v1/') || x.url.startsWith('/api/projects')) && x.url !== '/api/v1/openapi.json')) {
      const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      const found = ops.find((o) => o.path === path && o.method === String(r.method).toLowerCase());
      expect(found, `${label(r)} missing from openapi.json`).toBeDefined();
      const op = found!.op;
      expect(op.operationId).toBe((r.schema as Schema).operationId);
      const responses = op.responses as Schema;
      for (const code of ['400', '401', '403', '404', '429', '500']) expect(responses[code], `${label(r)} documents ${code}`).toBeDefined();
      // A public route (the ledger's browser redirect) says so with an empty requirement; every other route uses the global API key.
      if ((r.config as Schema | undefined)?.public === true) expect(op.security, `${label(r)} is documented as public`).toEqual([]);
      else expect(op.security, `${label(r)} uses the global API-key security`).toBeUndefined();
      if ((r.config as Schema | undefined)?.permission) expect(String(op.description).split('Requires permission').length, `${label(r)} names its permission once`).toBe(2);
    }
    expect(doc.components.securitySchemes.ApiKeyAuth).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.security).toEqual([{ ApiKeyAuth: [] }]);
    const health = ops.find((o) => o.path === '/healthz')!;
    expect(health.op.security).toEqual([]);
  });

  it('names its server (PSA_PUBLIC_URL), a license, and groups every tag an operation uses under x-tagGroups, each tag described once', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.servers).toEqual([{ url: new URL(loadConfig({ PSA_SECRET_KEY: TEST_SECRET_KEY }).publicUrl).origin }]);
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    const grouped = (doc['x-tagGroups'] as { name: string; tags: string[] }[]).flatMap((g) => g.tags);
    expect(new Set(grouped).size, 'a tag sits in one group').toBe(grouped.length);
    const described = new Map((doc.tags as { name: string; description?: string }[]).map((tag) => [tag.name, tag.description]));
    for (const item of Object.values(doc.paths as Record<string, Record<string, Schema>>)) {
      for (const op of Object.values(item)) {
        for (const tag of (op.tags ?? []) as string[]) {
          expect(grouped, `tag ${tag} is in a group`).toContain(tag);
          expect(described.get(tag), `tag ${tag} has a description`).toBeTruthy();
        }
      }
    }
  });

  it('the API reference page is served from local assets', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs|jsdelivr)/);
    const srcs = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(srcs.length).toBeGreaterThan(0);
    for (const src of srcs.filter((s) => !s.startsWith('data:'))) {
      expect(src.startsWith('http'), src).toBe(false);
      const asset = await t.app.inject({ method: 'GET', url: new URL(src, 'http://x/docs/').pathname });
      expect(asset.statusCode, src).toBe(200);
    }
  });
});
