import { AppError } from '../../../platform/http/errors.ts';

export const DOCUMENT_MAX_BYTES = 10 * 1024 * 1024;
export const DOCUMENT_MAX_MB = DOCUMENT_MAX_BYTES / (1024 * 1024);

/** What may be uploaded: office documents, PDFs, images, text and archives; nothing executable or scriptable (no HTML, SVG). */
export const ALLOWED_MIME_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'text/plain',
  'text/csv',
  'application/zip',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
] as const;

const MAGIC: Record<string, (b: Buffer) => boolean> = {
  'application/pdf': (b) => b.subarray(0, 5).toString('latin1') === '%PDF-',
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')),
  'image/webp': (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  'application/zip': (b) => b[0] === 0x50 && b[1] === 0x4b,
};

/**
 * The declared type, when allowed and (for formats with a signature) matching the bytes: a file
 * claiming to be a PDF but not being one is refused, so downloads never serve mislabelled content.
 */
export function checkedMimeType(declared: string, content: Buffer): string {
  const type = declared.split(';')[0]!.trim().toLowerCase();
  if (!(ALLOWED_MIME_TYPES as readonly string[]).includes(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Files of type '${type.slice(0, 100)}' cannot be uploaded`, { allowed: ALLOWED_MIME_TYPES });
  }
  const magic = MAGIC[type];
  if (magic && !magic(content)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `The file's content is not ${type}`, { allowed: ALLOWED_MIME_TYPES });
  return type;
}

/** A file name safe to store and to put in Content-Disposition: no path, no control characters, bounded. */
export function safeFileName(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, 255);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'upload' : cleaned;
}

/** Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987). */
export function attachmentHeader(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/[\\"]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
