/** The storage limits of conventions.md ("Storage limits"). Tests may pass lower quotas. */
export interface StorageLimits {
  maxValueBytes: number;
  maxMetadataBytes: number;
  maxBulkItems: number;
  maxBulkBytes: number;
  maxNamespaces: number;
  maxKeysPerNamespace: number;
  maxTotalBytes: number;
}

export const DEFAULT_STORAGE_LIMITS: Readonly<StorageLimits> = Object.freeze({
  maxValueBytes: 64 * 1024,
  maxMetadataBytes: 4 * 1024,
  maxBulkItems: 100,
  maxBulkBytes: 1024 * 1024,
  maxNamespaces: 100,
  maxKeysPerNamespace: 100_000,
  maxTotalBytes: 1024 * 1024 * 1024,
});
