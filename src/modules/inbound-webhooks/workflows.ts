/**
 * The workflow handler's other end. A configuration with `handler_type: workflow` hands each accepted
 * delivery to the automation engine, which imports this area (so this area cannot import it back): the
 * engine registers its handler here when built (this area is built first), and the dispatcher calls it.
 * Without a registered handler the delivery is only recorded as queued.
 */

export interface WorkflowDelivery {
  tenant: string;
  inboundWebhookId: string;
  /** handler_config.workflow_id: the rule the configuration names, if any. */
  workflowId: string | null;
  deliveryId: string;
  body: unknown;
  /** The request's headers as the delivery records them (secrets filtered out). */
  headers: Record<string, string>;
  receivedAt: Date;
  mode: 'live' | 'test' | 'replay';
  idempotencyKey: string | null;
  /** The test endpoint's dry run: report what would start, start nothing. */
  dryRun: boolean;
}

/** What the handler did, recorded as the delivery's handler outcome (beside handler, workflow_id, queued). */
export type WorkflowHandler = (delivery: WorkflowDelivery) => Promise<Record<string, unknown>>;

export class InboundWorkflows {
  private handler: WorkflowHandler | undefined;

  handle(fn: WorkflowHandler): void {
    if (this.handler) throw new Error('an inbound-webhook workflow handler is already registered');
    this.handler = fn;
  }

  get(): WorkflowHandler | undefined {
    return this.handler;
  }
}
