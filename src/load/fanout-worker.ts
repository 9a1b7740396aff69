// A worker thread running a share of the fan-out's subscribers (see SubscriberSet). Protocol:
// workerData is its SubscriberSetConfig; it posts { started, tid } once its streams are open, and on
// { stop, accepted, drainDeadlineMs } the set's result, then ends.
import { parentPort, workerData } from 'node:worker_threads';
import { SubscriberSet, type SubscriberSetConfig } from './fanout-subscribers.ts';
import { currentThreadId } from './thread-id.ts';

const set = new SubscriberSet(workerData as SubscriberSetConfig);
parentPort!.on('message', (msg: { stop?: boolean; accepted?: number[]; drainDeadlineMs?: number }) => {
  if (!msg.stop) return;
  void set.stop(msg.accepted ?? [], msg.drainDeadlineMs).then((result) => {
    parentPort!.postMessage({ result });
    parentPort!.close();
  });
});
await set.start();
// The OS thread's id, so that the run's CPU figures can name this thread among the process's.
parentPort!.postMessage({ started: true, connected: set.connected, tid: currentThreadId() });
