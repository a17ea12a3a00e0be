import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.ts';
import type { WorkerParts } from '../../../platform/modules/module.ts';
import type { WorkerDeps } from '../../deps.ts';
import type { InboundWebhooksApi } from '../../inbound-webhooks/index.ts';
import { actionDefinition } from '../actions/actions.catalog.ts';
import { createActionRunners } from '../actions/actions.runners.ts';
import type { ActionDefinition, ActionRunner } from '../automation.types.ts';
import { executionsRoutes } from '../executions/executions.routes.ts';
import { createExecutionsService } from '../executions/executions.service.ts';
import { automationEventConsumer } from './event-consumer.ts';
import { inboundWorkflowHandler } from './inbound.ts';
import { createManualService } from './manual.ts';
import { manualRoutes } from './manual.routes.ts';
import { createExecuteJob, type RunnerDeps } from './runner.ts';
import { automationScheduleTick } from './schedule.ts';
import { automationExecutionSweep } from './sweeper.ts';

/**
 * The engine's parts: the API's (executions, manual runs, the inbound-webhook workflow handler) and the
 * worker's (the event trigger consumer, the execution job, the schedule tick).
 */
export function createEngine(deps: { db: Kysely<DB> }) {
  const executions = createExecutionsService(deps);
  const manual = createManualService({ db: deps.db, executions });
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(executionsRoutes(executions));
    await app.register(manualRoutes(manual));
  };
  return { executions, manual, routes };
}

/** Registers the inbound_webhook trigger with the inbound-webhooks area (built before this one). */
export function registerInboundWorkflows(deps: { db: Kysely<DB>; services<T>(module: string): T }): void {
  deps.services<InboundWebhooksApi>('inbound-webhooks').workflows.handle(inboundWorkflowHandler({ db: deps.db }));
}

export interface EngineWorkerOptions {
  /** Tests: action runners and definitions in place of the real ones. */
  runners?: Readonly<Record<string, ActionRunner>>;
  definitionOf?: (type: string) => ActionDefinition | undefined;
  runner?: Partial<Pick<RunnerDeps, 'concurrencyDelayMs' | 'retryBackoffMs' | 'executionRetryDelayMs' | 'now'>>;
}

export function engineWorker(deps: WorkerDeps, opts: EngineWorkerOptions = {}): WorkerParts {
  const runners = opts.runners ?? createActionRunners({ db: deps.db, mailer: deps.mailer, secretBox: deps.secretBox, config: deps.config, outbound: deps.outbound });
  return {
    consumers: [automationEventConsumer({ db: deps.db, log: deps.log })],
    jobs: [createExecuteJob({ db: deps.db, secretBox: deps.secretBox, runners, definitionOf: opts.definitionOf ?? actionDefinition, log: deps.log, ...opts.runner })],
    schedules: [automationScheduleTick(deps.db), automationExecutionSweep(deps.db)],
  };
}
