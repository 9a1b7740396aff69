// Packs stackproof as `npm pack` would publish it and installs the tarball into an empty project,
// as a user would (`npm i -D stackproof`). The package is built in a copy of the checkout, so the
// checkout itself never gains a dist/ (a clone runs its TypeScript sources; see bin/stackproof.js)
// and a run beside this one is not disturbed. Used by test/package-install.test.ts and the bench.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function npm(args, cwd) {
  // npm's own output goes to a pipe; its JSON answers are on stdout.
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } });
}

/**
 * @param {string} dest an empty directory
 * @returns {{ tarball: string, app: string, files: string[], bin: string }}
 */
export function packAndInstall(dest) {
  const source = join(dest, 'source');
  const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of tracked) {
    if (!existsSync(join(root, file))) continue; // deleted but not yet committed
    mkdirSync(dirname(join(source, file)), { recursive: true });
    copyFileSync(join(root, file), join(source, file));
  }
  symlinkSync(join(root, 'node_modules'), join(source, 'node_modules'), 'dir');
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', dest], source));
  const tarball = join(dest, packed.filename);
  const app = join(dest, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'stackproof-install-check', private: true, type: 'module' }, null, 2)}\n`);
  npm(['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', tarball], app);
  return { tarball, app, files: packed.files.map((f) => f.path), bin: join(app, 'node_modules', '.bin', 'stackproof') };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dest = process.argv[2];
  if (!dest) {
    console.error('usage: node scripts/pack-install.mjs <empty directory>');
    process.exit(2);
  }
  mkdirSync(dest, { recursive: true });
  const { tarball, app, files } = packAndInstall(dest);
  console.log(`packed ${tarball} (${files.length} files), installed into ${app}`);
}
