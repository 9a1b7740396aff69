// The embedded reference in a process of its own, so the load generator does not share its event loop.
import { startReference } from '../src/reference/reference.ts';
import { referenceTargets } from '../src/run/reference-targets.ts';

const ref = await startReference();
process.stdout.write(`${JSON.stringify(referenceTargets(ref))}\n`);
process.on('SIGTERM', () => void ref.stop().then(() => process.exit(0)));
