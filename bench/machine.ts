// The machine a benchmark ran on, for the head of bench/results.md: numbers mean little without it.
import os from 'node:os';

export interface MachineDescription {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
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
  };
}

export function machineMarkdown(m: MachineDescription): string {
  return [
    '| | |',
    '|---|---|',
    `| CPU | ${m.cpuModel} |`,
    `| cores | ${m.cores} |`,
    `| memory | ${m.memoryGiB} GiB |`,
    `| Node.js | ${m.node} |`,
    `| OS | ${m.platform} |`,
    `| date | ${m.date} |`,
  ].join('\n');
}
