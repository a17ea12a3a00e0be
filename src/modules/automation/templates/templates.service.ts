import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import type { SecretBox } from '../../../platform/crypto/secret-box.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { AppError, notFound, unprocessable, validation } from '../../../platform/http/errors.ts';
import { pageOfArray } from '../../../platform/http/list.ts';
import { requiredText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { iso } from '../../../platform/time.ts';
import { problemsError, validateRuleShape, type Problem } from '../automation.catalog.ts';
import { findRule } from '../rules/rules.repo.ts';
import type { RuleWithSecret } from '../rules/rules.schemas.ts';
import { definitionOf, insertOwnedRule } from '../rules/rules.service.ts';
import { BUILTIN_TEMPLATES, builtinTemplate, type BuiltinTemplate } from './templates.builtin.ts';
import { hasPath, overlaps, setPath, unsetPath } from './templates.paths.ts';
import {
  bumpBuiltinUsage,
  bumpTemplateUsage,
  builtinUsage,
  countTemplates,
  findTemplate,
  insertTemplate,
  tenantTemplates,
  type TemplateRow,
} from './templates.repo.ts';
import type { CreateTemplateBody, ListTemplatesQuery, Template, TemplateVariable, TemplateVariableInput, UseTemplateBody } from './templates.schemas.ts';

/** A tenant keeps at most this many templates of its own (422 beyond). */
export const TEMPLATES_PER_TENANT = 500;

/** The marker a variable's place holds in a template's config. */
export const variableMarker = (name: string): string => `{{var:${name}}}`;

type Usage = { usage_count: number; last_used_at: Date | null };

export function toTemplate(r: TemplateRow): Template {
  return {
    template_id: r.template_id,
    name: r.name,
    description: r.description,
    category: r.category,
    is_builtin: false,
    template_config: r.template_config,
    template_variables: r.template_variables as TemplateVariable[],
    usage_count: r.usage_count,
    last_used_at: iso(r.last_used_at),
    created_by: r.created_by,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export function builtinToTemplate(b: BuiltinTemplate, usage?: Usage): Template {
  return {
    template_id: b.template_id,
    name: b.name,
    description: b.description,
    category: b.category,
    is_builtin: true,
    template_config: b.template_config,
    template_variables: b.template_variables,
    usage_count: usage?.usage_count ?? 0,
    last_used_at: iso(usage?.last_used_at ?? null),
    created_by: null,
    created_at: b.created_at,
    updated_at: b.created_at,
  };
}

const typeOk = (v: TemplateVariable | TemplateVariableInput, value: unknown): string | undefined => {
  switch (v.type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'select':
      return (v.options ?? []).some((o) => o.value === value) ? undefined : `must be one of: ${(v.options ?? []).map((o) => JSON.stringify(o.value)).join(', ')}`;
  }
};

/** Checks a template's variables against the rule definition they are cut from; returns them completed. */
export function checkVariables(definition: Record<string, unknown>, vars: readonly TemplateVariableInput[], base: string): TemplateVariable[] {
  const problems: Problem[] = [];
  const seen = new Map<string, number>();
  vars.forEach((v, i) => {
    const at = `${base}.${i}`;
    if (seen.has(v.variable_name)) problems.push({ path: `${at}.variable_name`, message: `'${v.variable_name}' is also variable ${seen.get(v.variable_name)}'s name` });
    seen.set(v.variable_name, i);
    if (!hasPath(definition, v.rule_field_path)) problems.push({ path: `${at}.rule_field_path`, message: `'${v.rule_field_path}' names no value of the rule` });
    const other = vars.findIndex((w, j) => j < i && overlaps(w.rule_field_path, v.rule_field_path));
    if (other >= 0) problems.push({ path: `${at}.rule_field_path`, message: `overlaps variable ${other}'s path '${vars[other]!.rule_field_path}'` });
    if (v.type === 'select' && v.options === undefined) problems.push({ path: `${at}.options`, message: 'is required for a select variable' });
    if (v.type !== 'select' && v.options !== undefined) problems.push({ path: `${at}.options`, message: `is only for select variables (this one is ${v.type})` });
    if (v.default_value !== undefined && v.default_value !== null && (v.type !== 'select' || v.options !== undefined)) {
      const p = typeOk(v, v.default_value);
      if (p) problems.push({ path: `${at}.default_value`, message: p });
    }
  });
  if (problems.length > 0) throw problemsError(problems);
  return vars.map((v, i) => ({
    rule_field_path: v.rule_field_path,
    variable_name: v.variable_name,
    display_name: requiredText(v.display_name, `${base}.${i}.display_name`),
    description: v.description?.trim() || null,
    type: v.type,
    required: v.required ?? false,
    default_value: v.default_value ?? null,
    options: v.options ?? null,
  }));
}

/**
 * A template's config with its variables filled in. A variable without a value takes its default; a
 * required one without either is a 400; an optional one without either is left out of the rule.
 */
export function fillTemplate(config: Record<string, unknown>, vars: readonly TemplateVariable[], values: Record<string, unknown>): Record<string, unknown> {
  const problems: Problem[] = [];
  const names = new Set(vars.map((v) => v.variable_name));
  for (const k of Object.keys(values)) if (!names.has(k)) problems.push({ path: `body.variables.${k}`, message: 'is not a variable of this template' });
  const filled = structuredClone(config);
  for (const v of vars) {
    const given = values[v.variable_name];
    const value = given ?? v.default_value ?? undefined;
    const at = `body.variables.${v.variable_name}`;
    if (value === undefined) {
      if (v.required) problems.push({ path: at, message: `is required (${v.display_name})` });
      else if (hasPath(filled, v.rule_field_path)) unsetPath(filled, v.rule_field_path);
      continue;
    }
    const p = typeOk(v, value);
    if (p) problems.push({ path: at, message: p });
    else if (hasPath(filled, v.rule_field_path)) setPath(filled, v.rule_field_path, value);
  }
  if (problems.length > 0) throw problemsError(problems);
  return filled;
}

/** Problems of the filled rule at a variable's place are reported at the variable (`body.variables.board_id`). */
function blameVariables(err: unknown, vars: readonly TemplateVariable[], base: string): unknown {
  if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR' || !Array.isArray(err.details)) return err;
  const mapped = (err.details as Problem[]).map((p) => {
    const v = vars.find((x) => p.path === `${base}.${x.rule_field_path}` || p.path.startsWith(`${base}.${x.rule_field_path}.`));
    return v ? { path: `body.variables.${v.variable_name}`, message: `${p.message} (at ${v.rule_field_path})` } : p;
  });
  return problemsError(mapped);
}

interface Loaded {
  template: Template;
  config: Record<string, unknown>;
  variables: TemplateVariable[];
  builtin: boolean;
}

export function createTemplatesService(deps: { db: Kysely<DB>; secretBox: SecretBox }) {
  const { db, secretBox } = deps;

  async function load(actor: Actor, id: string): Promise<Loaded> {
    const b = builtinTemplate(id);
    if (b) {
      const [usage] = await builtinUsage(db, actor.tenant, id);
      return { template: builtinToTemplate(b, usage), config: b.template_config, variables: b.template_variables, builtin: true };
    }
    const row = await findTemplate(db, actor.tenant, id);
    if (!row) throw notFound('Automation template', id);
    return { template: toTemplate(row), config: row.template_config, variables: row.template_variables as TemplateVariable[], builtin: false };
  }

  return {
    /** The built-in templates and the tenant's own, filtered, sorted and paged together. */
    async list(actor: Actor, query: ListTemplatesQuery) {
      const [rows, usage] = await Promise.all([tenantTemplates(db, actor.tenant), builtinUsage(db, actor.tenant)]);
      const usageOf = new Map(usage.map((u) => [u.template_id, u]));
      let all = [...BUILTIN_TEMPLATES.map((b) => builtinToTemplate(b, usageOf.get(b.template_id))), ...rows.map(toTemplate)];
      const search = query.search?.trim().toLowerCase();
      if (search) all = all.filter((t) => t.name.toLowerCase().includes(search) || (t.description ?? '').toLowerCase().includes(search));
      if (query.category !== undefined) all = all.filter((t) => t.category === query.category);
      if (query.is_builtin !== undefined) all = all.filter((t) => t.is_builtin === query.is_builtin);
      if (query.updated_since !== undefined) {
        const since = Date.parse(query.updated_since);
        all = all.filter((t) => Date.parse(t.updated_at) >= since);
      }
      const sort = query.sort ?? 'name';
      const dir = (query.order ?? (sort === 'name' || sort === 'updated_at' ? 'asc' : 'desc')) === 'asc' ? 1 : -1;
      const key = (t: Template): string | number =>
        sort === 'name' ? t.name.toLowerCase() : sort === 'usage_count' ? t.usage_count : Date.parse(sort === 'updated_at' ? t.updated_at : t.created_at);
      all.sort((x, y) => {
        const a = key(x);
        const b = key(y);
        const c = a < b ? -1 : a > b ? 1 : x.template_id < y.template_id ? -1 : x.template_id > y.template_id ? 1 : 0;
        return c * dir;
      });
      // The keyset walk (sort=updated_at) sorts again by (updated_at, id) and binds its cursors to this list and its filters.
      const { cursor: _cursor, page: _page, limit: _limit, order: _order, ...filters } = query;
      return pageOfArray(query, all, { scope: [actor.tenant, 'automation_templates', filters], key: (t) => ({ updatedAt: t.updated_at, id: t.template_id }) });
    },

    async get(actor: Actor, id: string): Promise<Template> {
      return (await load(actor, id)).template;
    },

    /** A template from one of the tenant's rules: its definition, with each variable's place marked. */
    async create(actor: Actor, body: CreateTemplateBody): Promise<Template> {
      const name = requiredText(body.template_name, 'body.template_name');
      return withTransaction(db, async (trx) => {
        const rule = await findRule(trx, actor.tenant, body.automation_rule_id);
        if (!rule) throw validation('body.automation_rule_id', `automation rule '${body.automation_rule_id}' does not exist`);
        const definition = definitionOf(rule) as unknown as Record<string, unknown>;
        const variables = checkVariables(definition, body.template_variables ?? [], 'body.template_variables');
        if ((await countTemplates(trx, actor.tenant)) >= TEMPLATES_PER_TENANT) {
          throw unprocessable(`A tenant keeps at most ${TEMPLATES_PER_TENANT} automation templates`, { rule: 'template_limit', limit: TEMPLATES_PER_TENANT });
        }
        const config = structuredClone(definition);
        for (const v of variables) setPath(config, v.rule_field_path, variableMarker(v.variable_name));
        const row = await insertTemplate(trx, {
          tenant: actor.tenant,
          template_id: newId(),
          name,
          description: body.template_description?.trim() || null,
          category: body.category?.trim() || null,
          template_config: JSON.stringify(config),
          template_variables: JSON.stringify(variables),
          created_by: actor.userId,
        });
        return toTemplate(row);
      });
    },

    /**
     * Creates a draft rule owned by the caller from a template: the variables filled in (type-checked;
     * required ones present) and the result validated as any rule is. 201 with its signing secret, once.
     */
    async use(actor: Actor, id: string, body: UseTemplateBody): Promise<RuleWithSecret> {
      const loaded = await load(actor, id);
      const filled = fillTemplate(loaded.config, loaded.variables, body.variables ?? {});
      if (body.name !== undefined) filled.name = requiredText(body.name, 'body.name');
      delete filled.status;
      const base = 'template_config';
      const def = (() => {
        try {
          return validateRuleShape(filled, base);
        } catch (err) {
          throw blameVariables(err, loaded.variables, base);
        }
      })();
      return withTransaction(db, async (trx) => {
        const rule = await insertOwnedRule(trx, secretBox, actor, def, base).catch((err: unknown) => {
          throw blameVariables(err, loaded.variables, base);
        });
        const now = new Date();
        if (loaded.builtin) await bumpBuiltinUsage(trx, actor.tenant, id, now);
        else await bumpTemplateUsage(trx, actor.tenant, id, now);
        return rule;
      });
    },
  };
}

export type TemplatesService = ReturnType<typeof createTemplatesService>;
