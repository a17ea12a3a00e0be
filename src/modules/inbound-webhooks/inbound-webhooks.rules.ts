import { requirePermission, type Actor } from '../../platform/auth/context.ts';
import type { InboundAuthType, InboundHandlerType } from '../../platform/db/schema.ts';
import { AppError, validation } from '../../platform/http/errors.ts';
import { DEFAULT_QUERY_PARAM, DEFAULT_SIGNATURE_HEADER, canonicalAllowEntry, generateSecret, secretNeeded, type AuthSettings } from './auth.ts';
import type { ActionRegistry } from './actions/registry.ts';
import { checkExpression } from './expressions.ts';
import type { AuthConfigInput, HandlerConfigInput, IdempotencySource } from './inbound-webhooks.schemas.ts';
import { isSecretHeader } from './request-meta.ts';

/** Save-time checks of a configuration: every problem is a 400 naming the field (403 for permissions). */

const SETTINGS_OF: Record<InboundAuthType, readonly (keyof AuthConfigInput)[]> = {
  hmac_sha256: ['signature_header', 'timestamp_header', 'tolerance_seconds', 'secret'],
  bearer: ['secret'],
  path_token: ['query_param', 'secret'],
  ip_allowlist: ['allowed_ips'],
};

export type SecretChange = { kind: 'keep' } | { kind: 'clear' } | { kind: 'set'; value: string; generated: boolean };

export interface NormalizedAuth {
  auth_config: AuthSettings;
  secret: SecretChange;
}

/**
 * The settings of an auth type with defaults filled in, and what happens to the stored secret: a
 * supplied one replaces it; otherwise a type that needs one keeps the stored secret, or gets a
 * generated one (returned once) when there is none.
 */
export function normalizeAuth(type: InboundAuthType, input: AuthConfigInput | undefined, hadSecret: boolean): NormalizedAuth {
  const given = input ?? {};
  for (const key of Object.keys(given) as (keyof AuthConfigInput)[]) {
    if (!SETTINGS_OF[type].includes(key)) throw validation(`body.auth_config.${key}`, `is not a setting of auth_type ${type} (it takes: ${SETTINGS_OF[type].join(', ')})`);
  }
  const settings: AuthSettings = {};
  if (type === 'hmac_sha256') {
    settings.signature_header = (given.signature_header ?? DEFAULT_SIGNATURE_HEADER).toLowerCase();
    if (given.timestamp_header !== undefined) {
      settings.timestamp_header = given.timestamp_header.toLowerCase();
      if (settings.timestamp_header === settings.signature_header) throw validation('body.auth_config.timestamp_header', 'must differ from signature_header');
    }
    if (given.tolerance_seconds !== undefined) {
      if (given.timestamp_header === undefined) throw validation('body.auth_config.tolerance_seconds', 'needs timestamp_header');
      settings.tolerance_seconds = given.tolerance_seconds;
    }
  }
  if (type === 'path_token') settings.query_param = given.query_param ?? DEFAULT_QUERY_PARAM;
  if (type === 'ip_allowlist') {
    if (!given.allowed_ips) throw validation('body.auth_config.allowed_ips', 'ip_allowlist needs at least one address or CIDR range');
    const entries: string[] = [];
    given.allowed_ips.forEach((entry, i) => {
      const canonical = canonicalAllowEntry(entry);
      if (!canonical) throw validation(`body.auth_config.allowed_ips.${i}`, `'${entry}' is not an IPv4/IPv6 address or CIDR range`);
      if (!entries.includes(canonical)) entries.push(canonical);
    });
    settings.allowed_ips = entries;
  }
  let secret: SecretChange;
  if (!secretNeeded(type)) secret = { kind: 'clear' };
  else if (given.secret !== undefined) secret = { kind: 'set', value: given.secret, generated: false };
  else secret = hadSecret ? { kind: 'keep' } : { kind: 'set', value: generateSecret(), generated: true };
  return { auth_config: settings, secret };
}

function expressionProblem(path: string, source: string): AppError | undefined {
  const problem = checkExpression(source);
  if (!problem) return undefined;
  const where = problem.position !== null ? ` at position ${problem.position}` : '';
  return new AppError('VALIDATION_ERROR', `${path}: the JSONata expression does not compile${where}: ${problem.message}`, [
    { path, message: problem.message, position: problem.position, ...(problem.code ? { code: problem.code } : {}) },
  ]);
}

export function normalizeIdempotencySource(source: IdempotencySource | null | undefined): IdempotencySource | null {
  if (!source) return null;
  if (source.type === 'header') {
    const name = source.value.trim().toLowerCase();
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]{1,100}$/.test(name)) throw validation('body.idempotency_source.value', 'must be an HTTP header name');
    if (isSecretHeader(name)) throw validation('body.idempotency_source.value', `'${name}' carries credentials and is never read`);
    return { type: 'header', value: name };
  }
  const problem = expressionProblem('body.idempotency_source.value', source.value);
  if (problem) throw problem;
  return { type: 'jsonata', value: source.value };
}

export interface NormalizedHandler {
  handler_config: { action?: string; field_mapping?: Record<string, string>; workflow_id?: string | null };
}

/**
 * A handler configuration: the action exists, every mapped field is one of its target fields and
 * compiles, every required field is mapped, and the saving user holds the action's permissions (the
 * action will run with the creator's, who must not be able to lend more than they have).
 */
export function normalizeHandler(type: InboundHandlerType, config: HandlerConfigInput, actor: Actor, registry: ActionRegistry): NormalizedHandler {
  if (type === 'workflow') {
    for (const key of ['action', 'field_mapping'] as const) {
      if (config[key] !== undefined) throw validation(`body.handler_config.${key}`, 'is a direct_action setting; a workflow handler takes workflow_id');
    }
    return { handler_config: { workflow_id: config.workflow_id ?? null } };
  }
  if (config.workflow_id !== undefined) throw validation('body.handler_config.workflow_id', 'is a workflow setting; a direct_action handler takes action and field_mapping');
  if (!config.action) throw validation('body.handler_config.action', 'is required for direct_action (GET /api/v1/inbound-webhooks/actions lists the actions)');
  const registered = registry.get(config.action);
  if (!registered) throw validation('body.handler_config.action', `'${config.action}' is not a registered action (GET /api/v1/inbound-webhooks/actions lists them)`);
  const { definition } = registered;
  const mapping = config.field_mapping ?? {};
  const fields = new Set(definition.target_fields.map((f) => f.name));
  for (const [name, source] of Object.entries(mapping)) {
    if (!fields.has(name)) throw validation(`body.handler_config.field_mapping.${name}`, `is not a target field of ${definition.name} (it has: ${[...fields].join(', ')})`);
    const problem = expressionProblem(`body.handler_config.field_mapping.${name}`, source);
    if (problem) throw problem;
  }
  const unmapped = definition.target_fields.filter((f) => f.required && mapping[f.name] === undefined).map((f) => f.name);
  if (unmapped.length > 0) throw validation('body.handler_config.field_mapping', `${definition.name} needs a mapping for: ${unmapped.join(', ')}`);
  requirePermission(actor, ...definition.permissions);
  return { handler_config: { action: definition.name, field_mapping: mapping } };
}
