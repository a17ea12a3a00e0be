import type { Kysely, Transaction, Updateable } from 'kysely';
import type { Actor } from '../../platform/auth/context.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { DB, InboundWebhooksTable } from '../../platform/db/schema.ts';
import { assertIfMatch } from '../../platform/http/etag.ts';
import { AppError, conflict, notFound } from '../../platform/http/errors.ts';
import { listPage } from '../../platform/http/list.ts';
import { optionalText, requiredText } from '../../platform/http/text.ts';
import { newId } from '../../platform/ids.ts';
import { generateSecret, secretNeeded } from './auth.ts';
import type { ActionRegistry } from './actions/registry.ts';
import { toActionInfo, toInboundWebhook, toInboundWebhookSummary } from './inbound-webhooks.mapper.ts';
import {
  deleteWebhook, findWebhook, findWebhookIdBySlug, insertWebhook, updateWebhook, webhookList, type InboundWebhookRow,
} from './inbound-webhooks.repo.ts';
import type { ReceiverConfigs } from './receiver-configs.ts';
import { normalizeAuth, normalizeHandler, normalizeIdempotencySource, type SecretChange } from './inbound-webhooks.rules.ts';
import type {
  ActionInfo, CreateInboundWebhookBody, InboundWebhook, ListInboundWebhooksQuery, UpdateInboundWebhookBody,
} from './inbound-webhooks.schemas.ts';

export interface InboundWebhooksDeps {
  db: Kysely<DB>;
  secretBox: SecretBox;
  registry: ActionRegistry;
  publicUrl: string;
  /** The receiver's cached configurations: every write here goes through it. */
  configs: ReceiverConfigs;
}

/** A configuration, and the secret when the service generated one (shown in this response only). */
export interface WithSecret {
  webhook: InboundWebhook;
  secret?: string;
}

const DEFAULT_WINDOW_SECONDS = 86_400;
const DEFAULT_RATE_PER_MINUTE = 600;

export function createInboundWebhooksService(deps: InboundWebhooksDeps) {
  const { db, secretBox, registry, publicUrl, configs } = deps;
  const view = (actor: Actor, row: InboundWebhookRow) => toInboundWebhook(row, publicUrl, actor.tenantSlug);

  const load = async (executor: Kysely<DB> | Transaction<DB>, actor: Actor, id: string, lock = false): Promise<InboundWebhookRow> => {
    const row = await findWebhook(executor, actor.tenant, id, lock);
    if (!row) throw notFound('Inbound webhook', id);
    return row;
  };

  const assertSlugFree = async (trx: Transaction<DB>, tenant: string, slug: string, self?: string) => {
    const existing = await findWebhookIdBySlug(trx, tenant, slug);
    if (existing && existing !== self) throw conflict(`An inbound webhook with slug '${slug}' already exists`, { inbound_webhook_id: existing });
  };

  const secretColumns = (change: SecretChange, now: Date): Updateable<InboundWebhooksTable> => {
    if (change.kind === 'keep') return {};
    if (change.kind === 'clear') return { secret_enc: null, secret_rotated_at: null };
    return { secret_enc: secretBox.encrypt(change.value), secret_rotated_at: now };
  };
  const shownSecret = (change: SecretChange) => (change.kind === 'set' && change.generated ? change.value : undefined);

  return {
    actions(): ActionInfo[] {
      return registry.list().map(toActionInfo);
    },

    async list(actor: Actor, query: ListInboundWebhooksQuery) {
      const list = webhookList(db, actor.tenant, { isActive: query.is_active, handlerType: query.handler_type });
      return listPage(query, list, (rows) => rows.map((r) => toInboundWebhookSummary(r, publicUrl, actor.tenantSlug)));
    },

    async get(actor: Actor, id: string): Promise<InboundWebhook> {
      return view(actor, await load(db, actor, id));
    },

    async create(actor: Actor, body: CreateInboundWebhookBody): Promise<WithSecret> {
      const name = requiredText(body.name, 'body.name');
      const auth = normalizeAuth(body.auth_type, body.auth_config, false);
      const idempotency = normalizeIdempotencySource(body.idempotency_source);
      const handler = normalizeHandler(body.handler_type, body.handler_config, actor, registry);
      return configs.write(actor.tenant, async (trx) => {
        await assertSlugFree(trx, actor.tenant, body.slug);
        const now = new Date();
        const row = await insertWebhook(trx, {
          tenant: actor.tenant,
          inbound_webhook_id: newId(),
          name,
          description: optionalText(body.description) ?? null,
          slug: body.slug,
          auth_type: body.auth_type,
          auth_config: JSON.stringify(auth.auth_config),
          secret_enc: null,
          secret_rotated_at: null,
          ...secretColumns(auth.secret, now),
          idempotency_source: idempotency ? JSON.stringify(idempotency) : null,
          idempotency_window_seconds: body.idempotency_window_seconds ?? DEFAULT_WINDOW_SECONDS,
          handler_type: body.handler_type,
          handler_config: JSON.stringify(handler.handler_config),
          rate_limit_per_minute: body.rate_limit_per_minute ?? DEFAULT_RATE_PER_MINUTE,
          is_active: body.is_active ?? true,
          created_by_user_id: actor.userId,
          created_at: now,
          updated_at: now,
        });
        return { webhook: view(actor, row), secret: shownSecret(auth.secret) };
      });
    },

    /** Partial update; auth_config and handler_config, when sent, replace the stored ones (the secret stays unless sent). */
    async update(actor: Actor, id: string, body: UpdateInboundWebhookBody, ifMatch?: string): Promise<WithSecret> {
      return configs.write(actor.tenant, async (trx) => {
        const current = await load(trx, actor, id, true);
        assertIfMatch(ifMatch, view(actor, current));
        const now = new Date();
        const set: Updateable<InboundWebhooksTable> = {};
        let secret: SecretChange = { kind: 'keep' };

        if (body.name !== undefined) set.name = requiredText(body.name, 'body.name');
        if (body.description !== undefined) set.description = optionalText(body.description) ?? null;
        if (body.slug !== undefined && body.slug !== current.slug) {
          await assertSlugFree(trx, actor.tenant, body.slug, id);
          set.slug = body.slug;
        }
        const authType = body.auth_type ?? current.auth_type;
        if (authType !== current.auth_type || body.auth_config !== undefined) {
          // A new type starts from its defaults; sent settings replace the stored ones (the secret stays unless sent).
          const hadSecret = current.secret_enc !== null && secretNeeded(current.auth_type);
          const auth = normalizeAuth(authType, body.auth_config, hadSecret);
          set.auth_type = authType;
          set.auth_config = JSON.stringify(auth.auth_config);
          secret = auth.secret;
          Object.assign(set, secretColumns(secret, now));
        }
        if (body.idempotency_source !== undefined) {
          const source = normalizeIdempotencySource(body.idempotency_source);
          set.idempotency_source = source ? JSON.stringify(source) : null;
        }
        if (body.idempotency_window_seconds !== undefined) set.idempotency_window_seconds = body.idempotency_window_seconds;
        if (body.handler_type !== undefined || body.handler_config !== undefined) {
          const handlerType = body.handler_type ?? current.handler_type;
          if (handlerType !== current.handler_type && body.handler_config === undefined) {
            throw new AppError('VALIDATION_ERROR', 'body.handler_config: a changed handler_type needs its handler_config', [{ path: 'body.handler_config', message: 'is required' }]);
          }
          const config = body.handler_config ?? (current.handler_config as UpdateInboundWebhookBody['handler_config'])!;
          set.handler_type = handlerType;
          set.handler_config = JSON.stringify(normalizeHandler(handlerType, config, actor, registry).handler_config);
        }
        if (body.rate_limit_per_minute !== undefined) set.rate_limit_per_minute = body.rate_limit_per_minute;
        if (body.is_active !== undefined) set.is_active = body.is_active;

        const row = await updateWebhook(trx, actor.tenant, id, { ...set, updated_at: now });
        return { webhook: view(actor, row), secret: shownSecret(secret) };
      });
    },

    /** Deliveries, idempotency keys and the sample go with it; external-id mappings stay (they name records). */
    async remove(actor: Actor, id: string, ifMatch?: string): Promise<void> {
      await configs.write(actor.tenant, async (trx) => {
        const current = await load(trx, actor, id, true);
        assertIfMatch(ifMatch, view(actor, current));
        await deleteWebhook(trx, actor.tenant, id);
      });
    },

    /** A new generated secret, valid at once; the old one stops working in the same commit. */
    async rotateSecret(actor: Actor, id: string): Promise<WithSecret> {
      return configs.write(actor.tenant, async (trx) => {
        const current = await load(trx, actor, id, true);
        if (!secretNeeded(current.auth_type)) {
          throw new AppError('UNPROCESSABLE', 'An ip_allowlist webhook has no secret to rotate', { auth_type: current.auth_type });
        }
        const secret = generateSecret();
        const now = new Date();
        const row = await updateWebhook(trx, actor.tenant, id, { secret_enc: secretBox.encrypt(secret), secret_rotated_at: now, updated_at: now });
        return { webhook: view(actor, row), secret };
      });
    },

    /** The next verified request's body becomes the sample (replacing any earlier one). */
    async armCapture(actor: Actor, id: string): Promise<InboundWebhook> {
      return configs.write(actor.tenant, async (trx) => {
        await load(trx, actor, id, true);
        return view(actor, await updateWebhook(trx, actor.tenant, id, { sample_capture_requested_at: new Date() }));
      });
    },

    /** Clears the sample and any pending capture. */
    async clearCapture(actor: Actor, id: string): Promise<void> {
      await configs.write(actor.tenant, async (trx) => {
        await load(trx, actor, id, true);
        await updateWebhook(trx, actor.tenant, id, { sample_payload: null, sample_captured_at: null, sample_capture_requested_at: null });
      });
    },
  };
}

export type InboundWebhooksService = ReturnType<typeof createInboundWebhooksService>;
