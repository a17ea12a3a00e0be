import type { Migration } from 'kysely';
import * as platform from './2026_11_21_0001_platform.ts';
import * as clients from './2026_11_21_0002_clients.ts';
import * as identity from './2026_11_21_0003_identity.ts';
import * as storage from './2026_11_21_0004_storage.ts';

/** One ordered timeline. Append new migrations; never edit or reorder shipped ones. */
export const migrations: Record<string, Migration> = {
  '2026_11_21_0001_platform': platform,
  '2026_11_21_0002_clients': clients,
  '2026_11_21_0003_identity': identity,
  '2026_11_21_0004_storage': storage,
};
