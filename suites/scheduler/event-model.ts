import { z } from 'zod';

/** What a witness subscription lists: every topic the run's actions produce, each named explicitly. */
export const WITNESS_TOPICS = ['Job', 'Evaluation', 'Allocation', 'Deployment', 'Node', 'ACLToken', 'ACLPolicy'] as const;

/** Spec 002, Events: "Event types: ...". */
export const SPEC_EVENT_TYPES: readonly string[] = [
  'ACLTokenUpserted',
  'ACLTokenDeleted',
  'ACLPolicyUpserted',
  'ACLPolicyDeleted',
  'AllocationCreated',
  'AllocationUpdated',
  'AllocationUpdateDesiredStatus',
  'DeploymentStatusUpdate',
  'DeploymentPromotion',
  'DeploymentAllocHealth',
  'EvaluationUpdated',
  'JobRegistered',
  'JobDeregistered',
  'JobBatchDeregistered',
  'NodeRegistration',
  'NodeDeregistration',
  'NodeEligibility',
  'NodeDrain',
  'NodeEvent',
  'PlanResult',
];

/** Spec 002, Events: "Topics and the object they output" (the Payload key is the object kind). */
export const TOPIC_OUTPUT: Record<string, string> = {
  ACLToken: 'ACLToken',
  ACLPolicy: 'ACLPolicy',
  Allocation: 'Allocation',
  Job: 'Job',
  Evaluation: 'Evaluation',
  Deployment: 'Deployment',
  Node: 'Node',
  NodeDrain: 'Node',
};

/** A field the spec names without a type: it must be there, whatever its value. */
const present = z.unknown().refine((v) => v !== undefined, { message: 'Required' });
const int = z.number().int();

/**
 * Spec 002's network entries: Mode, Device, CIDR, IP (strings), MBits (integer). Checked with their
 * types where present: Nomad encodes NetworkResource with codec omitempty (nomad/structs/structs.go
 * NetworkResource, `_struct bool codec:",omitempty"`), so an empty field may be left out.
 */
const networkEntry = z.object({ Mode: z.string().optional(), Device: z.string().optional(), CIDR: z.string().optional(), IP: z.string().optional(), MBits: int.optional() }).passthrough();

/** Spec 002, Resources and their fields > Node (payload of node topics): every field, with the types it gives. */
export const nodePayloadSchema = z.object({
  ID: z.string(),
  Datacenter: z.string(),
  Name: z.string(),
  HTTPAddr: z.string(),
  TLSEnabled: z.boolean(),
  Attributes: z.record(z.string(), z.string()),
  NodeResources: z.object({
    Cpu: z.object({ CpuShares: present }).passthrough(),
    Memory: z.object({ MemoryMB: present }).passthrough(),
    Disk: z.object({ DiskMB: present }).passthrough(),
    Networks: z.array(networkEntry),
    NodeNetworks: z.array(z.unknown()),
    Devices: present,
  }).passthrough(),
  ReservedResources: present,
  Resources: z.object({ CPU: present, MemoryMB: present, DiskMB: present, IOPS: present, Networks: present, Devices: present }).passthrough(),
  Reserved: present,
  Links: present,
  Meta: z.record(z.string(), z.string()),
  NodeClass: present,
  ComputedClass: present,
  Drain: z.boolean(),
  DrainStrategy: z.object({}).passthrough().nullable(),
  SchedulingEligibility: z.string(),
  Status: z.string(),
  StatusDescription: z.string(),
  StatusUpdatedAt: int,
  Events: z.array(z.object({ Message: present, Subsystem: present, Details: present, Timestamp: present, CreateIndex: present }).passthrough()),
  Drivers: z.record(z.string(), z.object({ Attributes: present, Detected: z.boolean(), Healthy: z.boolean(), HealthDescription: present, UpdateTime: present }).passthrough()),
  CSIControllerPlugins: present,
  CSINodePlugins: present,
  HostVolumes: present,
  CreateIndex: int,
  ModifyIndex: int,
}).passthrough();
