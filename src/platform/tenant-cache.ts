/**
 * A process-local cache of per-tenant values on a request's hot path (API keys, an inbound webhook's
 * configuration), dropped a tenant at a time when its source changes. Whoever changes the source calls
 * `invalidateTenant` in this process and sends a NOTIFY so that other processes do the same; the TTL bounds
 * staleness if a notification is ever missed (for example while a listener reconnects). Only values that
 * were found are cached: a miss is looked up again (unknown keys must not fill the cache).
 */
export class TenantCache<V> {
  private entries = new Map<string, { value: V; loadedAt: number }>();
  /** Counts invalidations, so a load that an invalidation overtook does not store what it read. */
  private generation = 0;

  constructor(
    private readonly tenantOf: (value: V) => string,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 50_000,
  ) {}

  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.loadedAt < this.ttlMs) return hit.value;
    // Taken before the load: a change whose invalidation arrives while the load runs (a key revoked, a
    // secret rotated) must win over what the load read.
    const generation = this.generation;
    const value = await load();
    if (value === undefined) {
      this.entries.delete(key);
      return undefined;
    }
    if (generation === this.generation) {
      // Oldest first: a Map iterates in insertion order.
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, loadedAt: Date.now() });
    }
    return value;
  }

  invalidateTenant(tenant: string): void {
    this.generation++;
    for (const [key, { value }] of this.entries) if (this.tenantOf(value) === tenant) this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
