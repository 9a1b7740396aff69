import { runCli } from './program.ts';

// Exit explicitly: a run must end in bounded time even if a misbehaving target left a socket open.
const code = await runCli(process.argv);
process.exit(code);
