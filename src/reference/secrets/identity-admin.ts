import type { EngineRequest } from './engine.ts';
import type { Alias, Entity, Group, IdentityStore } from './identity-store.ts';
import type { MountInfo } from './mount-table.ts';
import { FieldError, optionalString, stringList, stringMap } from './named-collection.ts';
import { badRequest, notFound, type EngineResult } from './respond.ts';

/** Where a mount accessor points: the mount and the namespace it is in. */
export interface AccessorLookup {
  (accessor: string): { namespace: string; mount: MountInfo } | undefined;
}

export interface IdentityAdminContext {
  identity: IdentityStore;
  /** The namespace path ('' for root) and its ID ('root' for root), as entities report it. */
  namespace: string;
  namespaceId: string;
  mountByAccessor: AccessorLookup;
}

const unsupportedOperation = (): EngineResult => ({ kind: 'error', status: 405, errors: ['unsupported operation'] });
const forbidden = (message: string): EngineResult => ({ kind: 'error', status: 403, errors: [message] });
const created = (data: Record<string, unknown>): EngineResult => ({ kind: 'data', data });
const done = (): EngineResult => ({ kind: 'no-content' });

function bool(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new FieldError(`${field} must be a boolean`);
}

/**
 * Vault's identity API for entities, entity aliases and groups of one namespace
 * (hashicorp/vault vault/identity_store_entities.go, identity_store_aliases.go,
 * identity_store_groups.go), in the hashicorp dialect only.
 */
export class IdentityAdmin {
  constructor(private readonly ctx: IdentityAdminContext) {}

  private get store(): IdentityStore {
    return this.ctx.identity;
  }

  /** Handles `entity…`, `entity-alias…` and `group…`; undefined when the path is none of them. */
  handle(req: EngineRequest): EngineResult | undefined {
    try {
      return this.route(req);
    } catch (err) {
      if (err instanceof FieldError) return badRequest(err.message);
      throw err;
    }
  }

  private route(req: EngineRequest): EngineResult | undefined {
    const p = req.path;
    const op = req.operation;
    if (p === 'entity') return op === 'create-or-update' ? this.writeEntity(req.data) : unsupportedOperation();
    if (p === 'entity-alias') return op === 'create-or-update' ? this.writeAlias(req.data) : unsupportedOperation();
    if (p === 'group') return op === 'create-or-update' ? this.writeGroup(req.data) : unsupportedOperation();
    if (p === 'group-alias') return op === 'create-or-update' ? this.writeGroupAlias(req.data) : unsupportedOperation();
    const groupAlias = /^group-alias\/id\/?(.*)$/.exec(p);
    if (groupAlias) return this.groupAliasAt(req, groupAlias[1]!);
    const m = /^(entity|entity-alias|group)\/(id|name)\/?(.*)$/.exec(p);
    if (!m) return undefined;
    const [, kind, by, key] = m as unknown as [string, 'entity' | 'entity-alias' | 'group', 'id' | 'name', string];
    if (kind === 'entity-alias' && by === 'name') return undefined;
    if (key === '') return op === 'list' ? this.list(kind, by) : unsupportedOperation();
    if (op === 'list') return unsupportedOperation();
    if (kind === 'entity') return this.entityAt(req, by, key);
    if (kind === 'group') return this.groupAt(req, by, key);
    return this.aliasAt(req, key);
  }

  // ---- entities (identity_store_entities.go) ----

  private entityAt(req: EngineRequest, by: 'id' | 'name', key: string): EngineResult {
    const entity = by === 'id' ? this.store.entities.get(key) : this.store.entityByName(key);
    switch (req.operation) {
      case 'read':
        return entity ? { kind: 'data', data: this.entityView(entity) } : notFound();
      case 'delete':
        if (entity) this.store.deleteEntity(entity.id);
        return done();
      case 'create-or-update':
        return this.writeEntity({ ...req.data, [by]: key });
      default:
        return unsupportedOperation();
    }
  }

  /** handleEntityUpdateCommon: a new entity answers 200 with its id; an update answers 204. */
  private writeEntity(d: Record<string, unknown>): EngineResult {
    const id = optionalString(d.id, 'id');
    let entity: Entity | undefined;
    if (id) {
      entity = this.store.entities.get(id);
      if (!entity) return badRequest('entity not found from id');
    }
    const name = optionalString(d.name, 'name');
    if (name) {
      const byName = this.store.entityByName(name);
      if (byName && !entity) entity = byName;
      else if (byName && byName.id !== entity?.id) return badRequest('entity name is already in use');
    }
    const policies = stringList(d.policies, 'policies');
    if ((policies ?? entity?.policies ?? []).includes('root')) return badRequest('policies cannot contain root');
    const metadata = stringMap(d.metadata, 'metadata');
    const disabled = bool(d.disabled, 'disabled');
    if (!entity) {
      const made = this.store.addEntity({ name, metadata, policies: policies ? [...new Set(policies)] : [], disabled });
      return created({ id: made.id, name: made.name, aliases: null });
    }
    if (name) entity.name = name;
    if (policies) entity.policies = [...new Set(policies)];
    if (metadata) entity.metadata = metadata;
    if (disabled !== undefined) entity.disabled = disabled;
    entity.updatedAt = new Date().toISOString();
    return done();
  }

  private entityView(e: Entity): Record<string, unknown> {
    return {
      id: e.id,
      name: e.name,
      metadata: e.metadata,
      merged_entity_ids: null,
      policies: e.policies,
      disabled: e.disabled,
      namespace_id: this.ctx.namespaceId,
      creation_time: e.createdAt,
      last_update_time: e.updatedAt,
      aliases: e.aliases.map((a) => this.aliasView(a)),
      direct_group_ids: [...e.groupIds],
      inherited_group_ids: [],
      group_ids: [...e.groupIds],
    };
  }

  // ---- entity aliases (identity_store_aliases.go) ----

  private aliasAt(req: EngineRequest, id: string): EngineResult {
    const found = this.store.aliasById(id);
    switch (req.operation) {
      case 'read':
        return found ? { kind: 'data', data: this.aliasView(found.alias) } : notFound();
      case 'delete':
        if (found) found.entity.aliases = found.entity.aliases.filter((a) => a.id !== id);
        return done();
      case 'create-or-update':
        return this.writeAlias({ ...req.data, id });
      default:
        return unsupportedOperation();
    }
  }

  /** handleAliasCreateUpdate: by id an update; else by (mount accessor, name), made when missing. */
  private writeAlias(d: Record<string, unknown>): EngineResult {
    let name = optionalString(d.name, 'name') ?? '';
    let accessor = optionalString(d.mount_accessor, 'mount_accessor') ?? '';
    const id = optionalString(d.id, 'id') ?? '';
    const canonicalId = optionalString(d.canonical_id, 'canonical_id') || optionalString(d.entity_id, 'entity_id') || '';
    const customMetadata = stringMap(d.custom_metadata, 'custom_metadata');
    if (id) {
      const found = this.store.aliasById(id);
      if (!found) return badRequest('invalid alias ID provided');
      if (!accessor && !name && !canonicalId && !customMetadata) return done();
      name ||= found.alias.name;
      accessor ||= found.alias.mountAccessor;
      return this.updateAlias(found, name, accessor, canonicalId, customMetadata);
    }
    if (!accessor || !name) return badRequest("'id' or 'mount_accessor' and 'name' must be provided");
    const mount = this.ctx.mountByAccessor(accessor);
    if (!mount) return badRequest(`invalid mount accessor "${accessor}"`);
    if (mount.namespace !== this.ctx.namespace) return forbidden('matching mount is in a different namespace than request');
    const existing = this.store.aliasByFactors(accessor, name);
    if (existing) return this.updateAlias(existing, name, accessor, canonicalId, customMetadata);
    let entity: Entity | undefined;
    if (canonicalId) {
      entity = this.store.entities.get(canonicalId);
      if (!entity) return badRequest('invalid canonical ID');
    }
    entity ??= this.store.addEntity({});
    if (entity.aliases.some((a) => a.mountAccessor === accessor)) return badRequest('Alias already exists for requested entity and mount accessor');
    const alias = this.store.addAlias(entity, { name, mountAccessor: accessor, customMetadata });
    return created({ id: alias.id, canonical_id: entity.id });
  }

  /** handleAliasUpdate: renames, moves to another entity, or changes custom metadata. */
  private updateAlias(found: { alias: Alias; entity: Entity }, name: string, accessor: string, canonicalId: string, customMetadata: Record<string, string> | undefined): EngineResult {
    const { alias, entity } = found;
    const metadata = customMetadata ?? alias.customMetadata;
    const sameMetadata = JSON.stringify(metadata) === JSON.stringify(alias.customMetadata);
    if (name === alias.name && accessor === alias.mountAccessor && (!canonicalId || canonicalId === alias.canonicalId) && sameMetadata) return done();
    if (accessor !== alias.mountAccessor && (!canonicalId || canonicalId === alias.canonicalId) && entity.aliases.some((a) => a.id !== alias.id && a.mountAccessor === accessor)) {
      return badRequest("Alias cannot be updated as the entity already has an alias for the given 'mount_accessor' ");
    }
    if (name !== alias.name || accessor !== alias.mountAccessor) {
      const mount = this.ctx.mountByAccessor(accessor);
      if (!mount) return badRequest(`invalid mount accessor "${accessor}"`);
      if (mount.namespace !== this.ctx.namespace) return forbidden('given mount accessor is not in the same namespace as the existing alias');
      const other = this.store.aliasByFactors(accessor, name);
      if (other && other.alias.id !== alias.id) return badRequest('alias with combination of mount accessor and name already exists');
    }
    let target = entity;
    if (canonicalId && canonicalId !== alias.canonicalId) {
      const moved = this.store.entities.get(canonicalId);
      if (!moved) return badRequest("given 'canonical_id' is not associated with an entity");
      if (moved.aliases.some((a) => a.mountAccessor === accessor)) return badRequest('Alias cannot be updated as the given entity already has an alias for this mount ');
      entity.aliases = entity.aliases.filter((a) => a.id !== alias.id);
      moved.aliases.push(alias);
      alias.canonicalId = moved.id;
      target = moved;
    }
    alias.name = name;
    alias.mountAccessor = accessor;
    alias.customMetadata = { ...metadata };
    alias.updatedAt = new Date().toISOString();
    return created({ id: alias.id, canonical_id: target.id });
  }

  private aliasView(a: Alias): Record<string, unknown> {
    const view: Record<string, unknown> = {
      id: a.id,
      canonical_id: a.canonicalId,
      mount_accessor: a.mountAccessor,
      metadata: null,
      custom_metadata: a.customMetadata,
      name: a.name,
      merged_from_canonical_ids: null,
      namespace_id: this.ctx.namespaceId,
      local: false,
      creation_time: a.createdAt,
      last_update_time: a.updatedAt,
    };
    const mount = this.ctx.mountByAccessor(a.mountAccessor);
    if (mount) Object.assign(view, { mount_type: mount.mount.type, mount_path: mount.mount.prefix });
    return view;
  }

  // ---- groups (identity_store_groups.go) ----

  private groupAt(req: EngineRequest, by: 'id' | 'name', key: string): EngineResult {
    const group = by === 'id' ? this.store.groups.get(key) : this.store.groupByName(key);
    switch (req.operation) {
      case 'read':
        return group ? { kind: 'data', data: this.groupView(group) } : notFound();
      case 'delete':
        if (group) this.store.deleteGroup(group.id);
        return done();
      case 'create-or-update':
        if (by === 'id' && !group) return badRequest('invalid group ID');
        return this.updateGroup(group, { ...req.data, name: by === 'name' ? key : req.data.name });
      default:
        return unsupportedOperation();
    }
  }

  /** pathGroupRegister: an id updates that group, a name updates or makes the group of that name. */
  private writeGroup(d: Record<string, unknown>): EngineResult {
    const id = optionalString(d.id, 'id');
    if (id) {
      const group = this.store.groups.get(id);
      if (!group) return badRequest('invalid group ID');
      return this.updateGroup(group, d);
    }
    const name = optionalString(d.name, 'name');
    return this.updateGroup(name ? this.store.groupByName(name) : undefined, d);
  }

  /** handleGroupUpdateCommon: 200 with the id of a new group, 204 for an update. */
  private updateGroup(group: Group | undefined, d: Record<string, unknown>): EngineResult {
    const policies = stringList(d.policies, 'policies');
    if ((policies ?? group?.policies ?? []).some((p) => p.toLowerCase() === 'root')) return badRequest('policies cannot contain root');
    const type = optionalString(d.type, 'type');
    if (type !== undefined && type !== '' && type !== 'internal') {
      // External groups take their members from an auth method's group aliases, which the reference does not make.
      return badRequest(type === 'external' ? 'external groups are not implemented by the reference; use an internal group' : `invalid group type "${type}"`);
    }
    const name = optionalString(d.name, 'name');
    if (name) {
      const byName = this.store.groupByName(name);
      if (byName && byName.id !== group?.id) return badRequest('group name is already in use');
    }
    const metadata = stringMap(d.metadata, 'metadata');
    const members = stringList(d.member_entity_ids, 'member_entity_ids');
    for (const id of members ?? []) if (!this.store.entities.has(id)) return badRequest(`invalid entity ID "${id}"`);
    if (stringList(d.member_group_ids, 'member_group_ids')?.length) {
      return badRequest('member_group_ids: nested groups are not implemented by the reference; list the entities in member_entity_ids');
    }
    if (!group) {
      const made = this.store.addGroup({ name, policies: policies ? [...new Set(policies)] : [], metadata, memberEntityIds: members });
      return created({ id: made.id, name: made.name });
    }
    this.store.touch(group, {
      ...(name ? { name } : {}),
      ...(policies ? { policies: [...new Set(policies)] } : {}),
      ...(metadata ? { metadata } : {}),
      ...(members ? { memberEntityIds: members } : {}),
    });
    return done();
  }

  private groupView(g: Group): Record<string, unknown> {
    return {
      id: g.id,
      name: g.name,
      type: 'internal',
      policies: g.policies,
      member_entity_ids: g.memberEntityIds,
      member_group_ids: null,
      parent_group_ids: null,
      metadata: g.metadata,
      alias: {},
      namespace_id: this.ctx.namespaceId,
      creation_time: g.createdAt,
      last_update_time: g.updatedAt,
      modify_index: g.modifyIndex,
    };
  }

  // ---- group aliases (identity_store_group_aliases.go) ----

  /**
   * A group alias ties an external group to an auth method's group name; every group of the
   * reference is internal, so no alias ever exists. What a client sends is still answered as Vault
   * answers it (pathGroupAliasRegister, handleGroupAliasUpdateCommon; OpenBao 2.6.2 answered each
   * the same): the name and mount accessor are required, a canonical_id must name a group and an
   * internal one is refused; without one Vault would make a new external group, which the reference
   * refuses as it refuses `type: external`.
   */
  private writeGroupAlias(d: Record<string, unknown>): EngineResult {
    if (d.id !== undefined && d.id !== null) return optionalString(d.id, 'id') ? badRequest('invalid group alias ID') : badRequest('empty group alias ID');
    const name = optionalString(d.name, 'name') ?? '';
    if (!name) return badRequest('missing alias name');
    const accessor = optionalString(d.mount_accessor, 'mount_accessor') ?? '';
    if (!accessor) return badRequest('missing mount_accessor');
    const canonicalId = optionalString(d.canonical_id, 'canonical_id') ?? '';
    if (canonicalId) {
      if (!this.store.groups.has(canonicalId)) return badRequest("invalid group ID given in 'canonical_id'");
      return badRequest("alias can't be set on an internal group");
    }
    const mount = this.ctx.mountByAccessor(accessor);
    if (!mount) return badRequest(`invalid mount accessor "${accessor}"`);
    if (mount.namespace !== this.ctx.namespace) return forbidden("mount referenced via 'mount_accessor' not in the same namespace as alias");
    return badRequest('external groups are not implemented by the reference; a group alias needs one');
  }

  /** pathGroupAliasIDRead, pathGroupAliasIDUpdate, pathGroupAliasIDDelete, pathGroupAliasIDList with no alias to find. */
  private groupAliasAt(req: EngineRequest, id: string): EngineResult {
    if (id === '') return req.operation === 'list' ? notFound() : unsupportedOperation();
    switch (req.operation) {
      case 'read':
        return notFound();
      case 'delete':
        return done();
      case 'create-or-update':
        return badRequest('invalid group alias ID');
      default:
        return unsupportedOperation();
    }
  }

  // ---- lists ----

  /** LIST by id or name; key_info is keyed by id either way, as Vault does. An empty list is 404. */
  private list(kind: 'entity' | 'entity-alias' | 'group', by: 'id' | 'name'): EngineResult {
    const keys: string[] = [];
    const keyInfo: Record<string, unknown> = {};
    if (kind === 'entity') {
      for (const e of this.store.entities.values()) {
        keys.push(by === 'id' ? e.id : e.name);
        const info: Record<string, unknown> = { name: e.name };
        if (e.aliases.length) info.aliases = e.aliases.map((a) => ({ id: a.id, name: a.name, mount_accessor: a.mountAccessor, ...this.mountFields(a.mountAccessor) }));
        keyInfo[e.id] = info;
      }
    } else if (kind === 'group') {
      for (const g of this.store.groups.values()) {
        keys.push(by === 'id' ? g.id : g.name);
        keyInfo[g.id] = { name: g.name, num_member_entities: g.memberEntityIds.length, num_parent_groups: 0 };
      }
    } else {
      for (const e of this.store.entities.values()) {
        for (const a of e.aliases) {
          keys.push(a.id);
          keyInfo[a.id] = { name: a.name, canonical_id: a.canonicalId, mount_accessor: a.mountAccessor, custom_metadata: a.customMetadata, local: false, ...this.mountFields(a.mountAccessor) };
        }
      }
    }
    if (keys.length === 0) return notFound();
    return { kind: 'data', data: { keys: keys.sort(), key_info: keyInfo } };
  }

  private mountFields(accessor: string): Record<string, string> {
    const mount = this.ctx.mountByAccessor(accessor);
    return mount ? { mount_type: mount.mount.type, mount_path: mount.mount.prefix } : {};
  }
}
