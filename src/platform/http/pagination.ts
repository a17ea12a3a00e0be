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

export function paginated<T>(data: T[], total: number, p: Page) {
  const totalPages = Math.ceil(total / p.limit);
  return {
    data,
    pagination: { page: p.page, limit: p.limit, total, totalPages, hasNext: p.page < totalPages, hasPrev: p.page > 1 },
  };
}
