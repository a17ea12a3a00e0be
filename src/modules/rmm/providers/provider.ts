/**
 * The provider-neutral view of an RMM product. Each adapter translates one product's wire format into
 * these shapes, so the PSA stores and shows the same fields whichever RMM a tenant connects.
 */

export type AgentStatus = 'online' | 'offline' | 'overdue' | 'unknown';

export interface RmmDisk {
  device: string;
  fstype: string | null;
  total: string | null;
  used: string | null;
  free: string | null;
  percent_used: number | null;
}

/** One managed device as last reported by the RMM. */
export interface RmmDevice {
  device_id: string;
  hostname: string;
  description: string | null;
  status: AgentStatus;
  os: string | null;
  platform: string | null;
  make_model: string | null;
  last_seen: string | null;
  boot_time: string | null;
  public_ip: string | null;
  local_ips: string[];
  cpu: string[];
  memory_gb: number | null;
  disks: RmmDisk[];
  logged_in_user: string | null;
  client_name: string | null;
  site_name: string | null;
  agent_version: string | null;
  needs_reboot: boolean | null;
}

/** A device as a pick list shows it. */
export interface RmmDeviceSummary {
  device_id: string;
  hostname: string;
  description: string | null;
  status: AgentStatus;
  platform: string | null;
  last_seen: string | null;
  client_name: string | null;
  site_name: string | null;
}

export interface RmmSoftware {
  name: string;
  version: string | null;
  publisher: string | null;
  /** YYYY-MM-DD when the RMM reports a usable date. */
  installed_on: string | null;
  size: string | null;
  location: string | null;
}

export interface ScriptRequest {
  script_id: number;
  args: string[];
  env_vars: string[];
  timeout_seconds: number;
  run_as_user: boolean;
  /** wait: block until the agent returns the output; forget: queue it and return at once. */
  output: 'wait' | 'forget';
}

export type ScriptResult = { status: 'completed'; output: string } | { status: 'accepted'; message: string };

export interface RemoteControlSession {
  control_url: string;
  terminal_url: string | null;
  file_url: string | null;
}

/** Where and how to reach one tenant's RMM (decrypted just before use, never stored in this form). */
export interface RmmConnection {
  baseUrl: string;
  apiKey: string;
}

export interface RmmProvider {
  /** The stored provider name, e.g. `tactical_rmm`. */
  readonly name: string;
  readonly label: string;
  /** A cheap authenticated call; resolves with how many devices the key can see. */
  testConnection(conn: RmmConnection): Promise<{ device_count: number }>;
  listDevices(conn: RmmConnection): Promise<RmmDeviceSummary[]>;
  getDevice(conn: RmmConnection, deviceId: string): Promise<RmmDevice>;
  getSoftware(conn: RmmConnection, deviceId: string): Promise<RmmSoftware[]>;
  reboot(conn: RmmConnection, deviceId: string): Promise<void>;
  runScript(conn: RmmConnection, deviceId: string, request: ScriptRequest): Promise<ScriptResult>;
  remoteControl(conn: RmmConnection, deviceId: string): Promise<RemoteControlSession>;
}

/**
 * Why a provider call failed. Messages are safe to show to the caller: they never contain the API key,
 * and an upstream message is quoted only after trimming it.
 */
export type RmmFailure =
  | 'auth_failed' // the RMM refused the API key (401/403)
  | 'not_found' // the device (or script) does not exist there
  | 'rejected' // the RMM refused the request (other 4xx), e.g. "Unable to contact the agent"
  | 'unavailable' // 5xx
  | 'timeout'
  | 'unreachable' // no connection (DNS, refused, TLS)
  | 'invalid_response' // not the JSON the wire format promises
  | 'unsafe_target'; // the base URL resolves to an address the outbound policy blocks

export class RmmProviderError extends Error {
  override name = 'RmmProviderError';

  constructor(
    readonly reason: RmmFailure,
    message: string,
    readonly upstreamStatus?: number,
  ) {
    super(message);
  }
}
