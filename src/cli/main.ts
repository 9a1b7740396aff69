import { runCli } from './program.ts';

// Exit explicitly: a run must end in bounded time even if a misbehaving target left a socket open.
// But first let stdout and stderr drain: on a pipe, process.exit would cut a long JSON answer short.
const code = await runCli(process.argv);
await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((resolve) => s.write('', () => resolve()))));
process.exit(code);
