import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { BucketStore } from '../../platform/http/rate-limit/token-bucket.ts';
import { createTwoFactorService } from './two-factor.service.ts';
import { twoFactorRoutes } from './two-factor.routes.ts';
import { defineModule, V1 } from '../deps.ts';

export { verifySecondFactor, type SecondFactorResult } from './second-factor.ts';

/** TOTP two-factor authentication: enrolment, confirmation with recovery codes, and switching it off. */
export function createTwoFactorModule(deps: { db: Kysely<DB>; secretBox: SecretBox; buckets: BucketStore }) {
  const service = createTwoFactorService(deps);
  return { service, routes: twoFactorRoutes(service) };
}

export const twoFactorModule = defineModule({
  name: 'two-factor',
  build: (deps) => ({ routes: [{ prefix: V1, plugin: createTwoFactorModule(deps).routes }] }),
});
