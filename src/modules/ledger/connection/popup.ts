import { createHash } from 'node:crypto';

/** What the popup tells the window that opened it. */
export interface PopupMessage {
  type: 'ledger_oauth_callback';
  provider: string;
  success: boolean;
  realm_id: string | null;
  error: { code: string; message: string } | null;
}

/** JSON safe inside a <script> element: nothing in it can close the element or start a comment. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The OAuth callback's popup page: it posts the outcome to its opener (or parent frame) for the configured
 * public origin only — never `*`, so no other site that opened the flow can read it — and tries to close itself.
 * The one inline script is allowed by its hash; nothing else may load (Content-Security-Policy).
 */
export function popupPage(message: PopupMessage, targetOrigin: string): { html: string; csp: string } {
  const script = `(function(){var m=${scriptJson(message)};var o=${scriptJson(targetOrigin)};var w=window.opener||(window.parent!==window?window.parent:null);if(w){try{w.postMessage(m,o);}catch(e){}}setTimeout(function(){window.close();},300);})();`;
  const hash = createHash('sha256').update(script).digest('base64');
  const headline = message.success ? 'Connected. You can close this window.' : `The connection failed: ${message.error?.message ?? 'unknown error'}`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>Ledger connection</title></head>
<body><p>${escapeHtml(headline)}</p><script>${script}</script></body></html>
`;
  const csp = `default-src 'none'; script-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'; frame-ancestors ${targetOrigin}`;
  return { html, csp };
}
