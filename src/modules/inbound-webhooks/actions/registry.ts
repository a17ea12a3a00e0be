import type { ActionDefinition, InboundAction } from '../../../platform/actions/action.ts';

/**
 * The direct actions the areas contribute in their manifests, by name and as a sorted list. Read on
 * first use: the composition root knows every area's actions only once all areas are built.
 */
export function createActionRegistry(actions: () => readonly InboundAction[]) {
  let loaded: { byName: Map<string, InboundAction>; sorted: readonly ActionDefinition[] } | undefined;
  const load = () => {
    if (loaded) return loaded;
    const byName = new Map<string, InboundAction>();
    for (const action of actions()) {
      if (byName.has(action.definition.name)) throw new Error(`inbound action ${action.definition.name} is registered twice`);
      byName.set(action.definition.name, action);
    }
    const sorted = [...byName.values()].map((a) => a.definition).sort((a, b) => a.entity_type.localeCompare(b.entity_type) || a.name.localeCompare(b.name));
    loaded = { byName, sorted };
    return loaded;
  };
  return {
    get: (name: string): InboundAction | undefined => load().byName.get(name),
    /** Sorted by entity type, then name. */
    list: (): readonly ActionDefinition[] => load().sorted,
  };
}

export type ActionRegistry = ReturnType<typeof createActionRegistry>;
