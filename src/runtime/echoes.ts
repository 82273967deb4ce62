// The watch events of a reconciler's own writes, which it need not see again: the pass that wrote
// a version already acted on everything that version holds (controller-runtime has no such filter;
// its users reach for GenerationChangedPredicate, which would hide every other status writer too).
import type { Predicate } from './predicates.ts';
import { type KubeObject, objectKey } from './types.ts';

interface Write {
  /** The version the write was computed from and sent against (optimistic concurrency). */
  read: string;
  /** The version the API server returned; undefined while the request is in flight. */
  written?: string;
  /** A read → ? update that arrived while the request was in flight, held until it settles. */
  held?: { oldObj: KubeObject; newObj: KubeObject };
}

/** One write in flight: settle it with the object the API server returned, or nothing on failure. */
export interface EchoTicket {
  settle(written: KubeObject | undefined): void;
}

/**
 * Drops an update only when it goes from exactly the version a recorded write was sent against to
 * exactly the version the write returned: as the write carried the version it read, no other
 * writer's change can be in between. The watch often delivers that update before the write's
 * response, so an update from the read version that arrives while the write is in flight is held
 * and decided when it settles; a held update that was not the write's own is released to
 * `release`, as the watch would have passed it. Any other update passes and forgets the record.
 */
export class OwnWriteEchoes {
  private readonly writes = new Map<string, Write>();
  private readonly release: (oldObj: KubeObject, newObj: KubeObject) => void;

  /** `release` receives an update that was held and turned out to be someone else's. */
  constructor(release: (oldObj: KubeObject, newObj: KubeObject) => void) {
    this.release = release;
  }

  /** Call just before sending a write computed from `read` whose echo need not be seen. */
  begin(read: KubeObject): EchoTicket | undefined {
    const rv = read.metadata.resourceVersion;
    if (!rv) return undefined;
    const key = objectKey(read);
    const held = this.writes.get(key)?.held;
    if (held) this.release(held.oldObj, held.newObj);
    const write: Write = { read: rv };
    this.writes.set(key, write);
    return { settle: (written) => this.settle(key, write, written) };
  }

  get size(): number {
    return this.writes.size;
  }

  private settle(key: string, write: Write, written: KubeObject | undefined): void {
    if (this.writes.get(key) !== write) return;
    const to = written?.metadata.resourceVersion;
    if (!to || write.held) {
      this.writes.delete(key);
      const held = write.held;
      if (held && held.newObj.metadata.resourceVersion !== to) this.release(held.oldObj, held.newObj);
      return;
    }
    write.written = to;
  }

  readonly predicate: Predicate = {
    update: (oldObj, newObj) => {
      const key = objectKey(newObj);
      const write = this.writes.get(key);
      if (!write) return true;
      const from = oldObj.metadata.resourceVersion;
      if (write.written === undefined) {
        // In flight: only the update from the version it was sent against can be its echo.
        if (from !== write.read || write.held) return true;
        write.held = { oldObj, newObj };
        return false;
      }
      this.writes.delete(key);
      return !(from === write.read && newObj.metadata.resourceVersion === write.written);
    },
    delete: (obj) => {
      const key = objectKey(obj);
      const held = this.writes.get(key)?.held;
      this.writes.delete(key);
      if (held) this.release(held.oldObj, held.newObj);
      return true;
    },
  };
}
