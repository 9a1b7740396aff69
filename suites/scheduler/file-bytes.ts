import type { StreamResult } from '../../src/client/http-client.ts';

/** How long a run of a file's bytes must be for an answer to count as carrying them. */
const RUN = 16;

/**
 * Whether an answer carries bytes of a file: a run of RUN bytes of it starting at a multiple of
 * RUN (the whole file, if it is shorter), so any stretch of 2 x RUN - 1 bytes or more shows. An
 * error text that names the file's path, or the allocation's ID, never does: the fixtures' files
 * are lines of generated text, not paths.
 */
export function carriesBytesOf(answer: Buffer, file: Buffer): boolean {
  if (file.length === 0) return false;
  if (file.length <= RUN) return answer.includes(file);
  for (let at = 0; at + RUN <= file.length; at += RUN) if (answer.includes(file.subarray(at, at + RUN))) return true;
  return false;
}

/**
 * Everything an answer shows: its body, and the decoded bytes of any stream frames in it (a
 * stream or logs answer that should not have succeeded may still carry frames).
 */
export function shownBytes(res: StreamResult): Buffer {
  const frames = res.values.flatMap((v) => (typeof (v as { Data?: unknown })?.Data === 'string' ? [Buffer.from((v as { Data: string }).Data, 'base64')] : []));
  return Buffer.concat([res.bytes, ...frames]);
}

/** A success status: 2xx. Where the spec names no status for a refusal, anything else refuses. */
export const isSuccess = (status: number) => status >= 200 && status < 300;

/**
 * cat and readat are judged by what they deliver, not by their status: Nomad answers every cat
 * and readat error with 200 and the error's text as the body (hashicorp/nomad command/agent/http.go
 * wrapUntrustedContent: helper/noxssrw's writer, closed before wrap writes the error, commits a 200;
 * since 0.10.5). Their status is judged by one rule of its own, scheduler.fs.refusal-status.
 */
export const judgedByContent = (op: string) => op === 'cat' || op === 'readat';
