import type { LoadScenarioResult } from '../report/results-model.ts';
import { STREAM_END_WORDS, type StreamEndCause, type StreamEnding } from './fanout-subscribers.ts';

export type StreamEndingGroup = NonNullable<LoadScenarioResult['streams']>['endings'][number];

const range = (values: number[]) => ({ min: Math.min(...values), max: Math.max(...values) });
const span = (r: { min: number; max: number }) => (r.min === r.max ? `${r.min}` : `${r.min}-${r.max}`);

/**
 * The streams that ended early, grouped by cause (most first), each with what its figures say: how
 * far behind the newest registration the subscribers were when they ended, beside the target's event
 * buffer where it is known. A server that ends a stream with no error frame while the subscriber is
 * further behind than its buffer holds is dropping a subscriber that fell behind: Nomad does (its
 * subscription's next item left the buffer: "event dropped from buffer", nomad/stream/event_buffer.go
 * bufferItem.Next, logged by the agent and not sent to the client, command/agent/event_endpoint.go).
 */
export function groupEndings(endings: StreamEnding[], eventBufferSize: number | undefined): StreamEndingGroup[] {
  const byCause = new Map<StreamEndCause, StreamEnding[]>();
  for (const e of endings) byCause.set(e.cause, [...(byCause.get(e.cause) ?? []), e]);
  return [...byCause.entries()]
    .sort((a, b) => b[1].length - a[1].length)
    .map(([cause, group]) => {
      const behindIndexes = group.every((e) => e.behindIndexes !== undefined) ? range(group.map((e) => e.behindIndexes!)) : undefined;
      const behindRegistrations = group.every((e) => e.behindRegistrations !== undefined) ? range(group.map((e) => e.behindRegistrations!)) : undefined;
      const g: StreamEndingGroup = {
        cause,
        count: group.length,
        subscribers: group.slice(0, 20).map((e) => e.subscriber),
        detail: group[0]!.detail,
        explanation: '',
        atMs: range(group.map((e) => e.atMs)),
        delivered: range(group.map((e) => e.delivered)),
        ...(behindIndexes ? { behindIndexes } : {}),
        ...(behindRegistrations ? { behindRegistrations } : {}),
      };
      g.explanation = explain(g, group, eventBufferSize);
      return g;
    });
}

function explain(g: StreamEndingGroup, group: StreamEnding[], eventBufferSize: number | undefined): string {
  const words = `${g.count} ${g.count === 1 ? 'stream' : 'streams'} ${STREAM_END_WORDS[g.cause]} (${g.detail}) after ${span({ min: Math.round(g.atMs.min / 100) / 10, max: Math.round(g.atMs.max / 100) / 10 })} s, having received ${span(g.delivered)} event(s)`;
  if (!g.behindIndexes) return words;
  // The subscriber learns of the end after the server decided it, and the target's newest event may be
  // later than the newest registration (its evaluations follow): how far behind it was is a lower bound.
  const behind = `at least ${span(g.behindIndexes)} indexes${g.behindRegistrations ? ` (${span(g.behindRegistrations)} registrations)` : ''} behind the newest registration when ${g.count === 1 ? 'it' : 'they'} ended`;
  if (eventBufferSize === undefined) return `${words}; ${behind} (the target does not say how many events it buffers)`;
  const beyond = group.every((e) => (e.behindIndexes ?? 0) >= eventBufferSize);
  if (beyond && g.cause === 'deadline') {
    return `${words}; ${behind}, more than the target's event buffer holds (${eventBufferSize} events): the server dropped the subscription but left the connection open (Nomad from 2.0.0 does: after an error its event endpoint returns without closing the hijacked connection, command/agent/event_endpoint.go)`;
  }
  if (beyond) return `${words}; ${behind}, more than the target's event buffer holds (${eventBufferSize} events): the server drops a subscriber whose next event has left its buffer, so ${g.count === 1 ? 'it' : 'they'} had fallen behind`;
  return `${words}; ${behind}; the target's event buffer holds ${eventBufferSize} events, and a subscriber further behind is dropped`;
}
