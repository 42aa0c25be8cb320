// lib/observability/metric-names.ts: the names the dashboard and the handlers share.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVICE_NAME, METRIC_NAMESPACE, SluiceMetric } from '../../lib/observability/metric-names.js';

describe('metric names', () => {
  it('namespace, default service, and each metric named as its key (the EMF name is the key)', () => {
    expect(METRIC_NAMESPACE).toBe('Sluice');
    expect(DEFAULT_SERVICE_NAME).toBe('sluice');
    for (const [key, name] of Object.entries(SluiceMetric)) expect(name).toBe(key);
    expect(Object.keys(SluiceMetric)).toEqual(expect.arrayContaining(['RecordsIn', 'BytesIn', 'RecordsOut', 'BytesOut', 'ServerErrors', 'RetriableRefusals']));
  });
});
