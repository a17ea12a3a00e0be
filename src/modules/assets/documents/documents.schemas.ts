import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp, dataOf } from '../../../platform/http/schemas.ts';
import { ALLOWED_MIME_TYPES, DOCUMENT_MAX_BYTES, DOCUMENT_MAX_MB } from './documents.files.ts';

export const AssetDocument = Type.Object({
  association_id: Id,
  asset_id: Id,
  document_id: Id,
  file_name: Type.String(),
  mime_type: Type.String(),
  size_bytes: Type.Integer(),
  sha256: Type.String({ description: 'Hex SHA-256 of the content' }),
  notes: Nullable(Type.String()),
  uploaded_by: Nullable(Id),
  uploaded_at: Timestamp,
  linked_by: Nullable(Id),
  linked_at: Timestamp,
  content_url: Type.String({ description: 'Where to download the file' }),
});
export type AssetDocument = Static<typeof AssetDocument>;

export const LinkDocumentBody = Type.Object(
  { document_id: Id, notes: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))) },
  { additionalProperties: false },
);
export type LinkDocumentBody = Static<typeof LinkDocumentBody>;

/** Either JSON linking an existing document, or a multipart upload (one file part named `file`). */
export const DocumentPostBody = {
  content: {
    'application/json': { schema: LinkDocumentBody },
    'multipart/form-data': {
      schema: Type.Object(
        {
          file: Type.String({ contentMediaType: 'application/octet-stream', maxLength: DOCUMENT_MAX_BYTES, description: `At most ${DOCUMENT_MAX_MB} MiB; types: ${ALLOWED_MIME_TYPES.join(', ')}` }),
          notes: Type.Optional(Type.String({ maxLength: 2000 })),
        },
        { additionalProperties: false },
      ),
    },
  },
};

export const AssociationParams = Type.Object({ associationId: Id }, { additionalProperties: false });
export const AssetDocumentResponse = dataOf(AssetDocument);
export const AssetDocumentListResponse = Type.Object({ data: Type.Array(AssetDocument, { description: 'Most recently linked first' }) });
