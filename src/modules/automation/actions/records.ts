import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import { updateAssetInTrx, type UpdateAssetBody } from '../../assets/index.ts';
import { createTaskInTrx, type CreateTaskBody } from '../../projects/index.ts';
import { createStorageService, type PutRecordBody } from '../../storage/index.ts';
import { addCommentInTrx, createTicketInTrx, updateTicketInTrx, type CreateCommentBody, type CreateTicketBody, type UpdateTicketBody } from '../../tickets/index.ts';
import type { ActionRunner } from '../automation.types.ts';
import { transactionalRunner } from './action-support.ts';

/**
 * The transactional actions: each is the REST endpoint's own in-transaction write (validation,
 * visibility checks, events, search sync), run in the engine's step transaction as the rule's owner.
 */
export function recordRunners(deps: { db: Kysely<DB>; publicUrl: string }): Record<string, ActionRunner> {
  const { publicUrl } = deps;
  const storage = createStorageService({ db: deps.db });
  return {
    create_ticket: transactionalRunner<CreateTicketBody>('create_ticket', async (trx, actor, body) => {
      const ticket = await createTicketInTrx(trx, actor, body, { publicUrl });
      return { ticket_id: ticket.ticket_id, ticket_number: ticket.ticket_number };
    }),

    update_ticket: transactionalRunner<UpdateTicketBody & { ticket_id: string }>('update_ticket', async (trx, actor, config) => {
      const { ticket_id: ticketId, ...body } = config;
      const ticket = await updateTicketInTrx(trx, actor, ticketId, body, { publicUrl });
      return { ticket_id: ticket.ticket_id, ticket_number: ticket.ticket_number, updated_at: ticket.updated_at };
    }),

    add_ticket_comment: transactionalRunner<CreateCommentBody & { ticket_id: string }>('add_ticket_comment', async (trx, actor, config) => {
      const { ticket_id: ticketId, ...body } = config;
      const comment = await addCommentInTrx(trx, actor, ticketId, body, { publicUrl });
      return { ticket_id: ticketId, comment_id: comment.comment_id };
    }),

    create_project_task: transactionalRunner<CreateTaskBody & { project_id: string; phase_id: string }>('create_project_task', async (trx, actor, config) => {
      const { project_id: projectId, phase_id: phaseId, ...body } = config;
      const task = await createTaskInTrx(trx, actor, projectId, phaseId, body, { publicUrl });
      return { project_id: task.project_id, phase_id: task.phase_id, task_id: task.task_id };
    }),

    update_asset: transactionalRunner<UpdateAssetBody & { asset_id: string }>('update_asset', async (trx, actor, config) => {
      const { asset_id: assetId, ...body } = config;
      const asset = await updateAssetInTrx(trx, actor, assetId, body, { publicUrl });
      return { asset_id: asset.asset_id, updated_at: asset.updated_at };
    }),

    set_storage_record: transactionalRunner<PutRecordBody & { namespace: string; key: string }>('set_storage_record', async (trx, actor, config) => {
      const { namespace, key, ...body } = config;
      const { record, created } = await storage.putInTrx(trx, actor, namespace, key, body);
      return { namespace: record.namespace, key: record.key, revision: record.revision, created };
    }),
  };
}
