import { createRequire } from 'node:module';
import type MarkdownIt from 'markdown-it';
import type SanitizeHtml from 'sanitize-html';

// markdown-it and sanitize-html (~25 MB resident together) are loaded on the first render, not at start-up.
const require = createRequire(import.meta.url);

const allowedOptions = (sanitizeHtml: typeof SanitizeHtml): SanitizeHtml.IOptions => ({
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 's'],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title'], code: ['class'], th: ['style'], td: ['style'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
});

let loaded: { md: MarkdownIt; sanitizeHtml: typeof SanitizeHtml; allowed: SanitizeHtml.IOptions } | undefined;

// Raw HTML in the Markdown is not rendered (html: false escapes it); the sanitiser is the second wall,
// for whatever markdown-it itself emits (links with javascript: URLs are dropped by both).
function load(): NonNullable<typeof loaded> {
  if (loaded) return loaded;
  const MarkdownItClass = require('markdown-it') as typeof MarkdownIt;
  const sanitizeHtml = require('sanitize-html') as typeof SanitizeHtml;
  const md = new MarkdownItClass({ html: false, linkify: true, typographer: false });
  return (loaded = { md, sanitizeHtml, allowed: allowedOptions(sanitizeHtml) });
}

/** An article body as sanitised HTML: safe to place in a page as is. */
export function renderMarkdown(markdown: string): string {
  const { md, sanitizeHtml, allowed } = load();
  return sanitizeHtml(md.render(markdown), allowed);
}
