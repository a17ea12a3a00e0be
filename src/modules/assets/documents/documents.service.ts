import { iso } from '../../../platform/time.ts';
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Actor } from '../../../platform/auth/context.ts';
import { withTransaction, type Executor } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { conflict, notFound } from '../../../platform/http/errors.ts';
import { optionalText } from '../../../platform/http/text.ts';
import { newId } from '../../../platform/ids.ts';
import { requireVisibleAsset } from '../assets.access.ts';
import type { AssetDocument, LinkDocumentBody } from './documents.schemas.ts';
import { syncDocuments } from './documents.sync.ts';

function associations(db: Executor, tenant: string) {
  return db
    .selectFrom('asset_documents as ad')
    .innerJoin('documents as d', (j) => j.onRef('d.tenant', '=', 'ad.tenant').onRef('d.document_id', '=', 'ad.document_id'))
    .where('ad.tenant', '=', tenant)
    .select([
      'ad.association_id', 'ad.asset_id', 'ad.document_id', 'd.file_name', 'd.mime_type', 'd.size_bytes', 'd.sha256', 'ad.notes',
      'd.uploaded_by', 'd.created_at as uploaded_at', 'ad.created_by as linked_by', 'ad.created_at as linked_at',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof associations>['execute']>>[number];

const toDocument = (r: Row): AssetDocument => ({
  ...r,
  size_bytes: Number(r.size_bytes),
  uploaded_at: iso(r.uploaded_at),
  linked_at: iso(r.linked_at),
  content_url: `/api/v1/assets/documents/${r.association_id}/content`,
});

export interface UploadedFile {
  fileName: string;
  mimeType: string;
  content: Buffer;
  notes?: string;
}

/**
 * Files attached to assets. Access follows the asset (asset:read to list and download, asset:update
 * to attach and detach); documents are reached only through an asset, so document:* is not needed.
 * Detaching removes the association; the document itself stays and can be linked again.
 */
export function createDocumentsService(deps: { db: Kysely<DB> }) {
  const { db } = deps;

  /** The association if its asset is visible to the actor; otherwise 404. */
  const visibleAssociation = async (executor: Executor, actor: Actor, associationId: string) => {
    const row = await associations(executor, actor.tenant).where('ad.association_id', '=', associationId).executeTakeFirst();
    if (!row) throw notFound('Asset document', associationId);
    try {
      await requireVisibleAsset(executor, actor, row.asset_id);
    } catch {
      throw notFound('Asset document', associationId);
    }
    return row;
  };

  const associate = async (trx: Executor, actor: Actor, assetId: string, documentId: string, notes: string | null | undefined) => {
    const inserted = await trx
      .insertInto('asset_documents')
      .values({ tenant: actor.tenant, association_id: newId(), asset_id: assetId, document_id: documentId, notes: optionalText(notes) ?? null, created_by: actor.userId })
      .onConflict((oc) => oc.columns(['tenant', 'asset_id', 'document_id']).doNothing())
      .returning('association_id')
      .executeTakeFirst();
    if (!inserted) throw conflict(`Document '${documentId}' is already linked to this asset`, { document_id: documentId });
    return toDocument(await associations(trx, actor.tenant).where('ad.association_id', '=', inserted.association_id).executeTakeFirstOrThrow());
  };

  return {
    async list(actor: Actor, assetId: string): Promise<AssetDocument[]> {
      await requireVisibleAsset(db, actor, assetId);
      const rows = await associations(db, actor.tenant).where('ad.asset_id', '=', assetId).orderBy('ad.created_at', 'desc').orderBy('ad.association_id', 'desc').execute();
      return rows.map(toDocument);
    },

    /** Checks the asset before the upload is read, so a refused request never buffers the file. */
    assertCanAttach: async (actor: Actor, assetId: string): Promise<void> => void (await requireVisibleAsset(db, actor, assetId)),

    async upload(actor: Actor, assetId: string, file: UploadedFile): Promise<AssetDocument> {
      return withTransaction(db, async (trx) => {
        await requireVisibleAsset(trx, actor, assetId, 'share');
        const documentId = newId();
        await trx
          .insertInto('documents')
          .values({
            tenant: actor.tenant,
            document_id: documentId,
            file_name: file.fileName,
            mime_type: file.mimeType,
            size_bytes: file.content.length,
            sha256: createHash('sha256').update(file.content).digest('hex'),
            content: file.content,
            uploaded_by: actor.userId,
          })
          .execute();
        const doc = await associate(trx, actor, assetId, documentId, file.notes);
        await syncDocuments(trx, actor.tenant, [documentId]);
        return doc;
      });
    },

    async link(actor: Actor, assetId: string, body: LinkDocumentBody): Promise<AssetDocument> {
      return withTransaction(db, async (trx) => {
        await requireVisibleAsset(trx, actor, assetId, 'share');
        const doc = await trx.selectFrom('documents').select('document_id').where('tenant', '=', actor.tenant).where('document_id', '=', body.document_id).forShare().executeTakeFirst();
        if (!doc) throw notFound('Document', body.document_id);
        const linked = await associate(trx, actor, assetId, body.document_id, body.notes);
        await syncDocuments(trx, actor.tenant, [body.document_id]);
        return linked;
      });
    },

    async unlink(actor: Actor, associationId: string): Promise<void> {
      await withTransaction(db, async (trx) => {
        const row = await visibleAssociation(trx, actor, associationId);
        await trx.deleteFrom('asset_documents').where('tenant', '=', actor.tenant).where('association_id', '=', associationId).execute();
        await syncDocuments(trx, actor.tenant, [row.document_id]);
      });
    },

    async content(actor: Actor, associationId: string): Promise<{ fileName: string; mimeType: string; sha256: string; content: Buffer }> {
      const row = await visibleAssociation(db, actor, associationId);
      const doc = await db.selectFrom('documents').select('content').where('tenant', '=', actor.tenant).where('document_id', '=', row.document_id).executeTakeFirstOrThrow();
      const bytes = doc.content as Uint8Array;
      return { fileName: row.file_name, mimeType: row.mime_type, sha256: row.sha256, content: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
    },
  };
}

export type DocumentsService = ReturnType<typeof createDocumentsService>;
