import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from './run-cli.ts';

/** The documents of a manifest under load/k8s, parsed. */
export function manifest(name: string): Record<string, unknown>[] {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'load', 'k8s', name), 'utf8'));
  return docs.map((d) => {
    if (d.errors.length) throw new Error(`${name}: ${d.errors[0]!.message}`);
    return d.toJS() as Record<string, unknown>;
  });
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } };
}

export interface TestRunSpec {
  parallelism: number;
  separate?: boolean;
  arguments?: string;
  script: { configMap: { name: string; file: string } };
  initializer?: { env?: EnvVar[] };
  runner: { env: EnvVar[]; volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[]; volumeMounts?: { name: string; mountPath: string }[] };
}

export function testRun(name: string): { metadata: { name: string }; spec: TestRunSpec } {
  const doc = manifest(name).find((d) => d.kind === 'TestRun');
  if (!doc) throw new Error(`${name}: no TestRun`);
  return doc as unknown as { metadata: { name: string }; spec: TestRunSpec };
}

/**
 * A runner's environment as Kubernetes makes it: `$(NAME)` is replaced by an earlier variable's
 * value (a later one, or an unknown one, is left as written), fieldRef metadata.name is the pod's name,
 * a secret's value is given by `secrets`.
 */
export function expandEnv(env: EnvVar[], pod: { name: string }, secrets: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of env) {
    let value: string;
    if (v.valueFrom?.fieldRef) {
      if (v.valueFrom.fieldRef.fieldPath !== 'metadata.name') throw new Error(`${v.name}: fieldRef ${v.valueFrom.fieldRef.fieldPath} is not replayed here`);
      value = pod.name;
    } else if (v.valueFrom?.secretKeyRef) {
      const key = `${v.valueFrom.secretKeyRef.name}/${v.valueFrom.secretKeyRef.key}`;
      if (!(key in secrets)) throw new Error(`${v.name}: no value given for secret ${key}`);
      value = secrets[key]!;
    } else value = (v.value ?? '').replace(/\$\((\w+)\)/g, (whole, name: string) => out[name] ?? whole);
    out[v.name] = value;
  }
  return out;
}

/**
 * The execution-segment flags k6-operator gives runner `index` (1-based) of `total`
 * (pkg/segmentation/segmentation.go, NewCommandFragments): the segment index-1/total:index/total
 * and the sequence 0,1/total,…,1.
 */
export function operatorSegmentFlags(index: number, total: number): string[] {
  const part = (i: number) => (i === 0 ? '0' : i === total ? '1' : `${i}/${total}`);
  const sequence = ['0', ...Array.from({ length: total - 1 }, (_, i) => `${i + 1}/${total}`), '1'].join(',');
  return [`--execution-segment=${part(index - 1)}:${part(index)}`, `--execution-segment-sequence=${sequence}`];
}

/**
 * What k6-operator appends to every runner's `k6 run` (pkg/resources/jobs/runner.go, NewRunnerJob):
 * its instance tag and the test run's name tag, after the script.
 */
export function operatorRunnerTags(index: number, testrun: string): string[] {
  return ['--tag', `instance_id=${index}`, '--tag', `testrun_name=${testrun}`];
}
