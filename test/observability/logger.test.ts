// lib/observability/logger.ts: quiet outside Lambda, INFO inside, overridable by env and options.
import { describe, expect, it, vi } from 'vitest';
import { createLogger, logger } from '../../lib/observability/logger.js';

describe('createLogger', () => {
  it('WARN outside Lambda, INFO inside, POWERTOOLS_LOG_LEVEL wins, options win over env', () => {
    expect(createLogger({}, {}).getLevelName()).toBe('WARN');
    expect(createLogger({}, { AWS_LAMBDA_FUNCTION_NAME: 'f' }).getLevelName()).toBe('INFO');
    expect(createLogger({}, { POWERTOOLS_LOG_LEVEL: 'DEBUG' }).getLevelName()).toBe('DEBUG');
    expect(createLogger({ logLevel: 'ERROR' }, { POWERTOOLS_LOG_LEVEL: 'DEBUG' }).getLevelName()).toBe('ERROR');
  });
  it('service name: option, then POWERTOOLS_SERVICE_NAME, then sluice (read off a printed line)', () => {
    const service = (l: ReturnType<typeof createLogger>) => {
      const lines: string[] = [];
      const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (lines.push(String(chunk)), true));
      const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (lines.push(String(chunk)), true));
      try {
        l.error('probe');
      } finally {
        spy.mockRestore();
        errSpy.mockRestore();
      }
      const line = lines.map((x) => x.trim()).find((x) => x.includes('probe'));
      return (JSON.parse(line!) as { service: string }).service;
    };
    expect(service(createLogger({}, {}))).toBe('sluice');
    expect(service(createLogger({}, { POWERTOOLS_SERVICE_NAME: 'svc' }))).toBe('svc');
    expect(service(createLogger({ serviceName: 'opt' }, { POWERTOOLS_SERVICE_NAME: 'svc' }))).toBe('opt');
  });
  it('one process-wide logger', () => {
    expect(logger).toBeDefined();
    expect(typeof logger.info).toBe('function');
  });
});
