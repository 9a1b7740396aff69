import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { SystemName } from '../../config/names.ts';
import { EXIT } from '../exit-codes.ts';

export interface InitFlags {
  secretsUrl?: string;
  meshUrl?: string;
  schedulerUrl?: string;
  /** Where to write the config (default stackproof.config.json). */
  out?: string;
  force?: boolean;
}

/** Bad usage of init: the CLI prints the message and exits 2. */
class InitUsageError extends Error {
  readonly exitCode = EXIT.USAGE;
}

const existsError = (out: string) => new InitUsageError(`${out} exists; --force overwrites it`);

export const DEFAULT_CONFIG_FILE = 'stackproof.config.json';

/** A URL the config loader would take; credentials in it would end up in the file, so they are refused. */
function checkUrl(flag: string, url: string): string {
  if (!URL.canParse(url)) throw new InitUsageError(`${flag} ${JSON.stringify(url)}: must be an absolute URL such as http://127.0.0.1:8200`);
  const parsed = new URL(url);
  if (!/^https?:$/.test(parsed.protocol)) throw new InitUsageError(`${flag}: must use http or https`);
  if (parsed.username || parsed.password) throw new InitUsageError(`${flag}: no credentials in the URL; the token goes in the environment variable`);
  return url;
}

/**
 * Writes a commented starting config: for the given targets what they answered without a token,
 * else a template that uses the embedded reference. Never overwrites a file unless --force.
 */
export async function runInitCommand(flags: InitFlags): Promise<number> {
  const out = flags.out ?? DEFAULT_CONFIG_FILE;
  const urls: Partial<Record<SystemName, string>> = {};
  if (flags.secretsUrl !== undefined) urls.secrets = checkUrl('--secrets-url', flags.secretsUrl);
  if (flags.meshUrl !== undefined) urls.mesh = checkUrl('--mesh-url', flags.meshUrl);
  if (flags.schedulerUrl !== undefined) urls.scheduler = checkUrl('--scheduler-url', flags.schedulerUrl);
  // Checked before probing too, so a refusal does not wait for the targets.
  if (!flags.force && existsSync(out)) throw existsError(out);

  const { renderDetectedConfig, renderStarterConfig } = await import('../../config/config-template.ts');
  let text: string;
  let unreachable: string[] = [];
  if (Object.keys(urls).length === 0) {
    text = renderStarterConfig();
    process.stderr.write('no target URLs given: writing a template; as written, runs use the embedded reference (it needs no config)\n');
  } else {
    const { detectTargets, DETECT_DEADLINE_MS } = await import('../../config/detect-target.ts');
    process.stderr.write(`probing ${Object.keys(urls).join(', ')} without a token (at most ${DETECT_DEADLINE_MS / 1000} s)...\n`);
    const detections = await detectTargets(urls);
    for (const d of detections) {
      const dialect = d.dialect.value ? `dialect ${d.dialect.value} (${d.dialect.how})` : d.reachable ? `dialect not detected (${d.dialect.how}); spec written` : 'dialect spec written (not detected)';
      process.stderr.write(`  ${d.system} ${d.url}: ${d.reachable ? 'reachable' : `NOT reachable (${d.reachability})`}; ${dialect}\n`);
    }
    text = renderDetectedConfig(detections);
    unreachable = detections.filter((d) => !d.reachable).map((d) => `${d.system} ${d.url}`);
  }

  try {
    // 'wx' refuses an existing file atomically, so a file made meanwhile is not lost either.
    await writeFile(out, text, { flag: flags.force ? 'w' : 'wx' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw existsError(out);
    throw new InitUsageError(`${out}: cannot be written (${code ?? String(err)})`);
  }
  const variables = Object.keys(urls).map((s) => `STACKPROOF_${s.toUpperCase()}_TOKEN`);
  process.stderr.write(`wrote ${out}\n`);
  if (unreachable.length) {
    // Written all the same (the comments say what was not found), but a script must not go on as if it had worked.
    process.stderr.write(`not reachable: ${unreachable.join(', ')}: check the URL and that it is running, then run init again (exit 3)\n`);
    return EXIT.UNREACHABLE;
  }
  process.stderr.write(
    variables.length
      ? `next: set ${variables.join(', ')}, then npx stackproof conform --config ${out}\n`
      : `next: npx stackproof conform --config ${out} (the embedded reference), or uncomment a target in it\n`,
  );
  return 0;
}
