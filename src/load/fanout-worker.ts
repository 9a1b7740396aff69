// A worker thread running a share of the fan-out's subscribers (see SubscriberSet). Protocol:
// workerData is its SubscriberSetConfig; it posts { started } once its streams are open, and on
// { stop, accepted } the set's result, then ends.
import { parentPort, workerData } from 'node:worker_threads';
import { SubscriberSet, type SubscriberSetConfig } from './fanout-subscribers.ts';

const set = new SubscriberSet(workerData as SubscriberSetConfig);
parentPort!.on('message', (msg: { stop?: boolean; accepted?: number[] }) => {
  if (!msg.stop) return;
  void set.stop(msg.accepted ?? []).then((result) => {
    parentPort!.postMessage({ result });
    parentPort!.close();
  });
});
await set.start();
parentPort!.postMessage({ started: true, connected: set.connected });
