/**
 * Whether an Accept header prefers HTML to JSON (a browser following a redirect): text/html is named, and
 * before application/json when both are.
 */
export function prefersHtml(accept: string | undefined): boolean {
  const html = accept?.indexOf('text/html') ?? -1;
  const json = accept?.indexOf('application/json') ?? -1;
  return html !== -1 && (json === -1 || html < json);
}
