export interface PageQuery {
  page?: number;
  limit?: number;
  order?: 'asc' | 'desc';
}

export interface Page {
  page: number;
  limit: number;
  offset: number;
}

/** Page and limit are validated by the list schema (out-of-range is a 400, never clamped). */
export function pageOf(query: PageQuery): Page {
  const page = query.page ?? 1;
  const limit = query.limit ?? 25;
  return { page, limit, offset: (page - 1) * limit };
}

/**
 * The `pagination` of every list. A page after a keyset cursor has no `page`, `total` or `totalPages`
 * (counting would cost the whole walk on every page); `nextCursor` is set on every page of an ascending
 * `sort=updated_at` list that has rows after it (keyset.ts).
 */
export interface Pagination {
  page?: number;
  limit: number;
  total?: number;
  totalPages?: number;
  hasNext: boolean;
  hasPrev: boolean;
  nextCursor?: string;
}

export function paginated<T>(data: T[], total: number, p: Page): { data: T[]; pagination: Pagination & { page: number; total: number; totalPages: number } } {
  const totalPages = Math.ceil(total / p.limit);
  return {
    data,
    pagination: { page: p.page, limit: p.limit, total, totalPages, hasNext: p.page < totalPages, hasPrev: p.page > 1 },
  };
}
