import { CRUD } from '../../platform/auth/permissions.ts';
import { announced } from '../../platform/events/vocabulary.ts';
import { defineModule } from '../deps.ts';

/**
 * The permission resources and announced events of areas not built yet (the spec's documents, time
 * entries, system events). They are
 * part of the public catalogue today, so roles and webhooks can name them; each entry moves to its
 * area's manifest when that area lands, and this module shrinks to nothing.
 */
export const upcomingModule = defineModule({
  name: 'upcoming',
  permissions: [
    { resource: 'document', actions: CRUD, roles: { Manager: CRUD, Technician: ['read', 'create', 'update'], 'Client Admin': ['read'] } },
    { resource: 'time_entry', actions: CRUD, roles: { Manager: CRUD, Technician: ['read', 'create', 'update'], Finance: ['read'] } },
  ],
  events: {
    types: [
      ...announced('time_entry', [
        ['time.entry.created', 'A time entry was created'],
        ['time.entry.updated', 'A time entry changed'],
        ['time.entry.approved', 'A time entry was approved'],
      ]),
      ...announced('system', [
        ['system.backup.completed', 'A backup completed'],
        ['system.backup.failed', 'A backup failed'],
        ['system.maintenance.started', 'Maintenance started'],
        ['system.maintenance.completed', 'Maintenance completed'],
      ]),
      ...announced('workflow', [
        ['workflow.execution.started', 'A workflow execution started'],
        ['workflow.execution.completed', 'A workflow execution completed'],
        ['workflow.execution.failed', 'A workflow execution failed'],
      ]),
    ],
  },
});
