/**
 * Tactical RMM adapter, written against its REST API as served by the Django app in amidaware/tacticalrmm:
 *
 * - api/tacticalrmm/agents/urls.py: `""` → GetAgents, `<agent_id>/` → GetUpdateDeleteAgent,
 *   `<agent_id>/reboot/` → Reboot, `<agent_id>/runscript/` → run_script, `<agent_id>/meshcentral/` → AgentMeshCentral
 *   (mounted under `/agents/`).
 * - api/tacticalrmm/agents/views.py: GetAgents.get (`?detail=false` → AgentHostnameSerializer, default →
 *   AgentTableSerializer), GetUpdateDeleteAgent.get (AgentSerializer), Reboot.post (`{"func": "rebootnow"}` → "ok",
 *   else 400 "Unable to contact the agent"), run_script (body `script, output, args, run_as_user, env_vars, timeout`;
 *   output "wait" returns the agent's output string, other modes return "<script> will now be run on <host>"),
 *   AgentMeshCentral.get (`hostname, control, terminal, file, status, client, site`).
 * - api/tacticalrmm/agents/serializers.py: AgentSerializer (model fields + status, cpu_model, local_ips, make_model,
 *   client, site_name, last_seen), AgentTableSerializer (agent_id, hostname, client_name, site_name, status, last_seen,
 *   description, plat, …), AgentHostnameSerializer (id, hostname, agent_id, client, site).
 * - api/tacticalrmm/agents/models.py: Agent fields operating_system, plat, hostname, agent_id, last_seen, public_ip,
 *   total_ram (GB), disks (list of {device, fstype, total, used, free, percent}), boot_time (unix seconds),
 *   logged_in_username ("None" when nobody), last_logged_in_user, version, needs_reboot; status online|offline|overdue.
 * - api/tacticalrmm/software/urls.py + views.py: `/software/<agent_id>/` → GetSoftware.get: InstalledSoftwareSerializer
 *   (`{id, agent, software: [{name, version, publisher, install_date, size, source, location, uninstall}]}`) or `[]`.
 * - docs.tacticalrmm.com "API access": header `X-API-KEY`, base URL = the API host (https://api.example.com).
 *   Errors: 401/403 `{"detail": …}` for a bad key, 404 `{"detail": "Not found."}`, notify_error → 400 with a JSON string.
 */
import type { OutboundClient, OutboundRequest, OutboundResponse } from '../../../platform/net/outbound-http.ts';
import { OutboundError, UnsafeTargetError } from '../../../platform/net/outbound-http.ts';
import {
  RmmProviderError,
  type AgentStatus,
  type RemoteControlSession,
  type RmmConnection,
  type RmmDevice,
  type RmmDeviceSummary,
  type RmmDisk,
  type RmmProvider,
  type RmmSoftware,
  type ScriptRequest,
  type ScriptResult,
} from './provider.ts';

export interface TacticalRmmOptions {
  /** Per call, connect to end of body (default 15 s); a waited-for script adds its own timeout. */
  timeoutMs?: number;
  /** Largest response body parsed (default 8 MiB); a larger one is refused rather than cut. */
  maxBodyBytes?: number;
}

const LABEL = 'Tactical RMM';
/** Software rows kept per device: a bound on what one refresh can store. */
export const MAX_SOFTWARE_ROWS = 5000;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown, max = 1000): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function isoOrNull(v: unknown): string | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const d = typeof v === 'number' ? new Date(v * 1000) : new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

const STATUSES: readonly AgentStatus[] = ['online', 'offline', 'overdue'];
const status = (v: unknown): AgentStatus => (STATUSES.includes(v as AgentStatus) ? (v as AgentStatus) : 'unknown');

/** Tactical fills some read-only properties with an explanation instead of a value ("error getting local ips"). */
const meaningful = (v: string | null): string | null => (v && !/^(error|unknown|none$)/i.test(v) ? v : null);

const IP_RE = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f:]+)$/i;

function localIps(v: unknown): string[] {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [];
  return list.map((x) => (typeof x === 'string' ? x.trim() : '')).filter((x) => x.length <= 45 && IP_RE.test(x)).slice(0, 64);
}

function disks(v: unknown): RmmDisk[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).slice(0, 64).map((d) => ({
    device: text(d.device, 255) ?? '',
    fstype: text(d.fstype, 64),
    total: text(d.total, 64),
    used: text(d.used, 64),
    free: text(d.free, 64),
    percent_used: num(d.percent),
  })).filter((d) => d.device !== '');
}

function loggedInUser(a: Json): string | null {
  const current = text(a.logged_in_username, 255);
  if (current && current !== 'None') return current;
  const last = text(a.last_logged_in_user, 255);
  return last && last !== 'None' ? last : null;
}

/** Registry install dates come as YYYYMMDD; some agents report YYYY-MM-DD or M/D/YYYY. */
export function installDate(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  let m = /^(\d{4})(\d{2})(\d{2})$/.exec(s) ?? /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  let ymd: [string, string, string] | undefined = m ? [m[1]!, m[2]!, m[3]!] : undefined;
  if (!ymd) {
    m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s);
    if (m) ymd = [m[3]!, m[1]!.padStart(2, '0'), m[2]!.padStart(2, '0')];
  }
  if (!ymd) return null;
  const date = `${ymd[0]}-${ymd[1]}-${ymd[2]}`;
  const d = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(date) ? date : null;
}

export function toDevice(a: Json): RmmDevice {
  const deviceId = text(a.agent_id, 200);
  const hostname = text(a.hostname, 255);
  if (!deviceId || !hostname) throw invalid('an agent without agent_id or hostname');
  const cpu = Array.isArray(a.cpu_model) ? a.cpu_model.map((c) => meaningful(text(c, 255))).filter((c): c is string => c !== null).slice(0, 16) : [];
  return {
    device_id: deviceId,
    hostname,
    description: text(a.description, 255),
    status: status(a.status),
    os: text(a.operating_system, 255),
    platform: text(a.plat, 32),
    make_model: meaningful(text(a.make_model, 255)),
    last_seen: isoOrNull(a.last_seen),
    boot_time: isoOrNull(num(a.boot_time)),
    public_ip: meaningful(text(a.public_ip, 45)),
    local_ips: localIps(a.local_ips),
    cpu,
    memory_gb: num(a.total_ram),
    disks: disks(a.disks),
    logged_in_user: loggedInUser(a),
    client_name: text(a.client, 255) ?? text(a.client_name, 255),
    site_name: text(a.site_name, 255),
    agent_version: text(a.version, 64),
    needs_reboot: typeof a.needs_reboot === 'boolean' ? a.needs_reboot : null,
  };
}

function toSummary(a: Json): RmmDeviceSummary | undefined {
  const deviceId = text(a.agent_id, 200);
  const hostname = text(a.hostname, 255);
  if (!deviceId || !hostname) return undefined;
  return {
    device_id: deviceId,
    hostname,
    description: text(a.description, 255),
    status: status(a.status),
    platform: text(a.plat, 32),
    last_seen: isoOrNull(a.last_seen),
    client_name: text(a.client_name, 255) ?? text(a.client, 255),
    site_name: text(a.site_name, 255) ?? text(a.site, 255),
  };
}

function toSoftware(s: Json): RmmSoftware | undefined {
  const name = text(s.name, 500);
  if (!name) return undefined;
  return {
    name,
    version: text(s.version, 255),
    publisher: text(s.publisher, 500),
    installed_on: installDate(s.install_date),
    size: text(s.size, 64),
    location: text(s.location, 1000),
  };
}

function invalid(what: string): RmmProviderError {
  return new RmmProviderError('invalid_response', `${LABEL} sent an unexpected response: ${what}`);
}

/** The upstream's own words, when it sent some: DRF `{"detail": …}` or notify_error's bare JSON string. */
function upstreamMessage(body: string, apiKey: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const raw = typeof parsed === 'string' ? parsed : isObject(parsed) && typeof parsed.detail === 'string' ? parsed.detail : undefined;
  if (!raw) return undefined;
  // eslint-disable-next-line no-control-regex
  const clean = raw.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 200);
  return apiKey && clean.includes(apiKey) ? clean.replaceAll(apiKey, '[redacted]') : clean;
}

const agentPath = (deviceId: string, suffix = '') => `/agents/${encodeURIComponent(deviceId)}/${suffix}`;

export function tacticalRmmProvider(client: OutboundClient, opts: TacticalRmmOptions = {}): RmmProvider {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const maxBodyBytes = opts.maxBodyBytes ?? 8 * 1024 * 1024;

  async function call(conn: RmmConnection, method: OutboundRequest['method'], path: string, body?: unknown, extraMs = 0): Promise<unknown> {
    const headers: Record<string, string> = { 'x-api-key': conn.apiKey, accept: 'application/json', 'user-agent': 'psa-rmm/1' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: OutboundResponse;
    try {
      res = await client.request({
        method,
        url: `${conn.baseUrl}${path}`,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: timeoutMs + extraMs,
        maxBodyBytes,
      });
    } catch (err) {
      if (err instanceof UnsafeTargetError) throw new RmmProviderError('unsafe_target', `The ${LABEL} address may not be contacted: ${err.message}`);
      if (err instanceof OutboundError) {
        if (err.kind === 'timeout') throw new RmmProviderError('timeout', `${LABEL} did not answer within ${Math.round((timeoutMs + extraMs) / 1000)} s`);
        if (err.kind === 'protocol') throw new RmmProviderError('invalid_response', `${LABEL} did not answer with valid HTTP`);
        throw new RmmProviderError('unreachable', `${LABEL} could not be reached (${err.message.replaceAll(conn.apiKey, '[redacted]').slice(0, 200)})`);
      }
      throw err;
    }
    const said = () => {
      const m = upstreamMessage(res.body, conn.apiKey);
      return m ? `: ${m}` : '';
    };
    if (res.status === 401 || res.status === 403) throw new RmmProviderError('auth_failed', `${LABEL} refused the API key (HTTP ${res.status})`, res.status);
    if (res.status === 404) throw new RmmProviderError('not_found', `${LABEL} has no such record (HTTP 404)`, 404);
    if (res.status >= 500) throw new RmmProviderError('unavailable', `${LABEL} failed (HTTP ${res.status})`, res.status);
    if (res.status >= 400) throw new RmmProviderError('rejected', `${LABEL} refused the request (HTTP ${res.status})${said()}`, res.status);
    if (res.status < 200 || res.status >= 300) throw new RmmProviderError('invalid_response', `${LABEL} answered HTTP ${res.status}; check the base URL`, res.status);
    if (res.truncated) throw invalid(`a body larger than ${maxBodyBytes} bytes`);
    try {
      return JSON.parse(res.body) as unknown;
    } catch {
      throw invalid('the body is not JSON');
    }
  }

  const list = (v: unknown, what: string): unknown[] => {
    if (!Array.isArray(v)) throw invalid(`${what} is not a list`);
    return v;
  };

  return {
    name: 'tactical_rmm',
    label: LABEL,

    async testConnection(conn) {
      return { device_count: list(await call(conn, 'GET', '/agents/?detail=false'), 'the agent list').length };
    },

    async listDevices(conn) {
      return list(await call(conn, 'GET', '/agents/'), 'the agent list')
        .filter(isObject)
        .map(toSummary)
        .filter((d): d is RmmDeviceSummary => d !== undefined);
    },

    async getDevice(conn, deviceId) {
      const agent = await call(conn, 'GET', agentPath(deviceId));
      if (!isObject(agent)) throw invalid('the agent is not an object');
      return toDevice(agent);
    },

    async getSoftware(conn, deviceId) {
      const body = await call(conn, 'GET', `/software/${encodeURIComponent(deviceId)}/`);
      // An agent whose inventory was never collected answers [] instead of an object.
      if (Array.isArray(body)) return [];
      if (!isObject(body) || !Array.isArray(body.software)) throw invalid('the software inventory has no software list');
      return body.software.filter(isObject).slice(0, MAX_SOFTWARE_ROWS).map(toSoftware).filter((s): s is RmmSoftware => s !== undefined);
    },

    async reboot(conn, deviceId) {
      await call(conn, 'POST', agentPath(deviceId, 'reboot/'), {});
    },

    async runScript(conn, deviceId, req: ScriptRequest): Promise<ScriptResult> {
      const body = {
        script: req.script_id,
        output: req.output,
        args: req.args,
        env_vars: req.env_vars,
        run_as_user: req.run_as_user,
        timeout: req.timeout_seconds,
      };
      // Tactical waits timeout + 3 s for the agent; allow a little more for the HTTP round trip.
      const extra = req.output === 'wait' ? (req.timeout_seconds + 5) * 1000 : 0;
      const result = await call(conn, 'POST', agentPath(deviceId, 'runscript/'), body, extra);
      if (typeof result !== 'string') throw invalid('the script result is not text');
      if (req.output === 'forget') return { status: 'accepted', message: result.slice(0, 1000) };
      // nats_cmd's own failure words come back as a 200 with this exact text.
      if (result === 'timeout' || result === 'natsdown') throw new RmmProviderError('rejected', `${LABEL} could not get a result from the agent (${result})`);
      return { status: 'completed', output: result.slice(0, 64 * 1024) };
    },

    async remoteControl(conn, deviceId): Promise<RemoteControlSession> {
      const body = await call(conn, 'GET', agentPath(deviceId, 'meshcentral/'));
      const url = (v: unknown) => (typeof v === 'string' && /^https?:\/\//i.test(v) && v.length <= 4096 ? v : null);
      const control = isObject(body) ? url(body.control) : null;
      if (!isObject(body) || !control) throw invalid('no MeshCentral control URL');
      return { control_url: control, terminal_url: url(body.terminal), file_url: url(body.file) };
    },
  };
}
