import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realK6 } from './support/k6-binary.ts';
import { expandEnv, manifest, testRun } from './support/k8s-manifests.ts';
import { ROOT } from './support/run-cli.ts';

/**
 * Issue 39: the manifests in load/k8s, checked against k6-operator's TestRun CRD (vendored in
 * test/fixtures/k6-operator-crd with its version and source) in strict mode, and for what makes a distributed run
 * collectable: one file a runner, a volume they can write, a reader for completed pods, a merge glob
 * that matches, the total rate, runners on separate nodes, an initializer that can evaluate the script.
 */
const CRDS = ['v1.3.1', 'v1.6.0'];
const TESTRUNS = ['testrun-files.yaml', 'testrun-prometheus.yaml'];

type Schema = Record<string, unknown>;

/**
 * The CRD's schema as `kubectl apply --validate=strict` applies it: a field an object does not define
 * is an error unless the object keeps unknown fields; int-or-string is either.
 */
function strict(schema: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') out[key] = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, strict(v)]));
    else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) out[key] = strict(value as Schema);
    else if (!key.startsWith('x-kubernetes-') && key !== 'format') out[key] = value;
  }
  if (schema['x-kubernetes-int-or-string']) return { anyOf: [{ type: 'integer' }, { type: 'string' }] };
  if (schema.type === 'object' && schema.properties && schema.additionalProperties === undefined && !schema['x-kubernetes-preserve-unknown-fields']) out.additionalProperties = false;
  return out;
}

function testRunSchema(version: string): Schema {
  const crd = parse(readFileSync(join(ROOT, 'test', 'fixtures', 'k6-operator-crd', `k6.io_testruns.${version}.yaml`), 'utf8')) as {
    spec: { versions: { name: string; schema: { openAPIV3Schema: Schema } }[] };
  };
  const v1alpha1 = crd.spec.versions.find((v) => v.name === 'v1alpha1');
  if (!v1alpha1) throw new Error(`${version}: no v1alpha1 in the CRD`);
  return strict(v1alpha1.schema.openAPIV3Schema);
}

describe("the TestRuns against k6-operator's CRD, strict", () => {
  for (const version of CRDS) {
    it(`validate against the CRD of k6-operator ${version}, and the validator refuses a field the CRD lacks`, () => {
      const validate = new Ajv({ strict: false, allErrors: true }).compile(testRunSchema(version));
      for (const file of TESTRUNS) {
        const doc = manifest(file).find((d) => d.kind === 'TestRun')!;
        expect(validate(doc) ? [] : validate.errors, `${file} against ${version}`).toEqual([]);
        // The hard side: a misspelt field (as `seperate`) is refused, not pruned silently.
        const typo = structuredClone(doc) as { spec: Record<string, unknown> };
        typo.spec.seperate = true;
        expect(validate(typo), `${file} with spec.seperate`).toBe(false);
      }
    });
  }
});

describe('the file route', () => {
  const run = testRun('testrun-files.yaml');
  const env = run.spec.runner.env;

  it('gives every runner a file of its own, on a volume it mounts, that the documented merge glob matches', () => {
    const podName = env.findIndex((v) => v.name === 'POD_NAME');
    const results = env.findIndex((v) => v.name === 'SP_RESULTS');
    expect(env[podName]!.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    // Kubernetes expands $(POD_NAME) only from a variable defined before it.
    expect(podName).toBeLessThan(results);
    const files = ['stackproof-mesh-authorize-1-x7k2p', 'stackproof-mesh-authorize-2-q9m4d'].map((pod) => expandEnv(env, { name: pod }, { 'stackproof-mesh-token/token': 't' }).SP_RESULTS!);
    expect(new Set(files).size).toBe(2);
    for (const file of files) {
      const mount = run.spec.runner.volumeMounts!.find((m) => file.startsWith(`${m.mountPath}/`));
      expect(mount, `${file} is on a mounted volume`).toBeDefined();
      const volume = run.spec.runner.volumes!.find((v) => v.name === mount!.name);
      expect(volume?.persistentVolumeClaim?.claimName).toBe('stackproof-results');
      // docs/distributed-load.md copies /results to ./results and merges results/results.k6.mesh-authorize.*.json.
      expect(`results/${file.slice(mount!.mountPath.length + 1)}`).toMatch(/^results\/results\.k6\.mesh-authorize\.[^/]*\.json$/);
    }
    const docs = readFileSync(join(ROOT, 'docs', 'distributed-load.md'), 'utf8');
    expect(docs).toContain('npx stackproof merge results/results.k6.mesh-authorize.*.json');
  });

  it('has a ReadWriteMany claim and a reader pod that mounts it where the runners write, to copy from after they completed', () => {
    const [claim, reader] = manifest('results-volume.yaml') as [
      { kind: string; metadata: { name: string }; spec: { accessModes: string[] } },
      { kind: string; spec: { containers: { volumeMounts: { name: string; mountPath: string }[] }[]; volumes: { name: string; persistentVolumeClaim: { claimName: string } }[] } },
    ];
    expect(claim.kind).toBe('PersistentVolumeClaim');
    expect(claim.spec.accessModes).toEqual(['ReadWriteMany']);
    expect(reader.kind).toBe('Pod');
    const mount = reader.spec.containers[0]!.volumeMounts[0]!;
    expect(mount.mountPath).toBe(run.spec.runner.volumeMounts![0]!.mountPath);
    expect(reader.spec.volumes.find((v) => v.name === mount.name)?.persistentVolumeClaim.claimName).toBe(claim.metadata.name);
  });
});

describe('both routes', () => {
  for (const file of TESTRUNS) {
    it(`${file}: runners on separate nodes, SP_RATE the whole run's rate, no runner judging its share, a Secret for the token`, () => {
      const { spec } = testRun(file);
      expect(spec.separate).toBe(true);
      expect(spec.parallelism).toBeGreaterThan(1);
      const byName = Object.fromEntries(spec.runner.env.map((v) => [v.name, v]));
      expect(byName.SP_THRESHOLDS?.value).toBe('none');
      expect(byName.SP_MESH_TOKEN?.valueFrom?.secretKeyRef).toEqual({ name: 'stackproof-mesh-token', key: 'token' });
      const text = readFileSync(join(ROOT, 'load', 'k8s', file), 'utf8');
      expect(text).toMatch(/# The whole run's rate/);
      expect(text).toContain('kubectl create secret generic stackproof-mesh-token');
      expect(text).toContain('v1.3.1 or later');
    });
  }

  it('the streaming route sends through the remote-write output, latencies as native histograms', () => {
    const { spec } = testRun('testrun-prometheus.yaml');
    expect(spec.arguments?.split(/\s+/)).toEqual(expect.arrayContaining(['-o', 'experimental-prometheus-rw']));
    const byName = Object.fromEntries(spec.runner.env.map((v) => [v.name, v.value]));
    expect(byName.K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM).toBe('true');
    expect(byName.K6_PROMETHEUS_RW_SERVER_URL).toMatch(/\/api\/v1\/write$/);
  });
});

const k6 = realK6();
if (!k6) console.log('test/k8s-manifests.test.ts: the initializer replay is NOT RUN - no k6 binary ($K6, k6 on PATH, or ../shared/bin/k6)');

describe.skipIf(!k6)('the initializer, replayed with a real k6', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stackproof-k8s-init-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeAll(async () => {
    const { buildK6Bundles } = (await import(join(ROOT, 'load', 'build-k6.mjs'))) as { buildK6Bundles: () => Promise<string[]> };
    await buildK6Bundles();
  });

  for (const file of TESTRUNS) {
    it(`${file}: k6 archive and k6 inspect succeed with only the initializer's variables, as -e flags (k6-operator v1.3.1+)`, () => {
      const { spec } = testRun(file);
      // pkg/resources/jobs/initializer.go: only .env, each as ` -e NAME=VALUE`, values only.
      const flags = (spec.initializer?.env ?? []).flatMap((v) => ['-e', `${v.name}=${v.value ?? ''}`]);
      const script = join(ROOT, 'load', 'dist', spec.script.configMap.file);
      const archive = join(dir, `${file}.tar`);
      // No SP_ variable from this process: the initializer pod has only what the TestRun gives it.
      const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SP_') && !k.startsWith('K6_')));
      const archived = spawnSync(k6!, ['archive', script, ...flags, '-O', archive], { env: clean, encoding: 'utf8', timeout: 60_000 });
      expect(archived.status, archived.stderr).toBe(0);
      expect(archived.stderr).not.toMatch(/level=error/);
      const inspected = spawnSync(k6!, ['inspect', '--execution-requirements', archive], { env: clean, encoding: 'utf8', timeout: 60_000 });
      expect(inspected.status, inspected.stderr).toBe(0);
      expect(inspected.stderr).not.toMatch(/level=error/);
      // Without them, it fails: the check has teeth.
      const bare = spawnSync(k6!, ['archive', script, '-O', join(dir, 'bare.tar')], { env: clean, encoding: 'utf8', timeout: 60_000 });
      expect(bare.status).not.toBe(0);
      expect(bare.stderr).toMatch(/SP_\w+ is not set/);
    }, 120_000);
  }
});
