import { readJsonObjectOr4xx } from '../http/body.ts';
import { sendJsonBody, sendPlainError } from '../http/plain-errors.ts';
import type { RouteHandler } from '../http/router.ts';
import type { SchedulerService } from './service.ts';

const CONTROL_BODY_BYTES = 64 * 1024;

/**
 * POST /v1/control/scheduler/events/fill {through, event}: publishes copies of `event` until the
 * frame `through` has left the event buffer; answers {indexes} of the copies. What a real cluster
 * does by producing more than event_buffer_size newer frames; scheduler.events.index-evicted uses it.
 */
export function fillUntilEvictedRoute(scheduler: SchedulerService): RouteHandler {
  return async ({ req, res }) => {
    const b = await readJsonObjectOr4xx(req, res, CONTROL_BODY_BYTES);
    if (!b) return;
    const through = b.through;
    const e = b.event as Record<string, unknown> | undefined;
    if (!Number.isInteger(through) || (through as number) < 1) return sendPlainError(res, 400, 'control interface: through must be a positive frame index');
    if (typeof e !== 'object' || e === null || typeof e.Topic !== 'string' || typeof e.Key !== 'string') return sendPlainError(res, 400, 'control interface: event needs at least Topic and Key');
    if ((through as number) > scheduler.broker.latestIndex) return sendPlainError(res, 400, `control interface: frame ${String(through)} has not been published yet`);
    const indexes = scheduler.fillUntilEvicted(through as number, {
      Topic: e.Topic,
      Type: String(e.Type ?? ''),
      Key: e.Key,
      Namespace: String(e.Namespace ?? ''),
      FilterKeys: Array.isArray(e.FilterKeys) ? e.FilterKeys.map(String) : null,
      Payload: typeof e.Payload === 'object' && e.Payload !== null ? (e.Payload as Record<string, unknown>) : {},
    });
    sendJsonBody(res, 200, { indexes });
  };
}
