import { sql, type Kysely } from 'kysely';
import { BUILTIN_KB_TEMPLATES } from '../builtin-kb-templates.ts';
import { runStatements } from './run-statements.ts';

/**
 * Knowledge base: its own category tree (not ticket categories), templates (built-in per tenant, plus the
 * tenant's own), articles with their Markdown body and every revision of it.
 *
 * An article's `status` moves only through publish and archive; `content`/`revision` are the latest
 * body, and `kb_article_revisions` keeps each PUT of it (revision 1, 2, …), so "history kept" is real.
 * A category in use, or with children, is refused deletion by the service; the foreign keys back it up.
 *
 * Existing tenants get the built-in templates. The catalogue's `kb_article:*` permissions become `kb:*` (the spec's resource name), in roles and in
 * scoped API keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table kb_categories (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      category_id uuid not null,
      name text not null,
      description text,
      parent_id uuid,
      display_order integer not null default 0,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, category_id),
      foreign key (tenant, parent_id) references kb_categories (tenant, category_id) on delete restrict
    );
    create unique index kb_categories_name_uq on kb_categories (tenant, coalesce(parent_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(name));

    create table kb_templates (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      template_id uuid not null,
      name text not null,
      description text,
      article_type text not null check (article_type in ('how_to', 'faq', 'troubleshooting', 'reference')),
      content text not null default '',
      is_builtin boolean not null default false,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, template_id)
    );
    create unique index kb_templates_name_uq on kb_templates (tenant, lower(name));

    create table kb_articles (
      tenant uuid not null references tenants (tenant_id) on delete cascade,
      article_id uuid not null,
      title text not null,
      slug text not null,
      article_type text not null check (article_type in ('how_to', 'faq', 'troubleshooting', 'reference')),
      audience text not null check (audience in ('internal', 'client', 'public')),
      status text not null default 'draft' check (status in ('draft', 'published', 'archived')),
      category_id uuid,
      tags text[] not null default '{}',
      review_cycle_days integer check (review_cycle_days between 1 and 3650),
      next_review_due date,
      content text not null default '',
      revision integer not null default 0,
      view_count integer not null default 0,
      source_ticket_id uuid,
      template_id uuid,
      published_at timestamptz(3),
      archived_at timestamptz(3),
      created_by uuid,
      updated_by uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, article_id),
      unique (tenant, slug),
      foreign key (tenant, category_id) references kb_categories (tenant, category_id) on delete restrict
    );
    create index kb_articles_title_idx on kb_articles (tenant, lower(title), article_id);
    create index kb_articles_category_idx on kb_articles (tenant, category_id);
    create index kb_articles_tags_idx on kb_articles using gin (tags);

    create table kb_article_revisions (
      tenant uuid not null,
      article_id uuid not null,
      revision integer not null,
      content text not null,
      created_by uuid,
      created_at timestamptz(3) not null default now(),
      primary key (tenant, article_id, revision),
      foreign key (tenant, article_id) references kb_articles (tenant, article_id) on delete cascade
    );

    update role_permissions set permission = 'kb:' || substr(permission, 12) where permission like 'kb_article:%';
    update api_keys set scopes = array(select case when s like 'kb_article:%' then 'kb:' || substr(s, 12) else s end from unnest(scopes) as s)
      where scopes is not null;
  `);
  // Tenants that existed before this migration get the built-in templates new tenants are created with.
  for (const t of BUILTIN_KB_TEMPLATES) {
    await sql`
      insert into kb_templates (tenant, template_id, name, description, article_type, content, is_builtin)
      select tenant_id, gen_random_uuid(), ${t.name}, ${t.description}, ${t.article_type}, ${t.content}, true from tenants
      on conflict do nothing
    `.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    update role_permissions set permission = 'kb_article:' || substr(permission, 4) where permission like 'kb:%';
    update api_keys set scopes = array(select case when s like 'kb:%' then 'kb_article:' || substr(s, 4) else s end from unnest(scopes) as s)
      where scopes is not null;
    drop table kb_article_revisions;
    drop table kb_articles;
    drop table kb_templates;
    drop table kb_categories;
  `);
}
