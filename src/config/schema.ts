import { z } from 'zod';
import { REFERENCE_BEHAVIORS } from '../reference/behavior.ts';

import { PRODUCTS, SYSTEMS } from './names.ts';

export { PRODUCTS, SYSTEMS, type ProductName, type SystemName } from './names.ts';

const dialect = z.enum(['spec', 'hashicorp']).describe('Header and mount names: `spec` (X-Service-Token and the spec\'s neutral names) or `hashicorp` (X-Vault-Token, X-Consul-Token, X-Nomad-Token).');

const baseUrl = z
  .string()
  .url('must be an absolute URL such as http://127.0.0.1:8200')
  // Only judged when the text is a URL at all; .url() already names the other case.
  .refine((u) => !URL.canParse(u) || /^https?:$/.test(new URL(u).protocol), 'must use http or https')
  .describe('An absolute http or https URL, such as http://127.0.0.1:8200.');

const mountPath = z
  .string()
  .regex(/^[^/].*\/$/, 'must look like secret/ (no leading slash, a trailing slash)')
  .describe('A mount path such as secret/: no leading slash, one trailing slash.');

const secretsTarget = z
  .object({
    url: baseUrl.describe('Base URL of the secrets service (Vault: http://127.0.0.1:8200).'),
    token: z.string().min(1, 'a client token is required').describe('Client token. Do not write it here: set STACKPROOF_SECRETS_TOKEN.'),
    dialect: dialect.default('spec'),
    provisioner: z
      .enum(['auto', 'upstream', 'control', 'none'])
      .optional()
      .describe(
        'Who makes the fixtures the profile does not name (mounts, entities, namespaces, a second signing key): `upstream` is Vault\'s own admin API (hashicorp dialect, a token that may use it), `control` the reference\'s control listener (fixtures.controlUrl), `none` nobody. `auto` takes upstream when the token can use the admin API, else control when a control URL is given, else none (their rules are SKIP, with the reason).',
      ),
    capabilities: z
      .object({
        namespaces: z.boolean().default(false).describe('Enterprise namespaces (X-Service-Namespace), listed in `namespaces`. Without it the namespace rules are SKIP.'),
        requestHeaderProxy: z.boolean().default(false).describe('A proxy that requires X-Service-Request is reachable at `requestHeaderProxyUrl`.'),
        kvV2: z.boolean().default(false).describe('A version 2 key-value engine is mounted at `kv.v2Mount`.'),
        identityFixtures: z.boolean().default(false).describe('Identity entities can be had through `fixtures` (for the OIDC flow rules).'),
        cloudIdentity: z.boolean().default(false).describe('The cloud-identity auth method trusts the simulator named in `cloudIdentity`.'),
      })
      .strict()
      .default({ namespaces: false, requestHeaderProxy: false, kvV2: false, identityFixtures: false, cloudIdentity: false })
      .describe('What the target offers beyond the core API; a rule that needs a capability the target lacks is SKIP.'),
    kv: z
      .object({
        v1Mount: mountPath.default('secret/').describe('Where a version 1 key-value engine is mounted (a fresh install has one at secret/).'),
        v2Mount: mountPath.optional().describe('Where a version 2 key-value engine is mounted (with capabilities.kvV2).'),
      })
      .strict()
      .default({ v1Mount: 'secret/' }),
    namespaces: z
      .array(mountPath)
      .default([])
      .describe('Namespaces that exist on the target, each with a version 1 key-value engine at kv.v1Mount; nested ones included, e.g. ["team-a/", "team-a/app/"].'),
    requestHeaderProxyUrl: baseUrl.optional().describe('A proxy in front of the target that requires X-Service-Request (with capabilities.requestHeaderProxy).'),
    /**
     * How the cloud-identity auth method's trust is set up: the stackproof cloud simulator (started by
     * `stackproof serve`, or embedded) that mints machine tokens, the tenant it issues for, and the
     * auth method's mount (default: the dialect's). `clientAddresses` are two local source addresses
     * the target tells apart (for token_bound_cidrs); the first one is inside a role's CIDRs, the second outside.
     */
    cloudIdentity: z
      .object({
        simulatorUrl: baseUrl,
        simulatorToken: z.string().min(1),
        tenantId: z.string().min(1),
        mount: z.string().regex(/^[^/]+$/, 'a mount name such as cloudauth').optional(),
        clientAddresses: z.array(z.union([z.ipv4(), z.ipv6()])).length(2).optional(),
      })
      .strict()
      .optional(),
    cloudRoute: z
      .object({
        enabled: z.boolean().default(true).describe('false: the run never registers a plugin catalog entry, and the cloud-identity login rules SKIP.'),
        plugin: z.string().min(1).optional().describe("The plugin catalog's name of the external Azure auth plugin whose binary the run registers a copy of (default: the dialect's, azure)."),
        listenHost: z.string().min(1).default('127.0.0.1').describe("The address the simulator's proxy listens on (0.0.0.0 for a server on another host)."),
        listenPort: z.number().int().min(0).max(65535).default(0).describe("The port the simulator's proxy listens on (0: a free one)."),
        proxyUrl: baseUrl.optional().describe("The proxy's URL as the server reaches it, for the plugin's HTTPS_PROXY (default: http://<listenHost>:<port>)."),
        serverCaFile: z.string().min(1).optional().describe("Where the server reads the certificate of the simulator's authority, for the plugin's SSL_CERT_FILE (default: a file the run writes on this machine)."),
        caDir: z.string().min(1).optional().describe("A directory on this machine that keeps the simulator's authority (ca.pem, ca-key.pem) across runs, made on first use, so that a copy on the server stays valid (default: a new authority each run)."),
        clientAddresses: z
          .array(z.union([z.ipv4(), z.ipv6()]))
          .length(2)
          .optional()
          .describe('Two local source addresses the target tells apart, for the token_bound_cidrs rules: the first the one requests come from, the second another (default for a target at 127.0.0.1: 127.0.0.1 and 127.0.0.2).'),
      })
      .strict()
      .optional()
      .describe(
        "How a run lets a real Vault's or OpenBao's Azure auth plugin reach the cloud simulator: it registers a copy of the plugin under its run prefix with HTTPS_PROXY and SSL_CERT_FILE in the catalog entry's env, and removes it at the end (docs/cloud-identity-real-products.md). Needs the right to write sys/plugins/catalog.",
      ),
    oidcAltKey: z.string().min(1).optional().describe("The name of a signing key other than 'default' that exists on the target (the spec does not show how keys are made)."),
    maxRequestBytes: z.number().int().positive().default(32 * 1024 * 1024).describe("The listener's maximum request size in bytes (the spec's default is 32 MB)."),
    /**
     * How identity entities (with a client token each) are had: the spec does not show how they are
     * made. Either a control interface that creates them (the embedded reference has one), or a
     * list of entities made beforehand on a real target.
     */
    fixtures: z
      .object({
        controlUrl: baseUrl.optional(),
        controlToken: z.string().optional(),
        entities: z
          .array(
            z
              .object({
                id: z.string(),
                name: z.string(),
                token: z.string(),
                metadata: z.record(z.string(), z.string()).default({}),
                groups: z.array(z.object({ id: z.string(), name: z.string() }).strict()).default([]),
              })
              .strict(),
          )
          .default([]),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.capabilities.namespaces && t.namespaces.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['namespaces'], message: 'capabilities.namespaces needs at least one namespace path that exists on the target' });
    }
    if (t.capabilities.requestHeaderProxy && !t.requestHeaderProxyUrl) {
      ctx.addIssue({ code: 'custom', path: ['requestHeaderProxyUrl'], message: 'capabilities.requestHeaderProxy needs the URL of the proxy' });
    }
    if (t.capabilities.identityFixtures && !t.fixtures?.controlUrl && !t.fixtures?.entities.length) {
      ctx.addIssue({ code: 'custom', path: ['fixtures'], message: 'capabilities.identityFixtures needs fixtures.controlUrl or at least one fixtures.entities entry' });
    }
    if (t.capabilities.cloudIdentity && !t.cloudIdentity) {
      ctx.addIssue({ code: 'custom', path: ['cloudIdentity'], message: 'capabilities.cloudIdentity needs the simulator the auth method trusts (cloudIdentity.simulatorUrl, simulatorToken, tenantId)' });
    }
    if (t.cloudRoute && ['0.0.0.0', '::'].includes(t.cloudRoute.listenHost) && !t.cloudRoute.proxyUrl) {
      ctx.addIssue({ code: 'custom', path: ['cloudRoute', 'proxyUrl'], message: `cloudRoute.listenHost ${t.cloudRoute.listenHost} listens on every address: name the one the server reaches the proxy at (cloudRoute.proxyUrl)` });
    }
    if (t.cloudRoute?.serverCaFile && !t.cloudRoute.caDir) {
      ctx.addIssue({ code: 'custom', path: ['cloudRoute', 'serverCaFile'], message: "cloudRoute.serverCaFile names the server's copy of the simulator's authority, which only an authority kept across runs can match: name the directory that keeps it (cloudRoute.caDir)" });
    }
    if (t.capabilities.kvV2 && !t.kv.v2Mount) {
      ctx.addIssue({ code: 'custom', path: ['kv', 'v2Mount'], message: 'capabilities.kvV2 needs the mount path of the version 2 engine' });
    }
  });

const meshTarget = z
  .object({
    url: baseUrl.describe('Base URL of the service-mesh agent (Consul: http://127.0.0.1:8500).'),
    token: z.string().min(1, 'an ACL token with service:write is required').describe('ACL token. Do not write it here: set STACKPROOF_MESH_TOKEN.'),
    dialect: dialect.default('spec'),
    provisioner: z
      .enum(['auto', 'upstream', 'control', 'none'])
      .optional()
      .describe(
        "Who makes intentions, limited ACL tokens and CA rotations: `upstream` is Consul's own API (hashicorp dialect, a management token), `control` the reference's control listener, `none` nobody; `auto` (the default) takes upstream in the hashicorp dialect, else control when named.",
      ),
    rotateCa: z
      .boolean()
      .optional()
      .describe("The CA rules rotate the agent's CA (a new root, cross-signed by the old one); a rotation cannot be undone. false makes those rules SKIP, for an agent whose CA must stay as it is."),
    capabilities: z
      .object({
        namespaces: z.boolean().default(false).describe('Enterprise namespaces (X-Mesh-Namespace). Without it the namespace rules are SKIP.'),
        meshFixtures: z.boolean().default(false).describe('Intentions, limited ACL tokens and CA rotation can be had through `fixtures` (the spec does not show how).'),
      })
      .strict()
      .default({ namespaces: false, meshFixtures: false })
      .describe('What the target offers beyond the core API; a rule that needs a capability the target lacks is SKIP.'),
    fixtures: z
      .object({ controlUrl: baseUrl, controlToken: z.string().min(1) })
      .strict()
      .optional()
      .describe('A control interface that makes intentions and ACL tokens and rotates the CA (the embedded reference has one).'),
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.capabilities.meshFixtures && !t.fixtures) ctx.addIssue({ code: 'custom', path: ['fixtures'], message: 'capabilities.meshFixtures needs fixtures.controlUrl and fixtures.controlToken' });
  });

const schedulerTarget = z
  .object({
    url: baseUrl.describe('Base URL of the scheduler (Nomad: http://127.0.0.1:4646).'),
    token: z.string().min(1, 'a management ACL token is required').describe('Management ACL token. Do not write it here: set STACKPROOF_SCHEDULER_TOKEN.'),
    dialect: dialect.default('spec'),
    nodeId: z.string().optional().describe('Full node ID, for targets reached through a server where node_id is required.'),
    provisioner: z
      .enum(['auto', 'upstream', 'control', 'none'])
      .optional()
      .describe(
        "Who makes jobs, allocations, events, ACL tokens and namespaces: `upstream` is Nomad's own API (hashicorp dialect, a management token, the raw_exec driver on the node), `control` the reference's control listener (the same API under /v1/control/scheduler/nomad), `none` nobody; `auto` (the default) takes upstream in the hashicorp dialect, else control when named.",
      ),
    changeEligibility: z
      .boolean()
      .optional()
      .describe("Some event rules toggle the node's scheduling eligibility (and put it back at the end). false makes those rules SKIP, for a node whose eligibility must never change."),
    gcAll: z
      .boolean()
      .optional()
      .describe('scheduler.gc.all asks the node to collect every stopped allocation, also ones the run did not make. false makes that rule SKIP, for a node shared with allocations whose files must stay.'),
    capabilities: z
      .object({
        schedulerFixtures: z.boolean().default(false).describe('Events, allocations with known files and ACL tokens can be had through `fixtures` (the spec does not show how).'),
      })
      .strict()
      .default({ schedulerFixtures: false })
      .describe('What the target offers beyond the core API; a rule that needs a capability the target lacks is SKIP.'),
    fixtures: z
      .object({ controlUrl: baseUrl, controlToken: z.string().min(1) })
      .strict()
      .optional()
      .describe('A control interface that makes jobs, allocations, events and ACL tokens (the embedded reference has one).'),
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.capabilities.schedulerFixtures && !t.fixtures) ctx.addIssue({ code: 'custom', path: ['fixtures'], message: 'capabilities.schedulerFixtures needs fixtures.controlUrl and fixtures.controlToken' });
  });

export const targetsSchema = z
  .object({
    secrets: secretsTarget.optional().describe('The secrets service under test (spec 000; Vault in the hashicorp dialect).'),
    mesh: meshTarget.optional().describe('The service-mesh agent under test (spec 001; Consul in the hashicorp dialect).'),
    scheduler: schedulerTarget.optional().describe('The scheduler under test (spec 002; Nomad in the hashicorp dialect).'),
  })
  .strict();

export const configSchema = z
  .object({
    $schema: z.string().optional().describe('The JSON Schema editors check this file against, e.g. ./node_modules/stackproof/stackproof.schema.json.'),
    profile: z.enum(['default', 'strict']).default('default').describe('`default` checks only what the spec says; `strict` adds UPSTREAM rules.'),
    runs: z.number().int().positive().max(100_000).default(25).describe('Number of generated cases per property.'),
    seed: z.number().int().optional().describe('fast-check seed, to replay a run.'),
    path: z
      .string()
      .regex(/^\d+(:\d+)*$/, 'must look like 3:1:0')
      .optional()
      .describe('fast-check replay path, only meaningful with a seed and a single rule.'),
    systems: z.array(z.enum(SYSTEMS)).min(1).default([...SYSTEMS]).describe('The systems to check.'),
    rules: z.array(z.string().min(1)).default([]).describe('Rule id prefixes or globs (`secrets.core.*`). Empty means all.'),
    requestTimeoutMs: z.number().int().positive().max(600_000).default(10_000).describe('Deadline of one request to a target, in milliseconds.'),
    testTimeoutMs: z.number().int().positive().max(3_600_000).default(60_000).describe('Deadline of one rule, in milliseconds.'),
    timeScale: z
      .number()
      .min(1)
      .max(100)
      .default(1)
      .describe('Multiplies every bound the rules wait under for a product\'s signal (suites/kit/bounds.ts), the request deadline and the rule deadline: for slow targets or busy machines. Never shortens a time the spec gives.'),
    reportsDir: z.string().min(1).default('reports').describe('Where the reports are written.'),
    failOn: z.enum(['MUST', 'SHOULD', 'MAY']).default('MUST').describe('The lowest level whose FAIL or ERROR fails the run.'),
    waivers: z.string().min(1).optional().describe('A JSON file of expected failures: {waivers:[{rule, owner, reason, expires}]}.'),
    strictWaivers: z.boolean().default(false).describe('Expired waivers, and waivers of rules that pass, fail the run.'),
    referenceDialect: dialect.default('spec').describe('Dialect the embedded reference serves when no targets are configured.'),
    referenceBehavior: z
      .enum(REFERENCE_BEHAVIORS)
      .default('spec')
      .describe("How the embedded reference behaves: `spec`, or `upstream` (hashicorp dialect only), which also reproduces the spec deviations listed in the products' expectation files."),
    expect: z
      .array(z.enum(PRODUCTS))
      .default([])
      .describe('Products whose expectation files apply (expectations/<product>.json): a FAIL of a listed rule that matches the listed deviation is EXPECTED instead, and does not fail the run.'),
    strictExpectations: z.boolean().default(false).describe('An expected deviation that no longer happens fails the run (time to remove it from the file).'),
    maxSkipShare: z
      .number()
      .min(0, 'must be a share between 0 and 1')
      .max(1, 'must be a share between 0 and 1')
      .optional()
      .describe('The largest share (0..1) of rules that may get no verdict (SKIP) before the run fails; UPSTREAM rules the default profile does not run are not counted. Unset: SKIPs never fail the run.'),
    targets: targetsSchema.default({}).describe('The systems under test. None: the embedded reference is started, and needs no configuration.'),
    load: z
      .object({
        smoke: z.boolean().default(true).describe('Run the short load smoke after the suites (--no-load-smoke turns it off).'),
      })
      .strict()
      .default({ smoke: true }),
  })
  .strict();

export type StackproofConfig = z.infer<typeof configSchema>;
export type Targets = z.infer<typeof targetsSchema>;
export type SecretsTarget = z.infer<typeof secretsTarget>;
export type MeshTarget = z.infer<typeof meshTarget>;
export type SchedulerTarget = z.infer<typeof schedulerTarget>;
