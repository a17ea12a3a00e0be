/** ts_headline marks matches with these private-use characters; the index strips them from stored text. */
export const MARK_START = '\uE000';
export const MARK_END = '\uE001';
/** ts_headline's parser treats `<…>` as markup and drops it; angle brackets travel as these instead. */
export const LT = '\uE002';
export const GT = '\uE003';
export const HEADLINE_OPTIONS = `StartSel=${MARK_START}, StopSel=${MARK_END}, MaxWords=35, MinWords=15, ShortWord=2`;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/**
 * The headline as safe HTML: everything escaped, matches wrapped in <mark>. Undefined when it marks
 * nothing (no match to show). A malformed marker sequence cannot come from ts_headline, but if it
 * ever did the snippet is omitted rather than sent with unbalanced tags.
 */
export function snippetHtml(headline: string | null): string | undefined {
  if (!headline) return undefined;
  const parts = headline.replaceAll(LT, '<').replaceAll(GT, '>').split(/([\uE000\uE001])/u);
  let open = false;
  let marks = 0;
  let out = '';
  for (const part of parts) {
    if (part === MARK_START || part === MARK_END) {
      if ((part === MARK_START) === open) return undefined;
      open = !open;
      if (open) marks++;
      out += open ? '<mark>' : '</mark>';
    } else {
      out += escapeHtml(part);
    }
  }
  if (open || marks === 0) return undefined;
  return out.trim();
}
