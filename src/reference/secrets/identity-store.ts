import { randomBytes, randomUUID } from 'node:crypto';

/** An entity's account at one auth method: the mount's accessor and the name it logs in with. */
export interface Alias {
  id: string;
  name: string;
  canonicalId: string;
  mountAccessor: string;
  customMetadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

export interface Entity {
  id: string;
  name: string;
  metadata: Record<string, string>;
  policies: string[];
  /** The groups that list the entity as a member; the store keeps this in step with the groups. */
  groupIds: string[];
  aliases: Alias[];
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Group {
  id: string;
  name: string;
  policies: string[];
  metadata: Record<string, string>;
  /** Membership lives on the group, as in Vault; entities see it through groupIds. */
  memberEntityIds: string[];
  createdAt: string;
  updatedAt: string;
  modifyIndex: number;
}

/** Vault compares identity names case-insensitively unless configured otherwise (identity_store_util.go). */
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const now = () => new Date().toISOString();

/**
 * Entities, their aliases and groups of one namespace: what OIDC assignments and userinfo claims
 * refer to and what a login resolves to. The spec does not show how entities are made; the
 * reference makes them through its control interface (src/reference/control.ts) and, in the
 * hashicorp dialect, through Vault's identity API (identity-admin.ts).
 */
export class IdentityStore {
  readonly entities = new Map<string, Entity>();
  readonly groups = new Map<string, Group>();

  /** The group of that name, made when missing (the control interface's way). */
  group(name: string): Group {
    return this.groupByName(name) ?? this.addGroup({ name });
  }

  createEntity(name: string, metadata: Record<string, string>, groupNames: string[]): Entity {
    const entity = this.addEntity({ name, metadata });
    for (const groupName of groupNames) {
      const group = this.group(groupName);
      if (!group.memberEntityIds.includes(entity.id)) group.memberEntityIds.push(entity.id);
    }
    this.syncMembership();
    return entity;
  }

  addEntity(fields: { name?: string; metadata?: Record<string, string>; policies?: string[]; disabled?: boolean }): Entity {
    const at = now();
    const entity: Entity = {
      id: randomUUID(),
      name: fields.name || this.generateName('entity'),
      metadata: { ...fields.metadata },
      policies: fields.policies ?? [],
      groupIds: [],
      aliases: [],
      disabled: fields.disabled ?? false,
      createdAt: at,
      updatedAt: at,
    };
    this.entities.set(entity.id, entity);
    return entity;
  }

  addGroup(fields: { name?: string; policies?: string[]; metadata?: Record<string, string>; memberEntityIds?: string[] }): Group {
    const at = now();
    const group: Group = {
      id: randomUUID(),
      name: fields.name || this.generateName('group'),
      policies: fields.policies ?? [],
      metadata: { ...fields.metadata },
      memberEntityIds: [...new Set(fields.memberEntityIds ?? [])],
      createdAt: at,
      updatedAt: at,
      modifyIndex: 1,
    };
    this.groups.set(group.id, group);
    this.syncMembership();
    return group;
  }

  addAlias(entity: Entity, fields: { name: string; mountAccessor: string; customMetadata?: Record<string, string> }): Alias {
    const at = now();
    const alias: Alias = { id: randomUUID(), name: fields.name, canonicalId: entity.id, mountAccessor: fields.mountAccessor, customMetadata: { ...fields.customMetadata }, createdAt: at, updatedAt: at };
    entity.aliases.push(alias);
    return alias;
  }

  entityByName(name: string): Entity | undefined {
    for (const e of this.entities.values()) if (same(e.name, name)) return e;
    return undefined;
  }

  groupByName(name: string): Group | undefined {
    for (const g of this.groups.values()) if (same(g.name, name)) return g;
    return undefined;
  }

  /** The alias a login on that mount with that name maps to (vault MemDBAliasByFactors). */
  aliasByFactors(mountAccessor: string, name: string): { alias: Alias; entity: Entity } | undefined {
    for (const entity of this.entities.values()) {
      const alias = entity.aliases.find((a) => a.mountAccessor === mountAccessor && same(a.name, name));
      if (alias) return { alias, entity };
    }
    return undefined;
  }

  aliasById(id: string): { alias: Alias; entity: Entity } | undefined {
    for (const entity of this.entities.values()) {
      const alias = entity.aliases.find((a) => a.id === id);
      if (alias) return { alias, entity };
    }
    return undefined;
  }

  /** Deletes the entity with its aliases and takes it out of every group (identity_store_entities.go handleEntityDeleteCommon). */
  deleteEntity(id: string): void {
    if (!this.entities.delete(id)) return;
    for (const group of this.groups.values()) {
      if (group.memberEntityIds.includes(id)) this.touch(group, { memberEntityIds: group.memberEntityIds.filter((m) => m !== id) });
    }
  }

  deleteGroup(id: string): void {
    this.groups.delete(id);
    this.syncMembership();
  }

  /** Updates a group's fields and the members' view of it. */
  touch(group: Group, fields: Partial<Pick<Group, 'name' | 'policies' | 'metadata' | 'memberEntityIds'>>): void {
    Object.assign(group, fields);
    if (fields.memberEntityIds) group.memberEntityIds = [...new Set(fields.memberEntityIds)];
    group.updatedAt = now();
    group.modifyIndex += 1;
    this.syncMembership();
  }

  groupNames(entity: Entity): string[] {
    return entity.groupIds.map((id) => this.groups.get(id)?.name).filter((n): n is string => Boolean(n));
  }

  /** Recomputes every entity's groupIds from the groups' member lists. */
  private syncMembership(): void {
    for (const entity of this.entities.values()) entity.groupIds = [];
    for (const group of this.groups.values()) {
      for (const id of group.memberEntityIds) this.entities.get(id)?.groupIds.push(group.id);
    }
  }

  /** `entity_<8 hex>`, `group_<8 hex>` (identity_store_util.go generateName). */
  private generateName(kind: 'entity' | 'group'): string {
    for (;;) {
      const name = `${kind}_${randomBytes(4).toString('hex')}`;
      if (!(kind === 'entity' ? this.entityByName(name) : this.groupByName(name))) return name;
    }
  }
}
