import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { notFound, unprocessable } from '../../../platform/http/errors.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { suppressOf, type SuppressFlags } from '../tickets.events.ts';
import { normalizeTags, requireVisibleTicket } from '../tickets.rules.ts';
import { applyTicketPatch } from '../tickets.writes.ts';
import { MAX_TAGS, type AddTagBody, type ReplaceTagsBody } from './tags.schemas.ts';

/**
 * A ticket's tags as a resource of their own. Every change goes through the ticket's write path, so
 * it bumps updated_at and emits ticket.updated with `changes.tags`. If-Match compares with the ETag
 * of the tag list (GET /tickets/{ticketId}/tags).
 */
export function createTagsService(deps: { db: Kysely<DB>; publicUrl: string }) {
  const { db, publicUrl } = deps;

  const retag = (actor: Actor, ticketId: string, flags: SuppressFlags, ifMatch: string | undefined, edit: (tags: string[]) => string[] | undefined) =>
    withTransaction(db, async (trx) => {
      const current = await requireVisibleTicket(trx, actor, ticketId, true);
      assertIfMatch(ifMatch, current.tags);
      const tags = edit(current.tags);
      if (tags === undefined) return { tags: current.tags, changed: false };
      const after = await applyTicketPatch(trx, actor, current, { tags }, { suppress: suppressOf(flags), publicUrl });
      return { tags: after.tags, changed: after !== current };
    });

  return {
    async list(actor: Actor, ticketId: string): Promise<string[]> {
      return (await requireVisibleTicket(db, actor, ticketId)).tags;
    },

    async replace(actor: Actor, ticketId: string, body: ReplaceTagsBody, ifMatch?: string): Promise<string[]> {
      const tags = normalizeTags(body.tags, 'body.tags');
      return (await retag(actor, ticketId, body, ifMatch, () => tags)).tags;
    },

    /** Adds one tag; a tag the ticket already has (regardless of case) changes nothing. */
    async add(actor: Actor, ticketId: string, body: AddTagBody): Promise<{ tags: string[]; added: boolean }> {
      const tag = requiredText(body.tag, 'body.tag');
      const result = await retag(actor, ticketId, body, undefined, (tags) => {
        if (tags.some((t) => t.toLowerCase() === tag.toLowerCase())) return undefined;
        if (tags.length >= MAX_TAGS) throw unprocessable(`A ticket holds at most ${MAX_TAGS} tags`, [{ path: 'body.tag', message: 'too many tags' }]);
        return [...tags, tag];
      });
      return { tags: result.tags, added: result.changed };
    },

    /** Removes a tag (matched regardless of case); 404 when the ticket does not have it. */
    async remove(actor: Actor, ticketId: string, tag: string, ifMatch?: string): Promise<void> {
      const wanted = tag.trim().toLowerCase();
      await retag(actor, ticketId, {}, ifMatch, (tags) => {
        if (!tags.some((t) => t.toLowerCase() === wanted)) throw notFound('Tag', tag);
        return tags.filter((t) => t.toLowerCase() !== wanted);
      });
    },
  };
}

export type TagsService = ReturnType<typeof createTagsService>;
