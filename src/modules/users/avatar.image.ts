import { createHash } from 'node:crypto';
import { validation } from '../../platform/http/errors.ts';

export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
export const AVATAR_SIZE = 256;
export const AVATAR_CONTENT_TYPE = 'image/webp';
const ACCEPTED_FORMATS = new Set(['png', 'jpeg', 'webp']);
/** Refuses decompression bombs: 40 megapixels is beyond any real photo a 2 MB file holds. */
const MAX_INPUT_PIXELS = 40_000_000;

export interface Avatar {
  image: Buffer;
  etag: string;
}

/**
 * Decodes an upload (PNG, JPEG or WebP, by its content, never by the declared type) and re-encodes it
 * as a square 256×256 WebP: oriented by its EXIF tag, cover-cropped, every metadata block dropped.
 * Anything else, or anything that does not decode, is a 400.
 */
export async function normalizeAvatar(upload: Buffer): Promise<Avatar> {
  // Loaded on first use: sharp (libvips) is ~30 MB resident that a process serving no avatar upload never needs.
  const { default: sharp } = await import('sharp');
  const options = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' as const };
  let format: string | undefined;
  try {
    format = (await sharp(upload, options).metadata()).format;
  } catch {
    throw validation('body.avatar', 'is not an image (PNG, JPEG or WebP expected)');
  }
  if (!format || !ACCEPTED_FORMATS.has(format)) {
    throw validation('body.avatar', `is a ${format ?? 'unknown'} image; only PNG, JPEG and WebP are accepted`);
  }
  let image: Buffer;
  try {
    image = await sharp(upload, options)
      .autoOrient()
      .resize(AVATAR_SIZE, AVATAR_SIZE, { fit: 'cover' })
      .webp({ quality: 85 })
      .toBuffer();
  } catch {
    throw validation('body.avatar', 'could not be decoded (a damaged or truncated image?)');
  }
  return { image, etag: createHash('sha256').update(image).digest('base64url') };
}
