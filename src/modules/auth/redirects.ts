/**
 * Where a sign-in may send the browser afterwards: a path on this service, or an absolute URL of the
 * same origin as PSA_PUBLIC_URL. Anything else (other hosts, `//host`, `/\host`, other schemes,
 * control characters) falls back to the public URL's root, so the endpoint is never an open redirect.
 */
export function safeCallbackUrl(publicUrl: string, raw: string | undefined | null): string {
  const fallback = `${publicUrl}/`;
  if (!raw || [...raw].some((c) => c < ' ' || c === '\u007f' || c === '\\')) return fallback;
  const relative = raw.startsWith('/') && !raw.startsWith('//');
  if (!relative && !/^https?:\/\//i.test(raw)) return fallback;
  let url: URL;
  try {
    url = new URL(raw, fallback);
  } catch {
    return fallback;
  }
  return url.origin === publicUrl ? url.href : fallback;
}

/** A path under this service, made absolute (for Location headers and `{url}` answers). */
export const absolute = (publicUrl: string, path: string): string => `${publicUrl}${path}`;
