import type { FaultSet } from '../faults/types.ts';
import type { EngineRequest, SecretsEngine } from './engine.ts';
import { badRequest, notFound, type EngineResult } from './respond.ts';

/** Default lease the v1 engine reports on reads (32 days), as the upstream engine does. */
const KV_V1_LEASE_SECONDS = 2_764_800;

/** The version 1 key-value engine: one JSON object per key, listing on directories only. */
export class KvV1Engine implements SecretsEngine {
  readonly type = 'kv-v1';
  private readonly secrets = new Map<string, Record<string, unknown>>();

  constructor(private readonly faults: FaultSet) {}

  handle(req: EngineRequest): EngineResult {
    switch (req.operation) {
      case 'read':
        return this.read(req.path);
      case 'list':
        return this.list(req.path);
      case 'create-or-update':
        return this.write(req.path, req.data);
      case 'delete':
        this.secrets.delete(req.path);
        return { kind: 'no-content' };
      default:
        return { kind: 'error', status: 405, errors: ['unsupported operation'] };
    }
  }

  private read(key: string): EngineResult {
    const value = this.secrets.get(key);
    return value ? { kind: 'data', data: value, leaseDuration: KV_V1_LEASE_SECONDS } : notFound();
  }

  private write(key: string, data: Record<string, unknown>): EngineResult {
    if (key === '' || key.endsWith('/')) return badRequest('missing secret name in path');
    if (Object.keys(data).length === 0) return badRequest('no data provided');
    this.secrets.set(key, structuredClone(data));
    return { kind: 'no-content' };
  }

  private list(dir: string): EngineResult {
    const prefix = dir === '' || dir.endsWith('/') ? dir : `${dir}/`;
    const keys = new Set<string>();
    for (const key of this.secrets.keys()) {
      if (!key.startsWith(prefix)) continue;
      const rest = key.slice(prefix.length);
      const slash = rest.indexOf('/');
      keys.add(slash < 0 ? rest : rest.slice(0, slash + 1));
    }
    const sorted = [...keys].sort();
    if (sorted.length === 0 && !this.faults.has('secrets.list-empty-200')) return notFound();
    return { kind: 'data', data: { keys: sorted } };
  }
}
