import { runCli } from './program.ts';

// `stackproof rules | head`: the reader has gone, and there is nobody left to tell. End quietly,
// as cat and grep do, rather than with a stack trace of an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

// Exit explicitly: a run must end in bounded time even if a misbehaving target left a socket open.
// But first let stdout and stderr drain: on a pipe, process.exit would cut a long JSON answer short.
const code = await runCli(process.argv);
await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((resolve) => s.write('', () => resolve()))));
process.exit(code);
