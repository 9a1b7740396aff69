import { request } from 'undici';
import { z } from 'zod';
import { dialectFor, tokenHeaders } from '../config/dialects.ts';
import type { SchedulerTarget } from '../config/schema.ts';

const agentSelfSchema = z.object({ config: z.object({ Server: z.object({ EventBufferSize: z.number().int().positive() }).passthrough() }).passthrough() }).passthrough();

/**
 * How many events the scheduler keeps for its streams, where it says: Nomad reports its
 * event_buffer_size (default 100) in /v1/agent/self's config.Server (agent:read; a management token
 * has it). A subscriber further behind than that is dropped (nomad/stream/event_buffer.go), so a
 * stream that ends early is judged against it. Undefined where the target does not say.
 */
export async function schedulerEventBufferSize(target: SchedulerTarget): Promise<number | undefined> {
  try {
    const res = await request(new URL('/v1/agent/self', target.url), { headers: tokenHeaders(dialectFor(target.dialect).scheduler.token, target.token), headersTimeout: 5_000, bodyTimeout: 5_000 });
    const text = await res.body.text();
    if (res.statusCode !== 200) return undefined;
    const parsed = agentSelfSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.config.Server.EventBufferSize : undefined;
  } catch {
    return undefined;
  }
}
