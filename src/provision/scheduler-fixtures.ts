import type { FixtureTask } from '../client/fixture-job.ts';

/** A change the scheduler made: the index of the event frame it produced (the raft index on Nomad). */
export interface ActionResult {
  index: number;
}

/** What an ACL token may do (spec 002's permissions); made as a policy plus a token under the run prefix. */
export interface TokenGrants {
  nodeRead?: boolean;
  nodeWrite?: boolean;
  /** node { policy = "deny" } (where neither nodeRead nor nodeWrite is set). */
  nodeDeny?: boolean;
  /** Namespace → capabilities in it. */
  namespaces?: Record<string, ('read-job' | 'read-fs' | 'read-logs' | 'submit-job')[]>;
  /**
   * Namespace blocks beyond `namespaces`, in the order given: a name or a glob ('*', 'team-*'), a
   * shorthand `policy` and/or capabilities ('deny' among them, and Nomad's capabilities spec 002
   * does not name, such as alloc-lifecycle). Several blocks may name one pattern.
   */
  namespaceBlocks?: { pattern: string; policy?: 'deny' | 'read' | 'write'; capabilities?: string[] }[];
}

export interface AllocationFixture {
  /** The allocation's full ID. */
  id: string;
  jobId: string;
  namespace: string;
}

/**
 * What the scheduler suites ask for, made by real actions through Nomad's own API: on a real Nomad
 * (hashicorp dialect, a management token) or on the reference (its hashicorp dialect serves the same
 * API; in the spec dialect the control listener serves it under /v1/control/scheduler/nomad). The
 * suites never know which. Every name passed in must start with the run prefix.
 */
export interface SchedulerFixtures {
  /** The full ID of the node the allocations run on (the one the client endpoints answer for). */
  readonly nodeId: string;
  /**
   * Registers a fixture job (buildFixtureJob, kind allocation) and resolves with its allocation once
   * every task has started (`running`) or the allocation has completed (`complete`).
   */
  allocation(jobId: string, tasks: FixtureTask[], until: 'running' | 'complete', namespace?: string): Promise<AllocationFixture>;
  /**
   * Registers (or registers again, with this meta) an unplaceable job: a Job event with Key = jobId in
   * its namespace, and an Evaluation event with jobId among its FilterKeys, in the same frame.
   */
  registerJob(jobId: string, namespace?: string, meta?: Record<string, string>): Promise<ActionResult>;
  /**
   * Sends SIGUSR1 to a running fixture task: a task whose ticks await a signal (FixtureTask.ticks
   * awaitSignal) starts them then, so a rule can open a stream before the file it streams changes.
   */
  startTicks(allocation: AllocationFixture, task: string): Promise<void>;
  /** Deregisters a job without purging it (its Job event is the deregistration). */
  stopJob(jobId: string, namespace?: string): Promise<ActionResult>;
  /** Whether the node is eligible for scheduling now. */
  nodeEligible(): Promise<boolean>;
  /**
   * Changes the node's scheduling eligibility: a Node event with Key = nodeId. The node must not
   * have that eligibility already: Nomad then writes nothing and publishes no event, and this
   * rejects. Rules toggle it away from what nodeEligible() says and back, one rule at a time.
   */
  setEligibility(eligible: boolean): Promise<ActionResult>;
  /** Creates or updates an ACL policy: an ACLPolicy event with Key = name. */
  policy(name: string, grants?: TokenGrants): Promise<ActionResult>;
  deletePolicy(name: string): Promise<ActionResult>;
  /** A client token with these grants (its own policy); the ACLToken event's Key is the accessor. */
  token(name: string, grants: TokenGrants): Promise<{ secret: string; accessor: string; index: number }>;
  /** A client token of several policies, `<name>-p<i>` each, listed on the token in this order. */
  tokenWithPolicies(name: string, policies: TokenGrants[]): Promise<{ secret: string; accessor: string; index: number }>;
  deleteToken(accessor: string): Promise<ActionResult>;
  /** Creates a namespace (before anything is registered in it). */
  namespace(name: string): Promise<void>;
}
