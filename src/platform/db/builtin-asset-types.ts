/**
 * The asset types every tenant has (the assets area's data, kept in the platform because migration 0009
 * seeds existing tenants from it while `createTenant` seeds new ones: both always agree).
 */
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'enum';

export interface FieldDefinition {
  key: string;
  label: string;
  type: FieldKind;
  required: boolean;
  enum_values?: string[];
  max_length?: number;
}

export interface BuiltinAssetType {
  slug: string;
  type_name: string;
  description: string;
  field_schema: FieldDefinition[];
}

const text = (key: string, label: string, max_length = 255): FieldDefinition => ({ key, label, type: 'string', required: false, max_length });
const int = (key: string, label: string): FieldDefinition => ({ key, label, type: 'integer', required: false });
const num = (key: string, label: string): FieldDefinition => ({ key, label, type: 'number', required: false });
const bool = (key: string, label: string): FieldDefinition => ({ key, label, type: 'boolean', required: false });
const oneOf = (key: string, label: string, enum_values: string[]): FieldDefinition => ({ key, label, type: 'enum', required: false, enum_values });

const computer = [
  oneOf('os_type', 'Operating system', ['windows', 'macos', 'linux', 'chromeos', 'other']),
  text('os_version', 'OS version', 100),
  text('cpu_model', 'CPU model'),
  int('cpu_cores', 'CPU cores'),
  num('ram_gb', 'Memory (GB)'),
  oneOf('storage_type', 'Storage type', ['hdd', 'ssd', 'nvme', 'hybrid']),
  num('storage_capacity_gb', 'Storage capacity (GB)'),
];

export const BUILTIN_ASSET_TYPES: readonly BuiltinAssetType[] = [
  {
    slug: 'workstation',
    type_name: 'Workstation',
    description: 'Desktops and laptops',
    field_schema: [...computer, text('gpu_model', 'GPU model')],
  },
  {
    slug: 'server',
    type_name: 'Server',
    description: 'Physical and virtual servers',
    field_schema: [...computer, bool('is_virtual', 'Virtual machine'), text('hypervisor', 'Hypervisor', 100), text('primary_ip', 'Primary IP address', 45)],
  },
  {
    slug: 'network_device',
    type_name: 'Network device',
    description: 'Switches, routers, firewalls, access points',
    field_schema: [
      oneOf('device_type', 'Device type', ['switch', 'router', 'firewall', 'access_point', 'load_balancer', 'other']),
      text('management_ip', 'Management IP address', 45),
      int('port_count', 'Ports'),
      text('firmware_version', 'Firmware version', 100),
      bool('supports_poe', 'Supports PoE'),
    ],
  },
  {
    slug: 'mobile_device',
    type_name: 'Mobile device',
    description: 'Phones and tablets',
    field_schema: [
      oneOf('os_type', 'Operating system', ['ios', 'android', 'other']),
      text('os_version', 'OS version', 100),
      text('imei', 'IMEI', 20),
      text('phone_number', 'Phone number', 50),
      text('carrier', 'Carrier', 100),
      bool('is_supervised', 'Supervised'),
    ],
  },
  {
    slug: 'printer',
    type_name: 'Printer',
    description: 'Printers and multifunction devices',
    field_schema: [
      text('ip_address', 'IP address', 45),
      bool('is_network_printer', 'Network printer'),
      bool('supports_color', 'Colour'),
      bool('supports_duplex', 'Duplex'),
      text('max_paper_size', 'Largest paper size', 20),
      int('monthly_duty_cycle', 'Monthly duty cycle (pages)'),
    ],
  },
];
