import { EventEmitter } from 'node:events';

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

/**
 * A subscription: topic → its filter keys in the order given ('*' for any; a key given twice is
 * listed twice, as upstream keeps it), and a namespace ('*' for all).
 */
export interface Subscription {
  topics: Map<string, string[]>;
  namespace: string;
}

/** How events are matched to a subscription: the spec's model, with the upstream product's choices and deviations as switches. */
export interface MatchRules {
  /**
   * Nomad's filter (nomad/stream/subscription.go filter) appends an event once per subscribed key it
   * matches, so an event matching two keys arrives twice in its frame. The spec is silent on it:
   * the hashicorp dialect does the same.
   */
  repeatPerKey: boolean;
  /**
   * Nomad's filter treats '*' as "any key" only when it is the topic's only key; beside other keys
   * it is compared as a literal key, so 'Job' with 'Job:k' receives only k. A spec deviation
   * (behaviour upstream, or the fault scheduler.events-wildcard-lost-with-keys).
   */
  wildcardOnlyAlone: boolean;
  /** Fault switches (filter keys ignored; namespace filter ignored), apart so no one takes them for behaviour. */
  flaws: { filterKeysIgnored: boolean; namespaceIgnored: boolean };
}

/** How many times an event is delivered to a subscription: 0 when it does not match. */
export function deliveries(event: SchedulerEvent, sub: Subscription, rules: MatchRules): number {
  // The events of topics without a namespace (Node, NodeDrain, ACLToken, ACLPolicy) are published
  // with Namespace '' (service.ts, acl-policies.ts) and pass any namespace filter: spec 002 filters
  // by namespace only "event types that support them".
  const namespaceOk = sub.namespace === '*' || event.Namespace === '' || event.Namespace === sub.namespace || rules.flaws.namespaceIgnored;
  if (!namespaceOk) return 0;
  // The keys of the '*' topic apply to every topic, beside the topic's own keys. '*:*' alone
  // matches everything before any key is compared (as Nomad's filter does too).
  const anyTopic = sub.topics.get('*') ?? [];
  if (anyTopic.length === 1 && anyTopic[0] === '*') return 1;
  const keys = [...anyTopic, ...(sub.topics.get(event.Topic) ?? [])];
  if (keys.length === 0) return 0;
  if (rules.flaws.filterKeysIgnored) return 1;
  const candidates = [event.Key, ...(event.FilterKeys ?? [])];
  const hit = (key: string) => (key === '*' ? !rules.wildcardOnlyAlone || keys.length === 1 : candidates.includes(key));
  const hits = keys.filter(hit).length;
  if (hits === 0) return 0;
  return rules.repeatPerKey ? hits : 1;
}

/**
 * The scheduler's event broker: frames of events with non-decreasing indexes, kept in a bounded
 * buffer, fanned out to live subscribers. Several frames may share an index (publishFrames).
 */
export class EventBroker {
  private readonly buffer: Frame[] = [];
  private readonly live = new EventEmitter();
  /** The highest index that was published and has since left the buffer (0: none yet). */
  private evicted = 0;
  /** How many frames were ever published: a frame's place in the stream, which its index is not when two share one. */
  private published = 0;

  constructor(
    readonly capacity: number,
    private readonly nextIndex: () => number,
  ) {}

  /**
   * Publishes the events of one change, built knowing the change's index: the objects a change
   * writes carry it as their ModifyIndex (Nomad's raft index), and the frame has the same one.
   */
  publishWith(build: (index: number) => Omit<SchedulerEvent, 'Index'>[]): Frame {
    const index = this.nextIndex();
    return this.append(index, build(index));
  }

  /**
   * Publishes one change as several frames at the same index, in order, leaving out empty ones:
   * Nomad publishes one frame per state-store transaction (nomad/state/state_changes.go txn.Commit
   * hands each transaction's changes to the broker), and one raft apply may commit several at the
   * log's index (nomad/fsm.go applyUpsertJob: the job's transaction, then upsertEvals'; the same in
   * applyDeregisterJob; v1.6.1 and v2.0.5). The frames go out in the same turn, back to back.
   * Returns the change's index.
   */
  publishFrames(build: (index: number) => Omit<SchedulerEvent, 'Index'>[][]): number {
    const index = this.nextIndex();
    for (const events of build(index)) if (events.length > 0) this.append(index, events);
    return index;
  }

  private append(index: number, events: Omit<SchedulerEvent, 'Index'>[]): Frame {
    const frame: Frame = { Index: index, Events: events.map((e) => ({ ...e, Index: index })) };
    this.buffer.push(frame);
    this.published += 1;
    while (this.buffer.length > this.capacity) this.evicted = this.buffer.shift()!.Index;
    this.live.emit('frame', frame, this.published);
    return frame;
  }

  /** Frames from `index` on (every frame of that index); when `index` is no longer buffered, from the oldest frame kept. */
  backlog(index: number): Frame[] {
    return this.buffer.filter((f) => f.Index >= index);
  }

  /** Whether a frame with this index was published and has left the buffer. */
  wasEvicted(index: number): boolean {
    return index > 0 && index <= this.evicted;
  }

  get oldestIndex(): number | undefined {
    return this.buffer[0]?.Index;
  }

  get latestIndex(): number {
    return this.buffer[this.buffer.length - 1]?.Index ?? 0;
  }

  /** The place of the latest frame in the stream (frames published so far). */
  get latestFrame(): number {
    return this.published;
  }

  /**
   * `listener` gets each frame as it is published, with its place in the stream (see latestFrame).
   * The service's one StreamFanout is the only listener, for the broker's whole life: nothing
   * unsubscribes, and one listener stays under EventEmitter's leak warning.
   */
  onFrame(listener: (frame: Frame, place: number) => void): void {
    this.live.on('frame', listener);
  }
}
