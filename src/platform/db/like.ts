/** A LIKE/ILIKE pattern matching `s` anywhere, literally: backslash (PostgreSQL's default escape), % and _ are escaped. */
export const likePattern = (s: string): string => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
