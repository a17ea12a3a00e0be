import { iso } from '../../../platform/time.ts';
import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { assertIfMatch } from '../../../platform/http/etag.ts';
import { AppError, conflict, notFound, unprocessable } from '../../../platform/http/errors.ts';
import { optionalText, requiredText } from '../../../platform/http/text.ts';
import { checkAttributes, checkFieldSchema } from './attributes.ts';
import type { FieldDefinition } from '../../../platform/db/builtin-asset-types.ts';
import {
  countAssetsOfType,
  deleteAssetType,
  fieldsOf,
  findAssetTypeView,
  insertAssetType,
  listAssetTypes,
  updateAssetType,
  type AssetTypeViewRow,
} from './types.repo.ts';
import type { AssetType, CreateAssetTypeBody, UpdateAssetTypeBody } from './types.schemas.ts';

export function toAssetType(row: AssetTypeViewRow): AssetType {
  return {
    slug: row.slug,
    type_name: row.type_name,
    description: row.description,
    is_builtin: row.is_builtin,
    field_schema: fieldsOf(row),
    asset_count: row.asset_count,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** JSON with object keys sorted at every level: jsonb hands keys back in its own order. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

async function view(db: Executor, tenant: string, slug: string): Promise<AssetTypeViewRow> {
  const row = await findAssetTypeView(db, tenant, slug);
  if (!row) throw notFound('Asset type', slug);
  return row;
}

/**
 * A schema change must keep every existing asset of the type valid (otherwise the next unrelated write
 * of such an asset would fail): 409 naming how many would break and a few of them.
 */
async function assertAssetsStillValid(db: Executor, tenant: string, slug: string, fields: FieldDefinition[]): Promise<void> {
  const assets = await db.selectFrom('assets').select(['asset_id', 'attributes']).where('tenant', '=', tenant).where('asset_type', '=', slug).execute();
  const broken: { asset_id: string; problem: string }[] = [];
  for (const a of assets) {
    try {
      checkAttributes(fields, a.attributes, slug, 'attributes');
    } catch (err) {
      broken.push({ asset_id: a.asset_id, problem: (err as Error).message });
    }
  }
  if (broken.length > 0) {
    throw conflict(`${broken.length} asset(s) of type '${slug}' do not fit the new field schema; update their attributes first`, {
      invalid_asset_count: broken.length,
      assets: broken.slice(0, 10),
    });
  }
}

export function createAssetTypesService(deps: { db: Kysely<DB> }) {
  const { db } = deps;
  return {
    async list(actor: Actor): Promise<AssetType[]> {
      return (await listAssetTypes(db, actor.tenant)).map(toAssetType);
    },

    async get(actor: Actor, slug: string): Promise<AssetType> {
      return toAssetType(await view(db, actor.tenant, slug));
    },

    async create(actor: Actor, body: CreateAssetTypeBody): Promise<AssetType> {
      const fields = checkFieldSchema(body.field_schema ?? []);
      const typeName = requiredText(body.type_name, 'body.type_name');
      return withTransaction(db, async (trx) => {
        if (await findAssetTypeView(trx, actor.tenant, body.slug)) throw conflict(`An asset type '${body.slug}' already exists`, { slug: body.slug });
        await insertAssetType(trx, {
          tenant: actor.tenant,
          slug: body.slug,
          type_name: typeName,
          description: optionalText(body.description) ?? null,
          is_builtin: false,
          field_schema: JSON.stringify(fields),
        });
        return toAssetType(await view(trx, actor.tenant, body.slug));
      });
    },

    /**
     * Built-in types keep their field schema (integrations and the RMM sync rely on those keys; a tenant
     * needing other fields defines its own type); their name and description may change.
     */
    async update(actor: Actor, slug: string, body: UpdateAssetTypeBody, ifMatch?: string): Promise<AssetType> {
      const fields = body.field_schema === undefined ? undefined : checkFieldSchema(body.field_schema);
      return withTransaction(db, async (trx) => {
        await trx.selectFrom('asset_types').select('slug').where('tenant', '=', actor.tenant).where('slug', '=', slug).forUpdate().executeTakeFirst();
        const current = await view(trx, actor.tenant, slug);
        assertIfMatch(ifMatch, toAssetType(current));
        if (fields && current.is_builtin && stableJson(fields) !== stableJson(fieldsOf(current))) {
          throw unprocessable(`The field schema of built-in asset type '${slug}' is fixed; define a type of your own for other attributes`);
        }
        if (fields) await assertAssetsStillValid(trx, actor.tenant, slug, fields);
        await updateAssetType(trx, actor.tenant, slug, {
          type_name: body.type_name === undefined ? undefined : requiredText(body.type_name, 'body.type_name'),
          description: optionalText(body.description),
          field_schema: fields ? JSON.stringify(fields) : undefined,
          updated_at: new Date(),
        });
        return toAssetType(await view(trx, actor.tenant, slug));
      });
    },

    async remove(actor: Actor, slug: string, ifMatch?: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        await trx.selectFrom('asset_types').select('slug').where('tenant', '=', actor.tenant).where('slug', '=', slug).forUpdate().executeTakeFirst();
        const current = await view(trx, actor.tenant, slug);
        assertIfMatch(ifMatch, toAssetType(current));
        if (current.is_builtin) throw unprocessable(`Built-in asset type '${slug}' cannot be deleted`);
        const inUse = await countAssetsOfType(trx, actor.tenant, slug);
        if (inUse > 0) throw new AppError('CONFLICT', `Asset type '${slug}' is used by ${inUse} asset(s); change or delete them first`, { asset_count: inUse });
        await deleteAssetType(trx, actor.tenant, slug);
      });
    },
  };
}

export type AssetTypesService = ReturnType<typeof createAssetTypesService>;
