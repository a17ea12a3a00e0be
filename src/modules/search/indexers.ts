/* eslint-disable no-restricted-imports -- the registry imports each area's indexer file itself: the areas'
   index.ts files import the search module back, so going through them would form an import cycle. */
import { clientSearchIndexer } from '../clients/clients.search.ts';
import { contactSearchIndexer } from '../contacts/contacts.search.ts';
import { boardSearchIndexer, statusSearchIndexer } from '../tickets/boards/boards.search.ts';
import { categorySearchIndexer } from '../tickets/categories/categories.search.ts';
import { ticketCommentSearchIndexer } from '../tickets/comments/comments.search.ts';
import { tagSearchIndexer } from '../tickets/tags/tags.search.ts';
import { ticketSearchIndexer } from '../tickets/tickets.search.ts';
import { userSearchIndexer } from '../users/users.search.ts';
import { assetIndexer } from '../assets/assets.search.ts';
import { documentIndexer } from '../assets/documents/documents.search.ts';
import { phaseIndexer, projectIndexer, taskCommentIndexer, taskIndexer } from '../projects/projects.search.ts';
import type { SearchIndexer, SearchType } from './search.types.ts';

/**
 * The indexer of every searchable type that exists. Adding an area's records to search is one
 * indexer file next to the area plus one line here. Indexer files import no services (and nothing
 * that imports sync.ts), so this registry never sits in an import cycle.
 */
export const SEARCH_INDEXERS: Partial<Record<SearchType, SearchIndexer>> = {
  client: clientSearchIndexer,
  contact: contactSearchIndexer,
  user: userSearchIndexer,
  ticket: ticketSearchIndexer,
  ticket_comment: ticketCommentSearchIndexer,
  board: boardSearchIndexer,
  status: statusSearchIndexer,
  category: categorySearchIndexer,
  tag: tagSearchIndexer,
  asset: assetIndexer,
  document: documentIndexer,
  project: projectIndexer,
  project_phase: phaseIndexer,
  project_task: taskIndexer,
  project_task_comment: taskCommentIndexer,
};
