import { expect } from 'vitest';
import type { Api, Res } from './factories.ts';

export interface SearchHit {
  type: string;
  id: string;
  parentId?: string;
  title: string;
  subtitle?: string;
  snippet?: string;
  url: string;
  score: number;
  updatedAt: string;
}

export interface SearchPageJson {
  results: SearchHit[];
  groups: Record<string, number>;
  totalCount: number;
  countsExact: boolean;
  nextCursor?: string;
}

/**
 * A word no other test writes: 12 random letters. Random throughout, so two of them share no trigram but by chance:
 * a search that finds nothing as typed goes to the typo correction, which corrects a word the tenant does not have
 * to a similar word of the tenant's (two words with a common prefix and short random tails, `kestrelij` and
 * `kestrelijraht`, are similar enough) and finds that word's record.
 */
export const uniqueWord = (): string => Array.from({ length: 12 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');

export function searchUrl(params: Record<string, string | number | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) qs.set(k, String(v));
  return `/api/v1/search?${qs.toString()}`;
}

export async function searchRes(api: Api, params: Record<string, string | number | undefined>): Promise<Res> {
  return api.get(searchUrl(params));
}

/** One page; fails the test unless 200. */
export async function search(api: Api, params: Record<string, string | number | undefined>): Promise<SearchPageJson> {
  const res = await searchRes(api, params);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as SearchPageJson;
}

/** Every page, following nextCursor; `between` runs before each follow-up page. */
export async function searchAll(api: Api, params: Record<string, string | number | undefined>, between?: (page: number) => Promise<void>): Promise<{ hits: SearchHit[]; pages: SearchPageJson[] }> {
  const pages: SearchPageJson[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    if (i > 0 && between) await between(i);
    const page = await search(api, { ...params, cursor });
    pages.push(page);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return { hits: pages.flatMap((p) => p.results), pages };
}

export const idsOf = (hits: readonly SearchHit[]) => hits.map((h) => h.id);
