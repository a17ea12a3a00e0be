import type { FastifyReply, FastifyRequest } from 'fastify';
import { prefersHtml as prefersHtmlAccept } from '../../platform/http/accept.ts';
import type { ErrorInfo, PageData, ProviderInfo } from './auth.schemas.ts';

/**
 * The sign-in, sign-out and error pages. JSON by default; a small HTML page (no scripts, no styles)
 * when the client prefers text/html. Error codes come from a closed list: an unknown `?error=` reads as
 * `Default`, and everything placed in HTML is escaped, so no request input is ever reflected raw.
 */
const MESSAGES: Record<string, string> = {
  Configuration: 'Sign-in is not configured correctly. Contact your administrator.',
  AccessDenied: 'Access denied: the account is unknown, inactive, or the provider did not verify its email address.',
  Verification: 'The sign-in link is no longer valid.',
  OAuthSignin: 'Sign-in with the identity provider could not start. Try again.',
  OAuthCallback: 'Sign-in with the identity provider did not complete. Start again.',
  CredentialsSignin: 'Sign-in failed. Check your details and try again.',
  SessionRequired: 'Sign in to continue.',
  totp_required: 'Enter the code from your authenticator app, or a recovery code.',
  invalid_totp: 'The two-factor code is wrong or was already used.',
  tenant_required: 'This account exists in several tenants: enter the tenant.',
  Default: 'Sign-in failed.',
};

export function errorInfo(code: string | undefined): ErrorInfo | null {
  if (code === undefined || code === '') return null;
  const known = Object.hasOwn(MESSAGES, code) ? code : 'Default';
  return { code: known, message: MESSAGES[known]! };
}

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`);

/** True when the client asked for JSON: `json=true` in the body, or an Accept header preferring application/json. */
export function wantsJson(req: FastifyRequest, bodyFlag?: boolean | 'true' | 'false'): boolean {
  if (bodyFlag === true || bodyFlag === 'true') return true;
  const accept = req.headers.accept ?? '';
  return accept.includes('application/json') && !prefersHtml(req);
}

export const prefersHtml = (req: FastifyRequest): boolean => prefersHtmlAccept(req.headers.accept);

interface HtmlForm {
  action: string;
  fields: { name: string; value: string; type: 'hidden' | 'text' | 'email' | 'password'; label?: string; autocomplete?: string }[];
  submit: string;
}

function form(f: HtmlForm): string {
  const fields = f.fields
    .map((x) => {
      const input = `<input type="${x.type}" name="${escapeHtml(x.name)}" value="${escapeHtml(x.value)}"${x.autocomplete ? ` autocomplete="${x.autocomplete}"` : ''}>`;
      return x.label ? `<p><label>${escapeHtml(x.label)} ${input}</label></p>` : input;
    })
    .join('\n');
  return `<form method="post" action="${escapeHtml(f.action)}">\n${fields}\n<p><button type="submit">${escapeHtml(f.submit)}</button></p>\n</form>`;
}

function html(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>\n<body><main>\n<h1>${escapeHtml(title)}</h1>\n${body}\n</main></body></html>\n`;
}

export interface PageInput {
  page: PageData['page'];
  message: string;
  error: ErrorInfo | null;
  providers?: ProviderInfo[];
  /** HTML only: the CSRF token the page's forms carry. */
  csrfToken?: string;
  callbackUrl?: string;
  /** HTML only: show the two-factor field. */
  askTotp?: boolean;
}

/** Sends the page as HTML or as `{data: {...}}` JSON. */
export function sendPage(req: FastifyRequest, reply: FastifyReply, p: PageInput) {
  const data: PageData = { page: p.page, message: p.message, error: p.error, ...(p.providers ? { providers: p.providers } : {}) };
  if (!prefersHtml(req)) return reply.send({ data });

  const parts: string[] = [];
  if (p.error) parts.push(`<p role="alert">${escapeHtml(p.error.message)}</p>`);
  parts.push(`<p>${escapeHtml(p.message)}</p>`);
  const csrf = { name: 'csrfToken', value: p.csrfToken ?? '', type: 'hidden' as const };
  const callback = { name: 'callbackUrl', value: p.callbackUrl ?? '', type: 'hidden' as const };
  if (p.page === 'signin') {
    for (const provider of p.providers ?? []) {
      if (provider.type === 'credentials') {
        parts.push(form({
          action: provider.callbackUrl,
          fields: [
            csrf, callback,
            { name: 'email', value: '', type: 'email', label: 'Email', autocomplete: 'username' },
            { name: 'password', value: '', type: 'password', label: 'Password', autocomplete: 'current-password' },
            { name: 'tenant', value: '', type: 'text', label: 'Tenant (only if asked)' },
            ...(p.askTotp ? [{ name: 'totp', value: '', type: 'text' as const, label: 'Two-factor code', autocomplete: 'one-time-code' }] : []),
          ],
          submit: 'Sign in',
        }));
      } else {
        parts.push(form({
          action: provider.signinUrl,
          fields: [csrf, callback, { name: 'tenant', value: '', type: 'text', label: 'Tenant' }],
          submit: `Sign in with ${provider.name}`,
        }));
      }
    }
  } else if (p.page === 'signout') {
    parts.push(form({ action: '/api/auth/signout', fields: [csrf, callback], submit: 'Sign out' }));
  } else {
    parts.push('<p><a href="/api/auth/signin">Sign in</a></p>');
  }
  const title = p.page === 'signin' ? 'Sign in' : p.page === 'signout' ? 'Sign out' : 'Sign-in error';
  return reply.type('text/html; charset=utf-8').send(html(title, parts.join('\n')));
}
