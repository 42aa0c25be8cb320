// The machine a benchmark ran on, for the head of bench/results.md: numbers mean little without it.
import os from 'node:os';

export interface MachineDescription {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
  /** 1-minute load average when the run started: other work on the machine skews every number. */
  readonly loadAverage: number;
}

export function describeMachine(): MachineDescription {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
    loadAverage: Math.round(os.loadavg()[0] * 100) / 100,
  };
}

/** 1-minute load average now (for the end of a run). */
export const loadAverageNow = () => Math.round(os.loadavg()[0] * 100) / 100;

export function machineMarkdown(m: MachineDescription, loadAtEnd?: number): string {
  return [
    '| | |',
    '|---|---|',
    `| CPU | ${m.cpuModel} |`,
    `| cores | ${m.cores} |`,
    `| memory | ${m.memoryGiB} GiB |`,
    `| Node.js | ${m.node} |`,
    `| OS | ${m.platform} |`,
    `| date | ${m.date} |`,
    `| load average (1 min) at start | ${m.loadAverage} |`,
    ...(loadAtEnd === undefined ? [] : [`| load average (1 min) at the end | ${loadAtEnd} |`]),
  ].join('\n');
}
