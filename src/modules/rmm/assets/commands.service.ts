import type { Transaction } from 'kysely';
import { requirePermission, type Actor } from '../../../platform/auth/context.ts';
import { withTransaction } from '../../../platform/db/executor.ts';
import type { DB } from '../../../platform/db/schema.ts';
import { iso } from '../../../platform/time.ts';
import { recordAssetHistory, requireVisibleAsset } from '../../assets/index.ts';
import { connectionOf } from '../integrations/credentials.ts';
import { providerOf, type RmmDeps } from '../integrations/integrations.service.ts';
import type { RemoteControlSession, RmmProvider, ScriptResult } from '../providers/provider.ts';
import { failureOf, toApiError } from '../rmm.errors.ts';
import { RMM_EVENTS, emitAssetRmmEvent } from '../rmm.events.ts';
import { toAssetRmm } from './asset-rmm.mapper.ts';
import { updateCache, type LinkRow } from './asset-rmm.repo.ts';
import { assertInternal, requireActiveIntegration, requireLink } from './asset-rmm.rules.ts';
import type { AssetRmm, CommandResult, ScriptBody } from './asset-rmm.schemas.ts';

type Command = 'refresh' | 'reboot' | 'remote_control' | 'script';

interface CommandSpec<T> {
  command: Command;
  description: string;
  call: () => Promise<T>;
  /** Kept in the history entry whatever the outcome. */
  context?: Record<string, unknown>;
  /** Added to the history entry on success. */
  summarize?: (result: T) => Record<string, unknown>;
  /** Runs in the recording transaction on success (e.g. storing the refreshed cache). */
  onSuccess?: (trx: Transaction<DB>, result: T, at: Date) => Promise<void>;
}

interface Recorded {
  history_id: string;
  performed_at: string;
}

/**
 * Commands sent to an asset's RMM device. Each runs the provider call with no transaction open, then records
 * the outcome (success or the provider's failure) in the asset's history in one short transaction, and only
 * then reports a failure, so a failed command is on record too.
 */
export function createRmmCommandsService(deps: RmmDeps) {
  const { db, secretBox, providers } = deps;

  async function prepare(actor: Actor, assetId: string): Promise<{ link: LinkRow; provider: RmmProvider }> {
    // The routes declare these too; checked here as well so no other caller of the service can skip them.
    requirePermission(actor, 'rmm:execute', 'asset:read');
    await requireVisibleAsset(db, actor, assetId);
    assertInternal(actor);
    const link = await requireLink(db, actor.tenant, assetId);
    requireActiveIntegration(link);
    return { link, provider: providerOf(providers, link) };
  }

  async function run<T>(actor: Actor, link: LinkRow, provider: RmmProvider, cmd: CommandSpec<T>): Promise<{ result: T; recorded: Recorded }> {
    let result: T | undefined;
    let failure: unknown;
    try {
      result = await cmd.call();
    } catch (err) {
      failure = err;
    }
    const outcome = failure === undefined ? 'succeeded' : 'failed';
    const base = { provider: provider.name, integration_id: link.integration_id, device_id: link.external_device_id, outcome, ...cmd.context };
    const details = failure === undefined ? { ...base, ...cmd.summarize?.(result as T) } : { ...base, error: failureOf(failure) };
    const recorded = await withTransaction(db, async (trx) => {
      const at = new Date();
      // The asset may have been deleted while the provider answered; then there is nothing to record on.
      await requireVisibleAsset(trx, actor, link.asset_id);
      if (failure === undefined && cmd.onSuccess) await cmd.onSuccess(trx, result as T, at);
      const row = await recordAssetHistory(trx, actor.tenant, {
        asset_id: link.asset_id,
        entry_type: 'rmm_command',
        command: cmd.command,
        description: failure === undefined ? cmd.description : `${cmd.description} (failed)`,
        performed_at: at,
        performed_by: actor.userId,
        details,
      });
      await emitAssetRmmEvent(trx, actor.tenant, RMM_EVENTS.commandRun, link.asset_id, { command: cmd.command, outcome, history_id: row.history_id });
      return { history_id: row.history_id, performed_at: iso(at) };
    });
    if (failure !== undefined) throw toApiError(failure, provider.name);
    return { result: result as T, recorded };
  }

  return {
    /** Fetches the device and its software now and replaces the cache. */
    async refresh(actor: Actor, assetId: string): Promise<AssetRmm> {
      const { link, provider } = await prepare(actor, assetId);
      const conn = connectionOf(secretBox, link);
      await run(actor, link, provider, {
        command: 'refresh',
        description: `Refreshed device data from ${provider.label}`,
        call: async () => ({ device: await provider.getDevice(conn, link.external_device_id), software: await provider.getSoftware(conn, link.external_device_id) }),
        summarize: (r) => ({ agent_status: r.device.status, software_count: r.software.length }),
        onSuccess: (trx, r, at) => updateCache(trx, actor.tenant, assetId, { ...r.device, device_id: link.external_device_id }, r.software, at),
      });
      return toAssetRmm(await requireLink(db, actor.tenant, assetId));
    },

    async reboot(actor: Actor, assetId: string): Promise<CommandResult> {
      const { link, provider } = await prepare(actor, assetId);
      const conn = connectionOf(secretBox, link);
      const { recorded } = await run(actor, link, provider, {
        command: 'reboot',
        description: `Reboot sent through ${provider.label}`,
        call: () => provider.reboot(conn, link.external_device_id),
      });
      return { command: 'reboot', status: 'accepted', output: null, message: 'The device was told to reboot now', ...recorded };
    },

    /** The provider's session URL; it carries a login token, so it is returned but never stored. */
    async remoteControl(actor: Actor, assetId: string): Promise<RemoteControlSession & { history_id: string }> {
      const { link, provider } = await prepare(actor, assetId);
      const conn = connectionOf(secretBox, link);
      const { result, recorded } = await run(actor, link, provider, {
        command: 'remote_control',
        description: `Remote-control session opened through ${provider.label}`,
        call: () => provider.remoteControl(conn, link.external_device_id),
      });
      return { ...result, history_id: recorded.history_id };
    },

    async script(actor: Actor, assetId: string, body: ScriptBody): Promise<CommandResult> {
      const { link, provider } = await prepare(actor, assetId);
      const conn = connectionOf(secretBox, link);
      const request = {
        script_id: body.script_id,
        args: body.args ?? [],
        env_vars: body.env_vars ?? [],
        timeout_seconds: body.timeout_seconds ?? 90,
        run_as_user: body.run_as_user ?? false,
        output: body.output ?? 'wait',
      } as const;
      // Arguments, variables and output can hold secrets and history is readable with asset:read: keep only their shape.
      const shape = {
        script_id: request.script_id,
        args_count: request.args.length,
        env_var_names: request.env_vars.map((e) => e.slice(0, e.indexOf('='))),
        output_mode: request.output,
        timeout_seconds: request.timeout_seconds,
        run_as_user: request.run_as_user,
      };
      const { result, recorded } = await run<ScriptResult>(actor, link, provider, {
        command: 'script',
        description: `Script ${request.script_id} run through ${provider.label}`,
        call: () => provider.runScript(conn, link.external_device_id, request),
        context: { script: shape },
        summarize: (r) => ({ status: r.status, output_length: r.status === 'completed' ? r.output.length : null }),
      });
      return result.status === 'completed'
        ? { command: 'script', status: 'completed', output: result.output, message: null, ...recorded }
        : { command: 'script', status: 'accepted', output: null, message: result.message, ...recorded };
    },
  };
}

export type RmmCommandsService = ReturnType<typeof createRmmCommandsService>;
