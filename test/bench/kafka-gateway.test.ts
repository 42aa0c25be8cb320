// bench/kafka-gateway.ts's model: the deployments are the construct's, each mode bills what it
// deploys, N tasks split the requests (N times the intake objects), a window touches the distinct
// partitions of its requests, and the section's verdicts follow its own table.
import { describe, expect, it } from 'vitest';
import { modelCost } from '../../bench/cost-model.js';
import {
  DEFAULT_DEPLOYMENT,
  GATEWAY_PRICES,
  HOURS_PER_MONTH,
  type KafkaGatewayBenchResult,
  SMALLEST_DEPLOYMENT,
  accessCost,
  crossAzPerGb,
  gatewayIngestPerGb,
  kafkaGatewaySection,
  leastLingerMeeting,
  sizedDeployment,
} from '../../bench/kafka-gateway.js';
import { KAFKA_GATEWAY_DEFAULTS } from '../../infra/sluice-kafka-gateway.js';
import { COUNTED } from './counted.js';

const GB_PER_HOUR_AT_1_MBPS = 3600 / 1024;

describe('gateway deployments and modes', () => {
  it('models the construct default and the smallest task', () => {
    expect(DEFAULT_DEPLOYMENT).toMatchObject({ tasks: KAFKA_GATEWAY_DEFAULTS.desiredCount, vcpu: KAFKA_GATEWAY_DEFAULTS.cpu / 1024, gb: KAFKA_GATEWAY_DEFAULTS.memoryLimitMiB / 1024 });
    expect(SMALLEST_DEPLOYMENT).toMatchObject({ tasks: 1, vcpu: 0.25, gb: 0.5 });
  });

  it('bills the NLB per hour and per GB, the direct mode its zone, instances and secret per month', () => {
    expect(accessCost('nlb', 3)).toEqual({ perHour: GATEWAY_PRICES.nlbHour, perGb: GATEWAY_PRICES.nlcuHour });
    expect(accessCost('direct', 1).perHour).toBeCloseTo((0.5 + 0.1 + 0.4) / 730, 12);
    expect(accessCost('direct', 3).perHour).toBeCloseTo((0.5 + 0.3 + 0.4) / HOURS_PER_MONTH, 12);
    expect(accessCost('direct', 3).perGb).toBe(0);
    expect(crossAzPerGb()).toBeCloseTo(0.02, 12);
  });

  it('adds the tasks and the access to the storage requests', () => {
    const direct = gatewayIngestPerGb(COUNTED, { mode: 'direct', deployment: SMALLEST_DEPLOYMENT, lingerMs: 25 });
    const nlb = gatewayIngestPerGb(COUNTED, { mode: 'nlb', deployment: SMALLEST_DEPLOYMENT, lingerMs: 25 });
    expect(direct.tasks).toBeCloseTo((0.25 * GATEWAY_PRICES.fargateVcpuHour + 0.5 * GATEWAY_PRICES.fargateGbHour) / GB_PER_HOUR_AT_1_MBPS, 12);
    expect(direct.access).toBeCloseTo(accessCost('direct', 1).perHour / GB_PER_HOUR_AT_1_MBPS, 12);
    expect(nlb.access).toBeCloseTo(GATEWAY_PRICES.nlbHour / GB_PER_HOUR_AT_1_MBPS + GATEWAY_PRICES.nlcuHour, 12);
    for (const x of [direct, nlb]) expect(x.total).toBeCloseTo(x.storage + x.tasks + x.access, 12);
    expect(nlb.storage).toBe(direct.storage);
  });
});

describe('gateway windows', () => {
  it('is a lone 100 ms request per object when the window is shorter: section (d) keyless at 100 ms', () => {
    const x = gatewayIngestPerGb(COUNTED, { mode: 'direct', deployment: SMALLEST_DEPLOYMENT, lingerMs: 25 });
    const d = modelCost({ recordBytes: 1024, mbPerSecond: 1, partitions: 16, shape: 'keyless', lingerMs: 100 }, COUNTED).ingest;
    expect(x.requestsPerWindow).toBe(1);
    expect(x.partitionsPerWindow).toBeCloseTo(1, 12);
    expect(x.storage).toBeCloseTo(d.s3Put + d.dynamodb + d.maintenance, 12);
  });

  it('joins W / 100 ms requests touching 16·(1 − (15/16)^k) partitions, each paying its STATE update', () => {
    const one = gatewayIngestPerGb(COUNTED, { mode: 'direct', deployment: SMALLEST_DEPLOYMENT, lingerMs: 25 });
    const x = gatewayIngestPerGb(COUNTED, { mode: 'direct', deployment: SMALLEST_DEPLOYMENT, lingerMs: 1000 });
    expect(x.requestsPerWindow).toBe(10);
    expect(x.partitionsPerWindow).toBeCloseTo(16 * (1 - (15 / 16) ** 10), 12);
    expect(x.objectsPerGb).toBeCloseTo(one.objectsPerGb / 10, 9);
    // Fewer objects, but more than one STATE update each: more than a tenth of the storage cost.
    expect(x.storage).toBeGreaterThan(one.storage / 10);
    expect(x.storage).toBeLessThan(one.storage);
  });

  it('splits the requests over the tasks: N times the intake objects at the same linger', () => {
    const oneTask = { ...DEFAULT_DEPLOYMENT, tasks: 1 };
    const a = gatewayIngestPerGb(COUNTED, { mode: 'nlb', deployment: oneTask, lingerMs: 2000 });
    const b = gatewayIngestPerGb(COUNTED, { mode: 'nlb', deployment: DEFAULT_DEPLOYMENT, lingerMs: 2000 });
    expect(DEFAULT_DEPLOYMENT.tasks).toBe(2);
    expect(b.requestsPerWindow).toBe(a.requestsPerWindow / 2);
    expect(b.objectsPerGb).toBeCloseTo(a.objectsPerGb * 2, 9);
    expect(b.tasks).toBeCloseTo(a.tasks * 2, 12);
  });

  it('closes a window at the batch bytes', () => {
    const x = gatewayIngestPerGb(COUNTED, { mode: 'direct', deployment: SMALLEST_DEPLOYMENT, lingerMs: 5000, mbPerSecond: 40 });
    // 100 ms of 40 MB/s is 4 MiB: two requests fill the 8 MiB batch.
    expect(x.requestsPerWindow).toBe(2);
  });

  it('sizes tasks of at most the default vCPU by the measured rate', () => {
    expect(sizedDeployment(1, 6)).toMatchObject({ tasks: 1, vcpu: 0.25, gb: 0.5 });
    const big = sizedDeployment(50, 6);
    expect(big.tasks).toBe(9);
    expect(big.tasks * big.vcpu).toBeCloseTo(50 / 6, 12);
    expect(big.gb).toBeCloseTo(big.vcpu * 2, 12);
  });
});

describe('kafkaGatewaySection', () => {
  const window = (requests: number, partitions: number) => ({ requests, partitions });
  const result: KafkaGatewayBenchResult = {
    records: 8000,
    perRequest: 200,
    recordBytes: 1024,
    gatewaySeconds: 1.3,
    gatewayCpuMs: 1000,
    httpSeconds: 1.4,
    small: [
      { lingerMs: 25, producers: 8, seconds: 5, requests: 736, objects: 92, windows: Array.from({ length: 92 }, () => window(8, 6)) },
      { lingerMs: 1000, producers: 8, seconds: 10, requests: 72, objects: 9, windows: Array.from({ length: 9 }, () => window(8, 7)) },
    ],
  };
  const text = kafkaGatewaySection(result, COUNTED);

  it('says for every mode and deployment whether it meets the target, as its table marks', () => {
    const rows = text.split('\n').filter((l) => /^\| (smallest|construct default):/.test(l));
    expect(rows).toHaveLength(12);
    const verdicts = text.split('\n').filter((l) => /^- (NLB|direct) mode, /.test(l));
    expect(verdicts).toHaveLength(4);
    for (const v of verdicts) {
      const [, mode, deployment] = /^- (NLB|direct) mode, (smallest|construct default) deployment/.exec(v)!;
      const column = mode === 'NLB' ? 9 : 11;
      const marked = rows.filter((r) => r.startsWith(`| ${deployment}:`) && r.split('|')[column].includes('✓')).map((r) => r.split('|')[2].trim());
      if (marked.length === 0) expect(v).toContain('does not meet it');
      else for (const linger of marked) expect(v).toMatch(new RegExp(`meets it at .*${linger.replace(' ms', '')} ms \\(`));
    }
  });

  it('sizes the direct mode by the TLS rate when measured', () => {
    expect(text).toContain('not measured in this run');
    const withTls = kafkaGatewaySection({ ...result, tls: { rounds: 2, records: 4096, plainSeconds: 1, tlsSeconds: 2, plainCpuMs: 800, tlsCpuMs: 1600 } }, COUNTED);
    expect(withTls).toMatch(/2,048 records\/s over TLS, 4,096 over plain TCP; TLS ran at 50% of plain TCP's rate/);
    // 4 MiB: 200 and 400 CPU ms per MiB.
    expect(withTls).toMatch(/spent 400\.0 CPU ms per MiB over TLS against 200\.0 over plain TCP \(200%\)/);
    // Sized by CPU: 50 MB/s at 5 MB/s per vCPU (plain) and 2.5 (TLS): 10 and 20 tasks.
    const row = withTls.split('\n').find((l) => l.startsWith('| 50 |'))!.split('|');
    expect(row[3]).toMatch(/^ 10 × /);
    expect(row[7]).toMatch(/^ 20 × /);
  });

  it('prints every price it uses and the effect of cross-AZ transfer', () => {
    for (const price of ['$0.03238', '$0.00356', '$0.0225', '$0.006', '$0.50/month', '$0.10 per', '$0.40 per', '730 hours', '$0.01/GB']) expect(text).toContain(price);
    expect(text).toMatch(/would add \$0\.0200\/GB/);
  });
});

describe('the least gateway linger meeting the target', () => {
  it('is the first 50 ms step at or under 1/8 of Kinesis, the step before it above', () => {
    for (const mode of ['nlb', 'direct'] as const) {
      for (const deployment of [SMALLEST_DEPLOYMENT, DEFAULT_DEPLOYMENT]) {
        const least = leastLingerMeeting(COUNTED, mode, deployment);
        if (!least) {
          const longest = gatewayIngestPerGb(COUNTED, { mode, deployment, lingerMs: 60_000 });
          expect(longest.total).toBeGreaterThan(longest.kinesis / 8);
          continue;
        }
        expect(least.cost.total).toBeLessThanOrEqual(least.cost.kinesis / 8);
        if (least.lingerMs > 50) {
          const before = gatewayIngestPerGb(COUNTED, { mode, deployment, lingerMs: least.lingerMs - 50 });
          expect(before.total).toBeGreaterThan(before.kinesis / 8);
        }
      }
    }
  });
});
