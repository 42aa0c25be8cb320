// kcat (librdkafka's command-line client) for the gateway's tests: whether it is installed, and a
// runner that feeds it stdin and returns its stdout. Tests that use it skip with a loud message
// where it is missing; .ci/run installs it.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

export const kcatInstalled: boolean = await promisify(execFile)('kcat', ['-V']).then(
  () => true,
  () => false,
);

/** Runs kcat with `input` on stdin; resolves with its stdout, rejects on a non-zero exit (killed after 30 s). */
export function kcatWith(args: string[], input = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`kcat ${args.join(' ')} exited ${code}: ${stderr}`));
    });
    child.stdin.end(input);
  });
}
