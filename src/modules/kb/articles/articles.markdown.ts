import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

// Raw HTML in the Markdown is not rendered (html: false escapes it); the sanitiser is the second wall,
// for whatever markdown-it itself emits (links with javascript: URLs are dropped by both).
const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

const ALLOWED = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 's'],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title'], code: ['class'], th: ['style'], td: ['style'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
};

/** An article body as sanitised HTML: safe to place in a page as is. */
export function renderMarkdown(markdown: string): string {
  return sanitizeHtml(md.render(markdown), ALLOWED);
}
