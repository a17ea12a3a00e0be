/**
 * The words of an execution's log and the payload of its outcome event, shared by the per-execution path
 * (runner.ts) and the batch path (fast-path.ts) so an execution reads the same whichever ran it.
 */

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const executionText = {
  started: (triggerType: string, actions: number) => `Execution started (${triggerType} trigger, ${plural(actions, 'action')})`,
  actionStarted: (index: number, type: string, attempt = 1, attempts = 1) =>
    `Action ${index} (${type}) started${attempt > 1 ? ` (attempt ${attempt} of ${attempts})` : ''}`,
  actionCompleted: (index: number, type: string, ms: number) => `Action ${index} (${type}) completed in ${ms} ms`,
  batchAttemptFailed: (index: number, type: string, ms: number, error: string) =>
    `Action ${index} (${type}) attempt 1 failed after ${ms} ms: ${error}; rolled back, the execution continues on its own`,
  finished: (status: string, ms: number, successful: number, failed: number) => `Execution ${status} in ${ms} ms (${successful} succeeded, ${failed} failed)`,
};

/** The payload of automation.execution.completed | failed (besides execution_id, which emit adds). */
export interface OutcomePayload {
  rule_id: string;
  rule_name: string;
  status: string;
  trigger_type: string;
  actions_total: number;
  actions_successful: number;
  actions_failed: number;
  failed_action_index: number | null;
  error_message: string | null;
  duration_ms: number;
}
