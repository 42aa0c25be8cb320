// Child process of the benchmark: runs the embedded emulators (dynalite + s3rver) on their own
// event loop and reports their endpoints over IPC, so the emulators' CPU does not share a thread
// with the handlers or the raw-I/O clients being measured. Both sides of every throughput ratio
// talk to this same process. Exits when the parent disconnects.
import { startEmulators } from '../lib/local/emulators.js';

const emulators = await startEmulators();
process.send!({ dynamodbEndpoint: emulators.dynamodbEndpoint, s3Endpoint: emulators.s3Endpoint });
// CPU time used so far, so the benchmark can say where the time goes.
process.on('message', (m) => {
  if (m === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuMs: (user + system) / 1000 });
  }
});
process.on('disconnect', () => {
  void emulators.close().finally(() => process.exit(0));
});
