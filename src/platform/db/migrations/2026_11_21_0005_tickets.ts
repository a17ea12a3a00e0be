import type { Kysely } from 'kysely';
import { runStatements } from './run-statements.ts';

/**
 * Tickets: boards with their statuses, priorities, categories (one level of subcategories), the
 * tickets themselves with comments and tags, and a per-tenant ticket-number counter. Tenants that
 * exist already get the defaults every new tenant gets (board "General" with Open, In Progress and
 * Closed; priorities Low, Medium and High).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, `
    create table boards (
      tenant uuid not null references tenants (tenant_id),
      board_id uuid not null,
      board_name text not null,
      description text,
      is_default boolean not null default false,
      is_active boolean not null default true,
      display_order integer not null default 0,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, board_id),
      check (not is_default or is_active)
    );
    create unique index boards_name_uq on boards (tenant, lower(board_name));
    create unique index boards_default_uq on boards (tenant) where is_default;

    create table ticket_statuses (
      tenant uuid not null,
      status_id uuid not null,
      board_id uuid not null,
      name text not null,
      is_closed boolean not null default false,
      is_default boolean not null default false,
      order_number integer not null default 0,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, status_id),
      -- Lets tickets reference (board, status) together, so a ticket's status always belongs to its board.
      unique (tenant, board_id, status_id),
      foreign key (tenant, board_id) references boards (tenant, board_id) on delete cascade,
      -- New tickets start in the default status, so it is an open one.
      check (not (is_default and is_closed))
    );
    create unique index ticket_statuses_name_uq on ticket_statuses (tenant, board_id, lower(name));
    create unique index ticket_statuses_default_uq on ticket_statuses (tenant, board_id) where is_default;

    create table ticket_priorities (
      tenant uuid not null references tenants (tenant_id),
      priority_id uuid not null,
      priority_name text not null,
      order_number integer not null default 0,
      color text,
      is_default boolean not null default false,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, priority_id)
    );
    create unique index ticket_priorities_name_uq on ticket_priorities (tenant, lower(priority_name));
    create unique index ticket_priorities_default_uq on ticket_priorities (tenant) where is_default;

    create table ticket_categories (
      tenant uuid not null references tenants (tenant_id),
      category_id uuid not null,
      category_name text not null,
      parent_category_id uuid,
      board_id uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, category_id),
      foreign key (tenant, parent_category_id) references ticket_categories (tenant, category_id),
      foreign key (tenant, board_id) references boards (tenant, board_id),
      check (parent_category_id is null or parent_category_id <> category_id)
    );
    -- Names are unique among siblings: same board (or none) and same parent (or top level), regardless of case.
    create unique index ticket_categories_name_uq on ticket_categories (
      tenant,
      coalesce(board_id, '00000000-0000-0000-0000-000000000000'::uuid),
      coalesce(parent_category_id, '00000000-0000-0000-0000-000000000000'::uuid),
      lower(category_name)
    );
    create index ticket_categories_parent_idx on ticket_categories (tenant, parent_category_id) where parent_category_id is not null;
    create index ticket_categories_board_idx on ticket_categories (tenant, board_id) where board_id is not null;

    create table ticket_number_counters (
      tenant uuid primary key references tenants (tenant_id),
      last_number integer not null
    );

    create table tickets (
      tenant uuid not null references tenants (tenant_id),
      ticket_id uuid not null,
      -- The counter value behind ticket_number (T-000042 is 42): sorts numerically past T-999999.
      ticket_seq integer not null,
      ticket_number text not null,
      title text not null check (char_length(title) between 1 and 255),
      description text,
      board_id uuid not null,
      status_id uuid not null,
      priority_id uuid not null,
      category_id uuid,
      subcategory_id uuid,
      client_id uuid not null,
      contact_id uuid,
      assigned_to uuid,
      assigned_team_id uuid,
      due_date timestamptz(3),
      is_closed boolean not null default false,
      entered_by uuid,
      entered_at timestamptz(3) not null default now(),
      updated_by uuid,
      updated_at timestamptz(3) not null default now(),
      closed_by uuid,
      closed_at timestamptz(3),
      primary key (tenant, ticket_id),
      unique (tenant, ticket_number),
      unique (tenant, ticket_seq),
      foreign key (tenant, board_id) references boards (tenant, board_id),
      foreign key (tenant, board_id, status_id) references ticket_statuses (tenant, board_id, status_id),
      foreign key (tenant, priority_id) references ticket_priorities (tenant, priority_id),
      foreign key (tenant, category_id) references ticket_categories (tenant, category_id),
      foreign key (tenant, subcategory_id) references ticket_categories (tenant, category_id),
      foreign key (tenant, client_id) references clients (tenant, client_id),
      -- People and teams may go; the ticket stays and loses the reference.
      foreign key (tenant, contact_id) references contacts (tenant, contact_id) on delete set null (contact_id),
      foreign key (tenant, assigned_to) references users (tenant, user_id) on delete set null (assigned_to),
      foreign key (tenant, assigned_team_id) references teams (tenant, team_id) on delete set null (assigned_team_id),
      foreign key (tenant, entered_by) references users (tenant, user_id) on delete set null (entered_by),
      foreign key (tenant, updated_by) references users (tenant, user_id) on delete set null (updated_by),
      foreign key (tenant, closed_by) references users (tenant, user_id) on delete set null (closed_by),
      check (subcategory_id is null or category_id is not null),
      check (is_closed = (closed_at is not null))
    );
    create index tickets_seq_idx on tickets (tenant, ticket_seq, ticket_id);
    create index tickets_entered_idx on tickets (tenant, entered_at, ticket_id);
    create index tickets_updated_idx on tickets (tenant, updated_at, ticket_id);
    create index tickets_client_idx on tickets (tenant, client_id, ticket_seq);
    create index tickets_board_status_idx on tickets (tenant, board_id, status_id);
    create index tickets_status_idx on tickets (tenant, status_id);
    create index tickets_priority_idx on tickets (tenant, priority_id);
    create index tickets_open_idx on tickets (tenant, is_closed, ticket_seq);
    create index tickets_category_idx on tickets (tenant, category_id) where category_id is not null;
    create index tickets_subcategory_idx on tickets (tenant, subcategory_id) where subcategory_id is not null;
    create index tickets_contact_idx on tickets (tenant, contact_id) where contact_id is not null;
    create index tickets_assigned_idx on tickets (tenant, assigned_to) where assigned_to is not null;
    create index tickets_team_idx on tickets (tenant, assigned_team_id) where assigned_team_id is not null;
    create index tickets_due_idx on tickets (tenant, due_date, ticket_id) where due_date is not null;

    create table ticket_comments (
      tenant uuid not null,
      comment_id uuid not null,
      ticket_id uuid not null,
      comment_text text not null check (char_length(comment_text) between 1 and 10000),
      is_internal boolean not null default false,
      author_type text not null check (author_type in ('internal', 'client')),
      author_user_id uuid,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (tenant, comment_id),
      foreign key (tenant, ticket_id) references tickets (tenant, ticket_id) on delete cascade,
      foreign key (tenant, author_user_id) references users (tenant, user_id) on delete set null (author_user_id),
      check (not (is_internal and author_type = 'client'))
    );
    create index ticket_comments_ticket_idx on ticket_comments (tenant, ticket_id, created_at, comment_id);

    create table ticket_tags (
      tenant uuid not null,
      ticket_id uuid not null,
      tag text not null check (char_length(tag) between 1 and 64),
      created_at timestamptz(3) not null default now(),
      primary key (tenant, ticket_id, tag),
      foreign key (tenant, ticket_id) references tickets (tenant, ticket_id) on delete cascade
    );
    create unique index ticket_tags_ci_uq on ticket_tags (tenant, ticket_id, lower(tag));
    create index ticket_tags_tag_idx on ticket_tags (tenant, lower(tag), ticket_id);

    insert into boards (tenant, board_id, board_name, description, is_default, is_active, display_order)
      select tenant_id, gen_random_uuid(), 'General', 'The default board', true, true, 0 from tenants;
    insert into ticket_statuses (tenant, status_id, board_id, name, is_closed, is_default, order_number)
      select b.tenant, gen_random_uuid(), b.board_id, v.name, v.is_closed, v.is_default, v.order_number
      from boards b
      cross join (values ('Open', false, true, 1), ('In Progress', false, false, 2), ('Closed', true, false, 3)) as v (name, is_closed, is_default, order_number);
    insert into ticket_priorities (tenant, priority_id, priority_name, order_number, color, is_default)
      select t.tenant_id, gen_random_uuid(), v.name, v.order_number, v.color, v.is_default
      from tenants t
      cross join (values ('Low', 1, '#22C55E', false), ('Medium', 2, '#F59E0B', true), ('High', 3, '#EF4444', false)) as v (name, order_number, color, is_default);
  `);
}
