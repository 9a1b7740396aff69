/**
 * The Nomad release the hashicorp-dialect reference answers as: what /v1/agent/self and its node
 * report, and the release its version-dependent answers follow. Job validation was read at v1.9.7
 * (nomad-job/admit.ts), the client endpoints at v1.9.7 and checked at v1.6.1 and v2.0.5.
 */
export const NOMAD_VERSION = '1.9.0';

/** major, minor, patch of a release number ('2.0.5', 'v1.11.0-rc.1'); pre-release and build suffixes left out. */
function parts(version: string): [number, number, number] {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version);
  if (!m) throw new Error(`not a Nomad release number: ${JSON.stringify(version)}`);
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

/** Whether release `version` is `since` or later. */
export function nomadAtLeast(version: string, since: string): boolean {
  const [a, b] = [parts(version), parts(since)];
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return true;
}
