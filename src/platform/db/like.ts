const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A LIKE/ILIKE pattern matching `s` anywhere, literally: backslash (PostgreSQL's default escape), % and _ are escaped. */
export const likePattern = (s: string): string => `%${escapeLike(s)}%`;

/** A LIKE pattern matching strings that start with `s`, literally (escaped as in likePattern). */
export const likePrefixPattern = (s: string): string => `${escapeLike(s)}%`;
