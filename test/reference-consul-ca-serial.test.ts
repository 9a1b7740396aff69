import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectFor } from '../src/config/dialects.ts';
import { FaultSet } from '../src/reference/faults/types.ts';
import { startHttpServer, type RunningServer } from '../src/reference/http/server.ts';
import { CertificateAuthority } from '../src/reference/mesh/certificate-authority.ts';
import { formatGoDuration, parseGoDurationNs } from '../src/reference/mesh/go-duration.ts';
import { colonHexSerial } from '../src/reference/mesh/serial-number.ts';
import { MeshService } from '../src/reference/mesh/service.ts';

describe('serial numbers as Consul writes them (connect.HexString of the big-endian bytes)', () => {
  it('keeps the leading zero of a hex form with an odd number of digits', () => {
    expect(colonHexSerial(0x0an)).toBe('0a');
    expect(colonHexSerial(0xffn)).toBe('ff');
    expect(colonHexSerial(0x100n)).toBe('01:00');
    expect(colonHexSerial(0xffffn)).toBe('ff:ff');
    expect(colonHexSerial(0x10000n)).toBe('01:00:00');
    expect(colonHexSerial(0x1000000n)).toBe('01:00:00:00');
    expect(colonHexSerial(2n ** 64n - 1n)).toBe('ff:ff:ff:ff:ff:ff:ff:ff');
  });
});

describe("Go durations as Consul's CA configuration reads and prints them", () => {
  it('parses like time.ParseDuration and prints like Duration.String', () => {
    const ns = (text: string) => {
      const parsed = parseGoDurationNs(text);
      return parsed.ok ? parsed.ns : parsed.message;
    };
    expect(ns('72h')).toBe(72n * 3_600_000_000_000n);
    expect(ns('1.5h')).toBe(5_400_000_000_000n);
    expect(ns('1m30s')).toBe(90_000_000_000n);
    expect(ns('-2s')).toBe(-2_000_000_000n);
    expect(ns('0')).toBe(0n);
    expect(ns('10')).toBe('time: missing unit in duration "10"');
    expect(ns('1d')).toBe('time: unknown unit "d" in duration "1d"');
    expect(ns('soon')).toBe('time: invalid duration "soon"');
    expect(ns('')).toBe('time: invalid duration ""');
    expect(formatGoDuration(3_600_000_000_000n)).toBe('1h0m0s');
    expect(formatGoDuration(8760n * 3_600_000_000_000n)).toBe('8760h0m0s');
    expect(formatGoDuration(90_000_000_000n)).toBe('1m30s');
    expect(formatGoDuration(1_500_000_000n)).toBe('1.5s');
    expect(formatGoDuration(500_000_000n)).toBe('500ms');
    expect(formatGoDuration(0n)).toBe('0s');
  });
});

/**
 * Leaves issued across the boundary where the serial's hex form gains a digit (0xffff → 0x10000):
 * the SerialNumber string must name the certificate's real serial on both sides.
 */
describe('mesh reference: leaf serials across 0xffff', () => {
  let server: RunningServer;
  const token = 'management-token';
  let index = 10;
  beforeAll(async () => {
    // The CA's serial counter set near the boundary: the root takes 0xfffc, the leaves what follows.
    const ca = await CertificateAuthority.create('11111111-2222-3333-4444-555555555555.consul', () => ++index, { firstSerial: 0xfffcn });
    const mesh = new MeshService({
      dialect: dialectFor('hashicorp'),
      behavior: 'upstream',
      namespaces: false,
      faults: new FaultSet(),
      ca,
      managementToken: token,
      datacenter: 'dc1',
      nextIndex: () => ++index,
    });
    server = await startHttpServer('mesh', (req, res, m) => mesh.handle(req, res, m), (_req, res, err) => res.writeHead(500).end(String(err)));
  });
  afterAll(async () => server.close());

  it('round-trips every leaf serial string to the certificate serial, 0x10000 included', async () => {
    const seen: bigint[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${server.url}/v1/agent/connect/ca/leaf/web-${i}`, { headers: { 'X-Consul-Token': token } });
      expect(res.status).toBe(200);
      const leaf = (await res.json()) as { SerialNumber: string; CertPEM: string };
      const real = BigInt(`0x${new X509Certificate(leaf.CertPEM).serialNumber}`);
      expect(leaf.SerialNumber, `leaf ${i}`).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2})*$/);
      expect(BigInt(`0x${leaf.SerialNumber.replace(/:/g, '')}`), `${leaf.SerialNumber} names the certificate's serial ${real.toString(16)}`).toBe(real);
      seen.push(real);
    }
    expect(seen).toEqual([0xfffdn, 0xfffen, 0xffffn, 0x10000n, 0x10001n]);
    const boundary = await fetch(`${server.url}/v1/agent/connect/ca/leaf/web-3`, { headers: { 'X-Consul-Token': token } });
    expect(((await boundary.json()) as { SerialNumber: string }).SerialNumber).toBe('01:00:00');
  });
});
