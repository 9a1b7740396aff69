import { randomUUID } from 'node:crypto';

export interface Intention {
  id: string;
  sourceNs: string;
  source: string;
  destinationNs: string;
  destination: string;
  action: 'allow' | 'deny';
  /** Layer-7 permissions; the spec says authorize treats any intention that has them as deny. */
  permissions?: unknown[];
}

/** The intentions the agent decides connections by. How they are made is outside the spec (control interface). */
export class IntentionStore {
  private readonly intentions = new Map<string, Intention>();

  add(i: Omit<Intention, 'id'>): Intention {
    const intention = { ...i, id: randomUUID() };
    this.intentions.set(intention.id, intention);
    return intention;
  }

  remove(id: string): boolean {
    return this.intentions.delete(id);
  }

  /** The first intention for a destination whatever its source: the fault that ignores the source. */
  matchDestination(destinationNs: string, destination: string): Intention | undefined {
    for (const i of this.intentions.values()) if (i.destination === destination && i.destinationNs === destinationNs) return i;
    return undefined;
  }

  /** The intention for exactly this source and destination, if any (names are exact; no wildcards). */
  match(sourceNs: string, source: string, destinationNs: string, destination: string): Intention | undefined {
    for (const i of this.intentions.values()) {
      if (i.source === source && i.sourceNs === sourceNs && i.destination === destination && i.destinationNs === destinationNs) return i;
    }
    return undefined;
  }
}

/**
 * The intention as a Reason names it.
 * - `consul`: like Consul's Intention.String (agent/structs/intention.go): source and destination,
 *   the ID, the precedence (9 for exact names on both sides), then `Action: ALLOW|DENY`, or
 *   `Permissions: N` for a layer-7 intention.
 * - `spec`: the reference's own wording, with the action in lower case.
 */
export function describeIntention(i: Intention, style: 'spec' | 'consul' = 'spec'): string {
  const layer7 = (i.permissions?.length ?? 0) > 0;
  if (style === 'consul') {
    const detail = layer7 ? `Permissions: ${i.permissions!.length}` : `Action: ${i.action.toUpperCase()}`;
    return `${i.sourceNs}/${i.source} => ${i.destinationNs}/${i.destination} (ID: ${i.id}, Precedence: 9, ${detail})`;
  }
  return `${i.sourceNs}/${i.source} => ${i.destinationNs}/${i.destination} (${i.action}${layer7 ? ', with permissions' : ''}, id ${i.id})`;
}

/** The fault that drops the action from the Reason: source and destination only. */
export function describeIntentionWithoutAction(i: Intention): string {
  return `${i.sourceNs}/${i.source} => ${i.destinationNs}/${i.destination}`;
}
