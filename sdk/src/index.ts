/** @psa/sdk: the typed client, its errors, list iteration and webhook signature checks. */
export { createPsaClient, type PathsWith, type PsaClient, type PsaClientOptions, type PsaMethod, type ResponseBody, type Success } from './client.ts';
export type { components, operations, paths } from './schema.d.ts';
export { PsaApiError, createTransport, createTransportFetch, type RawRequest, type RawResponse, type Transport, type TransportOptions, type TransportRequestOptions } from './http.ts';
export { paginate, walk, type ListItem, type ListPath, type Pagination } from './pagination.ts';
export { isValidWebhookSignature, verifyWebhookSignature, WebhookSignatureError, type VerifyWebhookOptions, type WebhookSignatureFailure } from './webhooks.ts';
