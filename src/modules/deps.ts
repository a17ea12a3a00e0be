import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { InboundAction } from '../platform/actions/action.ts';
import type { KeyCache } from '../platform/auth/key-cache.ts';
import type { SecretBox } from '../platform/crypto/secret-box.ts';
import type { Database } from '../platform/db/database.ts';
import type { DB } from '../platform/db/schema.ts';
import type { WorkerLog } from '../platform/events/worker.ts';
import type { BucketStore } from '../platform/http/rate-limit/token-bucket.ts';
import type { Mailer } from '../platform/mail/mailer.ts';
import type { ModuleManifest } from '../platform/modules/module.ts';
import type { OutboundClient } from '../platform/net/outbound-http.ts';

/** What the composition root (src/modules.ts) hands every area's `build`. */
export interface ModuleDeps {
  db: Kysely<DB>;
  database: Database;
  config: Readonly<Config>;
  /** Encrypts secrets at rest and keys MACs. */
  secretBox: SecretBox;
  keyCache: KeyCache;
  /** Rate-limit buckets (memory, or Redis shared across api processes). */
  buckets: BucketStore;
  /** The SSRF-guarded client for outbound requests made while serving a request (webhook tests, RMM). */
  outbound: OutboundClient;
  /**
   * Another area's service API (its manifest's `api`), by module name. Areas listed earlier are built
   * first; a lookup made while serving a request sees every area.
   */
  services<T>(module: string): T;
  /** Every area's inbound-webhook actions (complete once all areas are built). */
  inboundActions(): readonly InboundAction[];
}

/** What the composition root hands every area's `worker` (a worker process serves no requests). */
export interface WorkerDeps {
  db: Kysely<DB>;
  database: Database;
  config: Readonly<Config>;
  secretBox: SecretBox;
  /** Sends the e-mails consumers write (a webhook's auto-disable notice). */
  mailer: Mailer;
  /**
   * The process's SSRF-guarded client for requests jobs make (automation's call_url), configured like the
   * webhook dispatcher's (PSA_WEBHOOK_ALLOW_PRIVATE); the entry point closes it. Absent in tests that do
   * not need it: an area then builds its own.
   */
  outbound?: OutboundClient;
  log: WorkerLog;
}

export type AreaModule = ModuleManifest<ModuleDeps, WorkerDeps>;

/** Declares an area's manifest (the identity function that gives the object its type). */
export const defineModule = (manifest: AreaModule): AreaModule => manifest;

/** The prefix of the versioned REST API. */
export const V1 = '/api/v1';
