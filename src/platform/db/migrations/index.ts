import type { Migration } from 'kysely';
import * as platform from './2026_11_21_0001_platform.ts';
import * as clients from './2026_11_21_0002_clients.ts';
import * as identity from './2026_11_21_0003_identity.ts';
import * as storage from './2026_11_21_0004_storage.ts';
import * as tickets from './2026_11_21_0005_tickets.ts';
import * as webhooks from './2026_11_21_0006_webhooks.ts';
import * as inboundWebhooks from './2026_11_21_0007_inbound_webhooks.ts';
import * as search from './2026_11_21_0008_search.ts';
import * as assets from './2026_11_21_0009_assets.ts';
import * as assetRmm from './2026_11_21_0010_asset_rmm.ts';
import * as projects from './2026_11_21_0011_projects.ts';
import * as projectTemplates from './2026_11_21_0012_project_templates_links.ts';
import * as searchLexicon from './2026_11_21_0013_search_lexicon.ts';
import * as jobs from './2026_11_24_0014_jobs.ts';
import * as billing from './2026_11_24_0015_billing.ts';
import * as kb from './2026_11_24_0016_kb.ts';
import * as tax from './2026_11_24_0017_tax.ts';
import * as invoices from './2026_11_25_0018_invoices.ts';
import * as clientMerge from './2026_11_25_0019_client_merge.ts';
import * as opportunities from './2026_11_25_0020_opportunities.ts';
import * as automation from './2026_11_25_0021_automation.ts';
import * as ledger from './2026_11_25_0022_ledger.ts';
import * as paymentReversals from './2026_11_25_0023_payment_reversals.ts';
import * as keysetIndexes from './2026_11_25_0024_keyset_indexes.ts';
import * as listCounts from './2026_11_25_0025_list_counts.ts';
import * as numberReservations from './2026_11_25_0026_number_reservations.ts';
import * as assetListIndex from './2026_11_25_0027_asset_list_index.ts';
import * as searchPostings from './2026_11_28_0028_search_postings.ts';
import * as searchPostingsRanked from './2026_11_28_0029_search_postings_ranked.ts';
import * as nameChanges from './2026_12_06_0030_name_changes.ts';
import * as searchVectorsFromOne from './2026_12_06_0031_search_vectors_from_one.ts';
import * as searchPostingsPending from './2026_12_06_0032_search_postings_pending.ts';
import * as searchPrefixPostings from './2026_12_06_0033_search_prefix_postings.ts';
import * as searchPendingPostingsMatching from './2026_12_06_0034_search_pending_postings_matching.ts';
import * as searchThreeLetterPrefixPostings from './2026_12_06_0035_search_three_letter_prefix_postings.ts';
import * as searchPartitionTriggers from './2026_12_06_0036_search_partition_triggers.ts';
import * as searchDocumentsByClient from './2026_12_07_0037_search_documents_by_client.ts';
import * as searchLexiconFromMerge from './2026_12_07_0038_search_lexicon_from_merge.ts';
import * as searchPendingRowsWords from './2026_12_07_0039_search_pending_rows_words.ts';
import * as searchPendingWordsText from './2026_12_07_0040_search_pending_words_text.ts';
import * as searchPostingsWithoutClient from './2026_12_07_0041_search_postings_without_client.ts';

/** One ordered timeline. Append new migrations; never edit or reorder shipped ones. */
export const migrations: Record<string, Migration> = {
  '2026_11_21_0001_platform': platform,
  '2026_11_21_0002_clients': clients,
  '2026_11_21_0003_identity': identity,
  '2026_11_21_0004_storage': storage,
  '2026_11_21_0005_tickets': tickets,
  '2026_11_21_0006_webhooks': webhooks,
  '2026_11_21_0007_inbound_webhooks': inboundWebhooks,
  '2026_11_21_0008_search': search,
  '2026_11_21_0009_assets': assets,
  '2026_11_21_0010_asset_rmm': assetRmm,
  '2026_11_21_0011_projects': projects,
  '2026_11_21_0012_project_templates_links': projectTemplates,
  '2026_11_21_0013_search_lexicon': searchLexicon,
  '2026_11_24_0014_jobs': jobs,
  '2026_11_24_0015_billing': billing,
  '2026_11_24_0016_kb': kb,
  '2026_11_24_0017_tax': tax,
  '2026_11_25_0018_invoices': invoices,
  '2026_11_25_0019_client_merge': clientMerge,
  '2026_11_25_0020_opportunities': opportunities,
  '2026_11_25_0021_automation': automation,
  '2026_11_25_0022_ledger': ledger,
  '2026_11_25_0023_payment_reversals': paymentReversals,
  '2026_11_25_0024_keyset_indexes': keysetIndexes,
  '2026_11_25_0025_list_counts': listCounts,
  '2026_11_25_0026_number_reservations': numberReservations,
  '2026_11_25_0027_asset_list_index': assetListIndex,
  '2026_11_28_0028_search_postings': searchPostings,
  '2026_11_28_0029_search_postings_ranked': searchPostingsRanked,
  '2026_12_06_0030_name_changes': nameChanges,
  '2026_12_06_0031_search_vectors_from_one': searchVectorsFromOne,
  '2026_12_06_0032_search_postings_pending': searchPostingsPending,
  '2026_12_06_0033_search_prefix_postings': searchPrefixPostings,
  '2026_12_06_0034_search_pending_postings_matching': searchPendingPostingsMatching,
  '2026_12_06_0035_search_three_letter_prefix_postings': searchThreeLetterPrefixPostings,
  '2026_12_06_0036_search_partition_triggers': searchPartitionTriggers,
  '2026_12_07_0037_search_documents_by_client': searchDocumentsByClient,
  '2026_12_07_0038_search_lexicon_from_merge': searchLexiconFromMerge,
  '2026_12_07_0039_search_pending_rows_words': searchPendingRowsWords,
  '2026_12_07_0040_search_pending_words_text': searchPendingWordsText,
  '2026_12_07_0041_search_postings_without_client': searchPostingsWithoutClient,
};
