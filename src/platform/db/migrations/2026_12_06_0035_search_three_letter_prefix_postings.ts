import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';
import { backfillPostings, headWords } from './2026_12_06_0033_search_prefix_postings.ts';

/**
 * Three-letter prefix postings beside the four-letter ones of migration 0033 (bench/README.md, "Issue 23: prefix
 * postings, searches beside a backlog"): every head word of three characters or more is also posted under its
 * first three, with the same mark. A query whose stem has three characters — the first search a type-ahead box sends, or a four-letter word the
 * English stemmer shortens (`wens` → `wen`) — read and grouped every posting of every word it begins: `dra` or `wen`
 * begin about a thousand words at 1M rows, 200,000 postings, 300–400 ms. It now reads its prefix term in ranking
 * order like any single word. About as many postings again as the four-letter ones (1.35 M for 200,000 documents),
 * written by the merge after the write; the request's write does not change.
 */

/** A three-letter prefix posting's term: the mark and three characters. */
const threeLetterPrefix = (term: string) => `left(${term}, 1) = chr(1) and length(${term}) = 4`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    ${headWords([3, 4])};
    ${backfillPostings(threeLetterPrefix)};
  `);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    select search_postings_merge(2147483647);
    ${headWords([4])};
    delete from search_postings where ${threeLetterPrefix('term')};
  `);
}
