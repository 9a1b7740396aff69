import { EventEmitter } from 'node:events';
import type { FaultSet } from '../faults/types.ts';

export interface SchedulerEvent {
  Topic: string;
  Type: string;
  Key: string;
  Namespace: string;
  FilterKeys: string[] | null;
  Index: number;
  Payload: Record<string, unknown>;
}

export interface Frame {
  Index: number;
  Events: SchedulerEvent[];
}

/** A subscription: topic → filter keys ('*' for any), and a namespace ('*' for all). */
export interface Subscription {
  topics: Map<string, Set<string>>;
  namespace: string;
}

/** Topics whose events carry no namespace: they pass any namespace filter. */
const UNNAMESPACED = new Set(['Node', 'NodeDrain', 'ACLToken', 'ACLPolicy']);

export function matches(event: SchedulerEvent, sub: Subscription, faults: FaultSet): boolean {
  const keys = sub.topics.get(event.Topic) ?? sub.topics.get('*');
  if (!keys) return false;
  if (!keys.has('*') && !faults.has('scheduler.events-filter-key-ignored')) {
    const candidates = [event.Key, ...(event.FilterKeys ?? [])];
    if (!candidates.some((k) => keys.has(k))) return false;
  }
  if (sub.namespace === '*' || UNNAMESPACED.has(event.Topic) || faults.has('scheduler.events-namespace-ignored')) return true;
  return event.Namespace === sub.namespace;
}

/**
 * The scheduler's event broker: frames of events with increasing indexes, kept in a bounded
 * buffer, fanned out to live subscribers.
 */
export class EventBroker {
  private readonly buffer: Frame[] = [];
  private readonly live = new EventEmitter();

  constructor(
    private readonly capacity: number,
    private readonly nextIndex: () => number,
  ) {
    this.live.setMaxListeners(0);
  }

  publish(events: Omit<SchedulerEvent, 'Index'>[]): Frame {
    const index = this.nextIndex();
    const frame: Frame = { Index: index, Events: events.map((e) => ({ ...e, Index: index })) };
    this.buffer.push(frame);
    while (this.buffer.length > this.capacity) this.buffer.shift();
    this.live.emit('frame', frame);
    return frame;
  }

  /** Frames from `index` on; when `index` is no longer buffered, from the oldest frame kept. */
  backlog(index: number, evictedEmpty = false): Frame[] {
    if (evictedEmpty && this.buffer[0] && index < this.buffer[0].Index && index > 0) return [];
    return this.buffer.filter((f) => f.Index >= index);
  }

  get oldestIndex(): number | undefined {
    return this.buffer[0]?.Index;
  }

  get latestIndex(): number {
    return this.buffer[this.buffer.length - 1]?.Index ?? 0;
  }

  onFrame(listener: (frame: Frame) => void): () => void {
    this.live.on('frame', listener);
    return () => this.live.off('frame', listener);
  }
}
