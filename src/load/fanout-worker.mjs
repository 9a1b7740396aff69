// Plain JavaScript entry of the fan-out's worker thread: a worker does not always inherit the
// parent's TypeScript loader (the CLI registers tsx at run time), so it registers its own.
import { register } from 'tsx/esm/api';

register();
await import('./fanout-worker.ts');
