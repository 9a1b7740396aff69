import { CONFIG_SCHEMA_REF } from './config-json-schema-ref.ts';
import type { DialectName } from './dialects.ts';
import type { TargetDetection } from './detect-target.ts';
import type { SystemName } from './names.ts';

/**
 * Renders the commented config `stackproof init` writes (JSONC, which the loader reads). Every
 * detected value has a comment saying how it was found; tokens are never written, a comment names
 * the environment variable instead. What could not be detected keeps the loader's default, with a
 * comment saying how to turn it on.
 */

/** A member of a JSON object, with the comment lines written above it. */
interface Member {
  key: string;
  value: string | number | boolean | Member[];
  comments?: string[];
  /** Written commented out: an option the user may take by removing the `//`. */
  disabled?: boolean;
}

const TOKEN_VARIABLE: Record<SystemName, string> = {
  secrets: 'STACKPROOF_SECRETS_TOKEN',
  mesh: 'STACKPROOF_MESH_TOKEN',
  scheduler: 'STACKPROOF_SCHEDULER_TOKEN',
};

/** The upstream products' dev-mode addresses (vault server -dev, consul agent -dev, nomad agent -dev). */
export const DEV_ADDRESSES: Record<SystemName, string> = {
  secrets: 'http://127.0.0.1:8200',
  mesh: 'http://127.0.0.1:8500',
  scheduler: 'http://127.0.0.1:4646',
};

const TITLE: Record<SystemName, string> = {
  secrets: 'secrets service (spec 000; Vault in the hashicorp dialect)',
  mesh: 'service-mesh agent (spec 001; Consul in the hashicorp dialect)',
  scheduler: 'scheduler (spec 002; Nomad in the hashicorp dialect)',
};

const TOKEN_NEED: Record<SystemName, string> = {
  secrets: 'a client token; in the hashicorp dialect one that may use the admin API lets stackproof make its own fixtures',
  mesh: 'an ACL token with service:write; a management token lets stackproof make intentions, ACL tokens and CA rotations',
  scheduler: 'a management ACL token',
};

const PRODUCT_PORT: Record<SystemName, [string, string]> = {
  secrets: ['8200', 'Vault'],
  mesh: ['8500', 'Consul'],
  scheduler: ['4646', 'Nomad'],
};

function render(members: Member[], indent: string): string[] {
  const lines: string[] = [];
  members.forEach((m, i) => {
    const later = members.slice(i + 1);
    // An enabled member takes a comma only before another enabled one; a commented-out one before
    // any, so that removing its `//` (options come before the enabled members) leaves valid JSON.
    const comma = (m.disabled ? later.length > 0 : later.some((l) => !l.disabled)) ? ',' : '';
    for (const c of m.comments ?? []) lines.push(`${indent}// ${c}`);
    const prefix = m.disabled ? '// ' : '';
    if (Array.isArray(m.value)) {
      lines.push(`${indent}${prefix}${JSON.stringify(m.key)}: {`);
      for (const l of render(m.value, `${indent}  `)) lines.push(m.disabled ? `${indent}// ${l.slice(indent.length)}` : l);
      lines.push(`${indent}${prefix}}${comma}`);
    } else {
      lines.push(`${indent}${prefix}${JSON.stringify(m.key)}: ${JSON.stringify(m.value)}${comma}`);
    }
  });
  return lines;
}

function header(intro: string[]): string[] {
  return [
    '// stackproof configuration (JSONC: comments and trailing commas are allowed).',
    ...intro,
    '// Tokens never go in this file: set STACKPROOF_SECRETS_TOKEN, STACKPROOF_MESH_TOKEN and',
    '// STACKPROOF_SCHEDULER_TOKEN for the targets you use. Environment variables and flags override',
    '// the fields here; `npx stackproof schema` prints the schema that $schema points at.',
    '// VS Code: "files.associations": { "stackproof.config.json": "jsonc" } stops it flagging comments.',
  ];
}

function dialectMember(d: TargetDetection): Member {
  const [port, product] = PRODUCT_PORT[d.system];
  if (d.dialect.value) return { key: 'dialect', value: d.dialect.value, comments: [`detected: ${d.dialect.how}`] };
  const hint = !d.reachable && new URL(d.url).port === port ? ` (port ${port} is ${product}'s default)` : '';
  return {
    key: 'dialect',
    value: 'spec' satisfies DialectName,
    comments: [`not detected: ${d.dialect.how}.`, `spec is the default; set "hashicorp" if this is ${product}${hint}.`],
  };
}

function capabilityMembers(d: TargetDetection): Member[] {
  const undetectable = 'cannot be detected without a token';
  // In the hashicorp dialect the provisioners make these fixtures through the product's own API
  // (src/provision/): "set true with a control URL" would send a Vault, Consul or Nomad user astray.
  const upstream = d.dialect.value === 'hashicorp';
  const made = (product: string, what: string) => `false: stackproof makes ${what} through ${product}'s API, under the run prefix, when the token may (a root or management token); set true only to use ones you declare.`;
  switch (d.system) {
    case 'secrets': {
      const ent = d.enterprise;
      const nsComment =
        ent?.value === true
          ? upstream
            ? `false: Enterprise detected (${ent.how}): stackproof makes its namespaces through sys/namespaces when the token may; set true only to list namespaces of your own in "namespaces".`
            : `Enterprise detected (${ent.how}): namespaces are possible; list existing ones in "namespaces" (each with a v1 engine at kv.v1Mount) and set true.`
          : ent?.value === false
            ? `false: not Enterprise (${ent.how}); namespaces need Vault Enterprise.`
            : `false: the edition ${ent ? `is unknown (${ent.how})` : 'was not detected'}; on Enterprise, list namespaces in "namespaces" and set true.`;
      return [
        { key: 'namespaces', value: false, comments: [nsComment] },
        { key: 'requestHeaderProxy', value: false, comments: [`false: ${undetectable}; true with requestHeaderProxyUrl, a proxy that requires X-Service-Request.`] },
        { key: 'kvV2', value: false, comments: [upstream ? made('Vault', 'a version 2 key-value mount') : `false: ${undetectable}; true with kv.v2Mount, where a version 2 key-value engine is mounted.`] },
        { key: 'identityFixtures', value: false, comments: [upstream ? made('Vault', 'identity entities and their tokens') : `false: ${undetectable}; true with fixtures.controlUrl or fixtures.entities (identity entities for the OIDC rules).`] },
        { key: 'cloudIdentity', value: false, comments: [`false: ${undetectable}; true with cloudIdentity, the simulator the cloud-identity auth method trusts.`] },
      ];
    }
    case 'mesh': {
      const ent = d.enterprise;
      return [
        {
          key: 'namespaces',
          value: ent?.value === true,
          comments: [
            ent?.value === true
              ? `detected: Enterprise (${ent.how}).`
              : ent?.value === false
                ? `false: not Enterprise (${ent.how}); namespaces need Consul Enterprise.`
                : `false: the edition ${ent ? `is unknown (${ent.how})` : 'was not detected'}; set true for an agent with namespaces (Consul Enterprise).`,
          ],
        },
        { key: 'meshFixtures', value: false, comments: [upstream ? made('Consul', 'intentions, limited ACL tokens and CA rotations') : `false: ${undetectable}; true with fixtures.controlUrl and controlToken (a control interface such as the embedded reference's).`] },
      ];
    }
    case 'scheduler':
      return [{ key: 'schedulerFixtures', value: false, comments: [upstream ? made('Nomad', 'fixture jobs, ACL tokens and namespaces') : `false: ${undetectable}; true with fixtures.controlUrl and controlToken (a control interface such as the embedded reference's).`] }];
  }
}

/** Options that change what a run may do to a shared target: written commented out. */
function safetyMembers(system: SystemName): Member[] {
  if (system === 'mesh') return [{ key: 'rotateCa', value: false, disabled: true, comments: ["The CA rules rotate the agent's CA, which cannot be undone: uncomment to make them SKIP."] }];
  if (system === 'scheduler')
    return [
      { key: 'changeEligibility', value: false, disabled: true, comments: ["Some event rules toggle the node's eligibility (and put it back): uncomment to make them SKIP."] },
      { key: 'gcAll', value: false, disabled: true, comments: ['scheduler.gc.all collects every stopped allocation, other users\' too: uncomment to make it SKIP.'] },
    ];
  return [];
}

function targetMember(d: TargetDetection): Member {
  const found = [d.reachable ? `reachable: ${d.reachability}` : `NOT reachable when init ran: ${d.reachability}`];
  if (d.version) found.push(`version ${d.version}`);
  return {
    key: d.system,
    comments: [`${TITLE[d.system]}: ${found.join('; ')}.`, ...d.notes.map((n) => `note: ${n}.`), `token: set ${TOKEN_VARIABLE[d.system]} (${TOKEN_NEED[d.system]}).`],
    value: [{ key: 'url', value: d.url }, dialectMember(d), ...safetyMembers(d.system), { key: 'capabilities', value: capabilityMembers(d) }],
  };
}

/** The config for probed targets. */
export function renderDetectedConfig(detections: TargetDetection[]): string {
  const lines = [
    ...header([`// Written by \`stackproof init\` from what the targets answered without a token.`]),
    '{',
    ...render([{ key: '$schema', value: CONFIG_SCHEMA_REF }, { key: 'targets', value: detections.map(targetMember) }], '  '),
    '}',
  ];
  return `${lines.join('\n')}\n`;
}

/** The config with no targets: the embedded reference, and the three products' dev addresses to uncomment. */
export function renderStarterConfig(): string {
  const systems: SystemName[] = ['secrets', 'mesh', 'scheduler'];
  const targets: Member[] = systems.map((system) => ({
    key: system,
    disabled: true,
    comments: [`${TITLE[system]} at ${PRODUCT_PORT[system][1]}'s dev address; token: set ${TOKEN_VARIABLE[system]}.`],
    value: [
      { key: 'url', value: DEV_ADDRESSES[system] },
      { key: 'dialect', value: 'hashicorp' },
    ],
  }));
  const lines = [
    ...header([
      '// As written, no target is configured: `npx stackproof conform` checks the embedded reference,',
      '// which needs no config at all. To check your own services, uncomment a target below (or run',
      '// `npx stackproof init --secrets-url ... --mesh-url ... --scheduler-url ...` to detect them).',
    ]),
    '{',
    ...render([{ key: '$schema', value: CONFIG_SCHEMA_REF }, { key: 'targets', value: targets }], '  '),
    '}',
  ];
  return `${lines.join('\n')}\n`;
}
