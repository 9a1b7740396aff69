import type { Exchange } from '../../src/client/exchange.ts';

const KEEP_FIRST = 10;
const KEEP_LAST = 40;

/**
 * The exchanges of one rule's test. Property runs can make thousands of requests; the log keeps
 * the first few and the most recent ones, where a failure's own exchanges are.
 */
export class ExchangeLog {
  private first: Exchange[] = [];
  private last: Exchange[] = [];
  private dropped = 0;

  add(exchange: Exchange): void {
    if (this.first.length < KEEP_FIRST) {
      this.first.push(exchange);
      return;
    }
    this.last.push(exchange);
    if (this.last.length > KEEP_LAST) {
      this.last.shift();
      this.dropped += 1;
    }
  }

  clear(): void {
    this.dropped += this.first.length + this.last.length;
    this.first = [];
    this.last = [];
  }

  entries(): Exchange[] {
    return [...this.first, ...this.last];
  }

  droppedCount(): number {
    return this.dropped;
  }
}
