/**
 * What Nomad does with PUT /v1/jobs before it accepts a job, as one pure function. The path, each
 * step citing where Nomad does it (read at v1.9.7; unchanged at v1.10.5, v1.11.0 and main aa026cc99c
 * unless noted):
 *
 *  1. command/agent/http.go decodeBody -> api.JobRegisterRequest (Go encoding/json); a type error is
 *     CodedError(400, err.Error()) in command/agent/job_endpoint.go jobUpdate.
 *  2. jobUpdate: "Job must be specified", "Job ID hasn't been provided", system groups with scaling,
 *     EvalPriority range: all CodedError(400, ...).
 *  3. apiJobAndRequestToStructs: namespaceForJob (query > body Namespace > Job.Namespace > "default"),
 *     regionForJob (body Region > Job.Region; "" or "global" is the agent's region), ApiJobToStructJob
 *     with the api Canonicalize defaults.
 *  4. nomad/job_endpoint.go Job.Register: the RPC is forwarded to the job's region first (a region the
 *     agent has no path to is structs.ErrNoRegionPath "No path to region"); then the admission mutators
 *     (jobCanonicalizer, jobNodePoolMutatingHook) and validators (jobValidate, memoryOversubscriptionValidate)
 *     (nomad/job_endpoint_hooks.go admissionControllers). Validator errors are gathered with
 *     multierror.Append, which flattens Job.Validate's list into one.
 *  5. The RPC's error reaches the HTTP layer as a plain error (the in-memory RPC codec keeps only its
 *     text), which is neither an HTTPCodedError nor an "RPC Error:: <code>," coded error, so
 *     command/agent/http.go wrap answers it with status 500 and the error text as the body.
 */
import { decodeJobRegisterRequest } from './api-job.ts';
import type { CanonicalJob } from './canonical-job.ts';
import { canonicalizeJob } from './canonicalize.ts';
import { formatList } from './multierror.ts';
import { jobValidate, memoryOversubscriptionWarnings } from './validate.ts';
import { NOMAD_VERSION } from '../nomad-version.ts';

export type { CanonicalJob } from './canonical-job.ts';

export type AdmitResult = { ok: true; job: CanonicalJob; warnings: string[] } | { ok: false; status: number; message: string };

/**
 * `body` is the parsed JSON request body of PUT /v1/jobs (with its `Job` field); `namespaceParam` the
 * ?namespace= query value or null; `region` the agent's region ('global'); `version` the Nomad release
 * to answer as (default the one the reference claims, nomad-version.ts): v1.11.0 added checks.
 */
export function admitJob(body: unknown, options: { namespaceParam: string | null; region: string; version?: string }): AdmitResult {
  // command/agent/http.go decodeBody: no body at all.
  if (body === undefined) return { ok: false, status: 400, message: 'Request body is empty' };
  const decoded = decodeJobRegisterRequest(body);
  if (!decoded.ok) return { ok: false, status: 400, message: decoded.message };
  const req = decoded.request;
  const apiJob = req.Job;
  // command/agent/job_endpoint.go jobUpdate
  if (apiJob === undefined) return { ok: false, status: 400, message: 'Job must be specified' };
  if (apiJob.ID === undefined) return { ok: false, status: 400, message: "Job ID hasn't been provided" };
  if (apiJob.Type === 'system') {
    for (const tg of apiJob.TaskGroups ?? []) {
      if (tg?.Scaling !== undefined) {
        return { ok: false, status: 400, message: 'Task groups with job type system do not support scaling blocks' };
      }
    }
  }
  // jobUpdate -> validateEvalPriorityOpt (only for a non-zero EvalPriority)
  if (req.EvalPriority !== undefined && req.EvalPriority !== 0 && (req.EvalPriority < 1 || req.EvalPriority > 100)) {
    return { ok: false, status: 400, message: 'Eval priority must be between 1 and 100 inclusively' };
  }

  // command/agent/job_endpoint.go namespaceForJob
  const namespace = options.namespaceParam || req.Namespace || apiJob.Namespace || 'default';
  // command/agent/job_endpoint.go regionForJob (no ?region= in this entry point; Multiregion not ported)
  let region = req.Region || (apiJob.Region ?? '');
  if (region === '' || region === 'global') region = options.region;
  // nomad/rpc.go forwardRegion -> findRegionServer: structs.ErrNoRegionPath, a plain error -> 500.
  if (region !== options.region) return { ok: false, status: 500, message: 'No path to region' };

  const version = options.version ?? NOMAD_VERSION;
  const { job, extras } = canonicalizeJob(apiJob, namespace, region, version);

  // nomad/job_endpoint_hooks.go admissionValidators: jobValidate's errors, flattened into one multierror.
  const errors = jobValidate(job, extras, version);
  if (errors.length > 0) return { ok: false, status: 500, message: formatList(errors) };
  return { ok: true, job, warnings: memoryOversubscriptionWarnings(job) };
}
