// k6 provides console in every VU; @types/k6 does not declare it.
declare const console: { log(...args: unknown[]): void; error(...args: unknown[]): void };
