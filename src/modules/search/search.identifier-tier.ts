import { sql } from 'kysely';
import type { Executor } from '../../platform/db/executor.ts';
import { anyType, documentAccess, keyset, namesIdentifier, queryRelation, SCORES, type EngineRequest } from './search.engine.ts';

/**
 * The identifier tier of a one-word query shaped like an identifier (`t123`, `srv01`, `office365`: search.parse.ts),
 * for the word engine: the documents whose identifier the word names exactly (score 1000) or begins (900), which
 * rank above every text match. The word's text matches are read as for any word; this tier is merged in front.
 */
export interface IdentifierMatch {
  object_type: string;
  object_id: string;
  updated_at: Date | string;
  score: number;
  /** Also a text match: counted with the text matches already, and left out of their page. */
  text: boolean;
  /** After the request's cursor, in its order. */
  after: boolean;
}

/**
 * More identifier matches than this (a short prefix such as `t1` begins tens of thousands of ticket numbers) and the
 * query goes to the general engine, which ranks every match: the tier is read whole, so it must stay small.
 */
export const IDENTIFIER_TIER_MAX = 200;

/**
 * The tier's documents the caller may see, in the request's order, or null past IDENTIFIER_TIER_MAX. One probe of
 * the identifier index per type; in the word engine's transaction, so it shares the text matches' snapshot.
 */
export async function identifierMatches(db: Executor, r: EngineRequest): Promise<IdentifierMatch[] | null> {
  const { rows } = await sql<{ page: IdentifierMatch[] | null }>`
    with q as (${queryRelation(r.query)}),
    m as (
      select d.object_type, d.object_id, d.updated_at, d.search_vector @@ q.pq as text,
        case when d.identifier = any(${r.query.identifiers}::text[]) then ${sql.lit(SCORES.identifier)} else ${sql.lit(SCORES.identifierPrefix)} end as score
      from search_documents d cross join q
      where ${documentAccess(r.access, anyType(r.types), r.asOf)}
        and ${namesIdentifier(r.query)}
      limit ${IDENTIFIER_TIER_MAX + 1}
    )
    select json_agg(x order by x.score desc, x.updated_at desc, x.object_type, x.object_id) as page
    from (select m.*, ${keyset(r)} as after from m) x
  `.execute(db);
  const page = rows[0]?.page ?? [];
  return page.length > IDENTIFIER_TIER_MAX ? null : page;
}
