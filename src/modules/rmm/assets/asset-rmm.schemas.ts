import { Type, type Static } from 'typebox';
import { Id, Nullable, Pagination, Timestamp, dataOf } from '../../../platform/http/schemas.ts';

export const NoQuery = Type.Object({}, { additionalProperties: false });
export const AssetIdParams = Type.Object({ id: Id }, { additionalProperties: false });

/** Agent ids of the supported RMMs are opaque tokens; anything else cannot be a device id and never reaches a URL. */
export const DeviceId = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:-]+$', description: "The RMM's own device id (Tactical RMM: agent_id)" });

const Disk = Type.Object({
  device: Type.String(),
  fstype: Nullable(Type.String()),
  total: Nullable(Type.String()),
  used: Nullable(Type.String()),
  free: Nullable(Type.String()),
  percent_used: Nullable(Type.Number()),
});

export const RmmDeviceSchema = Type.Object({
  device_id: Type.String(),
  hostname: Type.String(),
  description: Nullable(Type.String()),
  status: Type.String({ description: 'online | offline | overdue | unknown' }),
  os: Nullable(Type.String()),
  platform: Nullable(Type.String()),
  make_model: Nullable(Type.String()),
  last_seen: Nullable(Timestamp),
  boot_time: Nullable(Timestamp),
  public_ip: Nullable(Type.String()),
  local_ips: Type.Array(Type.String()),
  cpu: Type.Array(Type.String()),
  memory_gb: Nullable(Type.Number()),
  disks: Type.Array(Disk),
  logged_in_user: Nullable(Type.String()),
  client_name: Nullable(Type.String()),
  site_name: Nullable(Type.String()),
  agent_version: Nullable(Type.String()),
  needs_reboot: Nullable(Type.Boolean()),
});

export const AssetRmm = Type.Object({
  asset_id: Id,
  integration_id: Id,
  integration_name: Type.String(),
  provider: Type.String(),
  device_id: Type.String(),
  agent_status: Type.String({ description: 'online | offline | overdue | unknown, as of last_synced_at' }),
  device: Nullable(RmmDeviceSchema),
  last_synced_at: Nullable(Timestamp),
  linked_at: Timestamp,
});
export type AssetRmm = Static<typeof AssetRmm>;

export const LinkBody = Type.Object({ integration_id: Id, device_id: DeviceId }, { additionalProperties: false });
export type LinkBody = Static<typeof LinkBody>;

const SoftwareItem = Type.Object({
  name: Type.String(),
  version: Nullable(Type.String()),
  publisher: Nullable(Type.String()),
  installed_on: Nullable(Type.String({ format: 'date' })),
  size: Nullable(Type.String()),
  location: Nullable(Type.String()),
});

export const SoftwareQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    sort: Type.Optional(Type.Enum(['name', 'publisher', 'installed_on'], { default: 'name' })),
    order: Type.Optional(Type.Enum(['asc', 'desc'], { default: 'asc' })),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Case-insensitive match on name or publisher' })),
  },
  { additionalProperties: false },
);
export type SoftwareQuery = Static<typeof SoftwareQuery>;

export const SoftwareMeta = Type.Object({
  asset_id: Id,
  device_id: Type.String(),
  last_synced_at: Nullable(Timestamp),
});

export const SoftwareResponse = Type.Object({ data: Type.Array(SoftwareItem), pagination: Pagination, meta: SoftwareMeta });
export type SoftwareItem = Static<typeof SoftwareItem>;

export const ScriptBody = Type.Object(
  {
    script_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: "The script's id in the RMM's script library" }),
    args: Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 50, description: 'Script arguments, passed as given' })),
    env_vars: Type.Optional(Type.Array(Type.String({ maxLength: 2000, pattern: '^[A-Za-z_][A-Za-z0-9_]*=' }), { maxItems: 50, description: 'NAME=value pairs' })),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 600, default: 90 })),
    run_as_user: Type.Optional(Type.Boolean({ default: false, description: 'Run in the logged-in user’s session instead of as the system account' })),
    output: Type.Optional(Type.Enum(['wait', 'forget'], { default: 'wait', description: 'wait: return the output (200); forget: queue it and return 202' })),
  },
  { additionalProperties: false },
);
export type ScriptBody = Static<typeof ScriptBody>;

export const CommandResult = Type.Object({
  command: Type.Enum(['reboot', 'script']),
  status: Type.Enum(['completed', 'accepted']),
  output: Nullable(Type.String({ description: 'The script output (completed scripts)' })),
  message: Nullable(Type.String()),
  history_id: Id,
  performed_at: Timestamp,
});
export type CommandResult = Static<typeof CommandResult>;

export const RemoteControl = Type.Object({
  control_url: Type.String({ description: 'Opens a remote-control session; it carries a short-lived login token, so do not store or share it' }),
  terminal_url: Nullable(Type.String()),
  file_url: Nullable(Type.String()),
  history_id: Id,
});

export const AssetRmmResponse = dataOf(AssetRmm);
export const CommandResponse = dataOf(CommandResult);
export const RemoteControlResponse = dataOf(RemoteControl);
