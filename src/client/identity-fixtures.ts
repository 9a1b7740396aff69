import { z } from 'zod';
import type { SecretsTarget } from '../config/schema.ts';
import type { HttpClient } from './http-client.ts';

export interface EntityFixture {
  id: string;
  name: string;
  token: string;
  metadata: Record<string, string>;
  groups: { id: string; name: string }[];
}

export interface EntitySpec {
  name: string;
  metadata?: Record<string, string>;
  groups?: string[];
  namespace?: string;
}

const entitySchema = z.object({
  id: z.string(),
  name: z.string(),
  token: z.string(),
  metadata: z.record(z.string(), z.string()),
  groups: z.array(z.object({ id: z.string(), name: z.string() })),
});

/**
 * Identity entities for the OIDC rules. The spec does not show how entities are made, so the
 * target profile says: a control interface that creates them on demand (`dynamic`), or a fixed
 * list made beforehand, handed out in turn.
 */
export class IdentityFixtures {
  private next = 0;

  constructor(
    private readonly fixtures: NonNullable<SecretsTarget['fixtures']>,
    private readonly control: HttpClient | undefined,
    /** Makes an entity through the product's own admin API (the upstream provisioner). */
    private readonly upstream?: (spec: EntitySpec) => Promise<EntityFixture>,
  ) {}

  get dynamic(): boolean {
    return Boolean(this.control ?? this.upstream);
  }

  async entity(spec: EntitySpec): Promise<EntityFixture> {
    if (this.upstream) return this.upstream(spec);
    if (this.control) {
      const res = await this.control.post('/v1/control/secrets/entities', spec);
      if (res.status !== 200) throw new Error(`the control interface refused to create entity ${spec.name}: ${res.status} ${res.text.slice(0, 200)}`);
      return res.parse(entitySchema);
    }
    const list = this.fixtures.entities;
    const entity = list[this.next % list.length]!;
    this.next += 1;
    return entity;
  }
}
