import { isIP } from 'node:net';

/** Whether a URL's host is a loopback address (127.0.0.0/8, ::1, localhost). */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
