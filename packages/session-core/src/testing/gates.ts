/**
 * A named one-shot rendezvous between a test and code under test: the code `arrive`s and waits for
 * `released`; the test awaits `reached` and then calls `release`. Releasing first lets the code pass
 * without waiting.
 */
export interface Gate {
  readonly reached: Promise<void>;
  readonly released: Promise<void>;
  readonly isReleased: boolean;
  arrive(): void;
  release(): void;
}

function createGate(): Gate {
  let arrive = () => {};
  let release = () => {};
  let isReleased = false;
  const reached = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = () => {
      isReleased = true;
      resolve();
    };
  });
  return {
    reached,
    released,
    get isReleased() {
      return isReleased;
    },
    arrive,
    release,
  };
}

/** Gates by name, created on first use by either side. */
export class GateSet {
  readonly #gates = new Map<string, Gate>();

  get(name: string): Gate {
    let gate = this.#gates.get(name);
    if (!gate) {
      gate = createGate();
      this.#gates.set(name, gate);
    }
    return gate;
  }
}
