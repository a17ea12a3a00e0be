import type { ColumnType, Generated } from 'kysely';

/** Kysely table types of migration 0016_kb (src/modules/kb); kept apart from schema.ts. */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export type KbArticleType = 'how_to' | 'faq' | 'troubleshooting' | 'reference';
export type KbAudience = 'internal' | 'client' | 'public';
export type KbStatus = 'draft' | 'published' | 'archived';

export interface KbCategoriesTable {
  tenant: string;
  category_id: string;
  name: string;
  description: string | null;
  parent_id: string | null;
  display_order: Generated<number>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface KbTemplatesTable {
  tenant: string;
  template_id: string;
  name: string;
  description: string | null;
  article_type: KbArticleType;
  content: Generated<string>;
  is_builtin: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface KbArticlesTable {
  tenant: string;
  article_id: string;
  title: string;
  slug: string;
  article_type: KbArticleType;
  audience: KbAudience;
  status: Generated<KbStatus>;
  category_id: string | null;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  review_cycle_days: number | null;
  /** DATE: 'YYYY-MM-DD'. */
  next_review_due: string | null;
  content: Generated<string>;
  revision: Generated<number>;
  view_count: Generated<number>;
  source_ticket_id: string | null;
  template_id: string | null;
  published_at: Date | null;
  archived_at: Date | null;
  created_by: string | null;
  updated_by: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface KbArticleRevisionsTable {
  tenant: string;
  article_id: string;
  revision: number;
  content: string;
  created_by: string | null;
  created_at: CreatedAt;
}

export interface KbTables {
  kb_categories: KbCategoriesTable;
  kb_templates: KbTemplatesTable;
  kb_articles: KbArticlesTable;
  kb_article_revisions: KbArticleRevisionsTable;
}
