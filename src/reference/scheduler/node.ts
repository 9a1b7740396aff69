import { cpus, hostname, totalmem } from 'node:os';

/** The node's record, the payload of the node topics, with the documented fields. */
export function nodeRecord(id: string, meta: Record<string, string>, state: { drain: boolean; eligibility: string; index: number }, drivers: { rawExec: boolean } = { rawExec: true }): Record<string, unknown> {
  const cpuShares = cpus().length * 1000;
  const memoryMB = Math.floor(totalmem() / 1024 / 1024);
  const network = { Mode: 'host', Device: 'lo', CIDR: '127.0.0.1/32', IP: '127.0.0.1', MBits: 1000, DNS: null, ReservedPorts: null, DynamicPorts: null };
  return {
    ID: id,
    Datacenter: 'dc1',
    Name: hostname(),
    HTTPAddr: '127.0.0.1:4646',
    TLSEnabled: false,
    Attributes: { 'kernel.name': process.platform, 'cpu.numcores': String(cpus().length), 'unique.hostname': hostname() },
    NodeResources: { Cpu: { CpuShares: cpuShares }, Memory: { MemoryMB: memoryMB }, Disk: { DiskMB: 10_240 }, Networks: [network], NodeNetworks: [], Devices: null },
    ReservedResources: { Cpu: { CpuShares: 0 }, Memory: { MemoryMB: 0 }, Disk: { DiskMB: 0 }, Networks: { ReservedHostPorts: '' } },
    Resources: { CPU: cpuShares, MemoryMB: memoryMB, DiskMB: 10_240, IOPS: 0, Networks: [network], Devices: null },
    Reserved: { CPU: 0, MemoryMB: 0, DiskMB: 0, IOPS: 0, Networks: null, Devices: null },
    Links: {},
    Meta: meta,
    NodeClass: '',
    ComputedClass: 'v1:stackproof',
    Drain: state.drain,
    DrainStrategy: state.drain ? { Deadline: 3_600_000_000_000, IgnoreSystemJobs: false, ForceDeadline: '0001-01-01T00:00:00Z' } : null,
    SchedulingEligibility: state.eligibility,
    Status: 'ready',
    StatusDescription: '',
    StatusUpdatedAt: Math.floor(Date.now() / 1000),
    Events: [{ Message: 'Node registered', Subsystem: 'Cluster', Details: null, Timestamp: new Date().toISOString(), CreateIndex: 1 }],
    // raw_exec as `nomad agent -dev` enables it, the only driver the reference runs. Without it
    // (serve --no-raw-exec) it reads as on a Nomad whose raw_exec plugin is not enabled
    // (drivers/rawexec/driver.go buildFingerprint: HealthStateUndetected, "disabled").
    Drivers: {
      raw_exec: drivers.rawExec
        ? { Attributes: { 'driver.raw_exec': 'true' }, Detected: true, Healthy: true, HealthDescription: 'Healthy', UpdateTime: new Date().toISOString() }
        : { Attributes: null, Detected: false, Healthy: false, HealthDescription: 'disabled', UpdateTime: new Date().toISOString() },
    },
    CSIControllerPlugins: null,
    CSINodePlugins: null,
    HostVolumes: null,
    CreateIndex: 1,
    ModifyIndex: state.index,
  };
}
