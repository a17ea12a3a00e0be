import { Type } from 'typebox';

/** What kind of article a knowledge-base article (or the template it starts from) is. */
export const ARTICLE_TYPES = ['how_to', 'faq', 'troubleshooting', 'reference'] as const;
export type ArticleType = (typeof ARTICLE_TYPES)[number];

export const ArticleType = Type.Enum([...ARTICLE_TYPES], {
  description: 'Article type: how_to (step-by-step instructions), faq (questions and answers), troubleshooting (problem, cause, resolution), reference (facts to look up)',
});
