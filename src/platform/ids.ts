import { v7 } from 'uuid';

/** Time-ordered UUIDv7: index-friendly and unguessable enough for URLs. */
export const newId = (): string => v7();

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
