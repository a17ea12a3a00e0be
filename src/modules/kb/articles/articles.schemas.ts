import { Type, type Static } from 'typebox';
import { DateOnly, Id, Nullable, Timestamp, dataOf, listOf, listQuery } from '../../../platform/http/schemas.ts';
import { ArticleType } from '../kb.shared.ts';

export const AUDIENCES = ['internal', 'client', 'public'] as const;
const Audience = Type.Enum([...AUDIENCES], { description: 'internal: staff only; client: staff and client-portal users; public: anyone the article is shared with' });
export const KB_STATUSES = ['draft', 'published', 'archived'] as const;
const Status = Type.Enum([...KB_STATUSES], { description: 'Read-only: changed only by POST /publish (draft or archived → published) and POST /archive (published → archived)' });

const Slug = Type.String({ minLength: 1, maxLength: 200, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', description: 'Lower-case words joined by hyphens; unique per tenant' });
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50, description: 'Stored lower-cased, without duplicates' });
const ReviewCycle = Type.Integer({ minimum: 1, maximum: 3650, description: 'Days between reviews; sets next_review_due from publication (or from now)' });
export const MAX_CONTENT = 200_000;
const Content = Type.String({ maxLength: MAX_CONTENT, description: 'The body, as Markdown' });

export const KbArticle = Type.Object({
  article_id: Id,
  title: Type.String(),
  slug: Type.String(),
  article_type: ArticleType,
  audience: Audience,
  status: Status,
  category_id: Nullable(Id),
  tags: Type.Array(Type.String()),
  review_cycle_days: Nullable(Type.Integer()),
  next_review_due: Nullable(DateOnly),
  revision: Type.Integer({ description: 'The number of the latest content revision (0 = no content yet)' }),
  view_count: Type.Integer({ description: 'Reads of the content (GET /content)' }),
  source_ticket_id: Nullable(Id),
  template_id: Nullable(Id),
  published_at: Nullable(Timestamp),
  archived_at: Nullable(Timestamp),
  created_by: Nullable(Id),
  updated_by: Nullable(Id),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type KbArticle = Static<typeof KbArticle>;

export const CreateKbArticleBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 255 }),
    slug: Type.Optional(Type.Unsafe<string>({ ...Slug, description: 'Default: from the title (-2, -3, … on collision); an explicit duplicate is a 409' })),
    article_type: Type.Optional(Type.Unsafe<string>({ ...ArticleType, description: "Default how_to (or the template's type)" })),
    audience: Type.Optional(Type.Unsafe<string>({ ...Audience, description: 'Default internal' })),
    category_id: Type.Optional(Nullable(Id)),
    tags: Type.Optional(Tags),
    review_cycle_days: Type.Optional(Nullable(ReviewCycle)),
    template_id: Type.Optional(Type.Unsafe<string>({ ...Id, description: "Start from this template: its content becomes revision 1, its type the default article_type" })),
  },
  { additionalProperties: false, description: 'Creates a draft; the body is written with PUT /content' },
);
export type CreateKbArticleBody = Static<typeof CreateKbArticleBody>;

export const UpdateKbArticleBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    slug: Type.Optional(Slug),
    article_type: Type.Optional(ArticleType),
    audience: Type.Optional(Audience),
    category_id: Type.Optional(Nullable(Id)),
    tags: Type.Optional(Tags),
    review_cycle_days: Type.Optional(Nullable(ReviewCycle)),
  },
  { additionalProperties: false, minProperties: 1, description: 'Partial update of the metadata (status changes only through publish and archive)' },
);
export type UpdateKbArticleBody = Static<typeof UpdateKbArticleBody>;

export const KB_SORT_FIELDS = ['title', 'created_at', 'updated_at', 'published_at', 'view_count', 'next_review_due'] as const;
export const ListKbArticlesQuery = listQuery(KB_SORT_FIELDS, {
  status: Type.Optional(Status),
  audience: Type.Optional(Audience),
  article_type: Type.Optional(ArticleType),
  category_id: Type.Optional(Id),
  tag: Type.Optional(Type.String({ maxLength: 64, description: 'Articles carrying this tag (any case)' })),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Part of the title or a tag, any case' })),
  review_due: Type.Optional(Type.Boolean({ description: 'true: only articles whose next_review_due is today or past' })),
});
export type ListKbArticlesQuery = Static<typeof ListKbArticlesQuery>;

export const ContentQuery = Type.Object(
  { format: Type.Optional(Type.Enum(['markdown', 'html'], { description: 'html: rendered from the Markdown and sanitised (default markdown)' })) },
  { additionalProperties: false },
);
export const ArticleContent = Type.Object({
  content: Type.String({ description: 'Markdown, or sanitised HTML with ?format=html' }),
  format: Type.Enum(['markdown', 'html']),
  revision: Type.Integer(),
});
export type ArticleContent = Static<typeof ArticleContent>;
export const PutContentBody = Type.Object({ content: Content }, { additionalProperties: false });

export const Revision = Type.Object({
  revision: Type.Integer(),
  content: Type.String({ description: 'Markdown' }),
  created_by: Nullable(Id),
  created_at: Timestamp,
});
export const RevisionSummary = Type.Object({
  revision: Type.Integer(),
  length: Type.Integer({ description: 'Characters of Markdown' }),
  created_by: Nullable(Id),
  created_at: Timestamp,
});
export const RevisionParams = Type.Object({ id: Id, revision: Type.Integer({ minimum: 1, maximum: 1_000_000 }) }, { additionalProperties: false });
export const TicketParams = Type.Object({ ticketId: Id }, { additionalProperties: false });
export const FromTicketBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "Default: the ticket's title" })),
    audience: Type.Optional(Audience),
    category_id: Type.Optional(Nullable(Id)),
  },
  { additionalProperties: false },
);

export const KbArticleResponse = dataOf(KbArticle);
export const KbArticleListResponse = listOf(KbArticle);
export const ArticleContentResponse = dataOf(ArticleContent);
export const RevisionResponse = dataOf(Revision);
export const RevisionListResponse = listOf(RevisionSummary);
