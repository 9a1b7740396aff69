import { randomUUID } from 'node:crypto';

export interface Entity {
  id: string;
  name: string;
  metadata: Record<string, string>;
  groupIds: string[];
  disabled: boolean;
}

export interface Group {
  id: string;
  name: string;
}

/**
 * Entities and groups of one namespace, so that OIDC assignments and userinfo claims have
 * something to refer to. The spec does not show how entities are made; the reference makes them
 * through its control interface (src/reference/control.ts), never through the spec's endpoints.
 */
export class IdentityStore {
  readonly entities = new Map<string, Entity>();
  readonly groups = new Map<string, Group>();

  group(name: string): Group {
    for (const g of this.groups.values()) if (g.name === name) return g;
    const g = { id: randomUUID(), name };
    this.groups.set(g.id, g);
    return g;
  }

  createEntity(name: string, metadata: Record<string, string>, groupNames: string[]): Entity {
    const entity: Entity = { id: randomUUID(), name, metadata: { ...metadata }, groupIds: groupNames.map((n) => this.group(n).id), disabled: false };
    this.entities.set(entity.id, entity);
    return entity;
  }

  groupNames(entity: Entity): string[] {
    return entity.groupIds.map((id) => this.groups.get(id)?.name).filter((n): n is string => Boolean(n));
  }
}
