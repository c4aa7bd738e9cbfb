/**
 * Where the SDK keeps a readable copy of what it has shown (spec 7: keep readable cache on
 * network loss), so a reload can show the last state at once and calibrate from it. Keys are
 * per user; logout clears that user's entries.
 */
export interface StateStore {
  load(key: string): Promise<unknown>;
  save(key: string, value: unknown): Promise<void>;
  /** Removes every entry whose key starts with `prefix`. */
  clear(prefix: string): Promise<void>;
}

export class MemoryStateStore implements StateStore {
  private readonly entries = new Map<string, string>();

  async load(key: string): Promise<unknown> {
    const json = this.entries.get(key);
    return json === undefined ? undefined : (JSON.parse(json) as unknown);
  }

  async save(key: string, value: unknown): Promise<void> {
    // Stored as JSON, as IndexedDB would: no shared references with the live state.
    this.entries.set(key, JSON.stringify(value));
  }

  async clear(prefix: string): Promise<void> {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}

const STORE = 'state';

// The parts of the IndexedDB API used here, typed locally so the package compiles the same
// with and without the DOM library.
export interface IdbRequest<T = unknown> {
  result: T;
  error: unknown;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}
export interface IdbObjectStore {
  get(key: string): IdbRequest;
  put(value: unknown, key: string): IdbRequest;
  delete(range: unknown): IdbRequest;
}
export interface IdbDatabase {
  transaction(store: string, mode: 'readonly' | 'readwrite'): { objectStore(name: string): IdbObjectStore };
  createObjectStore(name: string): unknown;
}
export interface IdbOpenRequest extends IdbRequest<IdbDatabase> {
  onupgradeneeded: (() => void) | null;
}
export interface IdbFactoryLike {
  open(name: string, version: number): IdbOpenRequest;
}
export interface IdbKeyRangeLike {
  bound(lower: string, upper: string, lowerOpen: boolean, upperOpen: boolean): unknown;
}

/** IndexedDB: the readable cache survives a reload. One object store, keyed by string. */
export class IndexedDbStateStore implements StateStore {
  private db: Promise<IdbDatabase> | null = null;

  constructor(
    private readonly factory: IdbFactoryLike,
    private readonly keyRange: IdbKeyRangeLike,
    private readonly name = 'im-sdk',
  ) {}

  async load(key: string): Promise<unknown> {
    return this.request('readonly', (store) => store.get(key));
  }

  async save(key: string, value: unknown): Promise<void> {
    await this.request('readwrite', (store) => store.put(JSON.parse(JSON.stringify(value)) as unknown, key));
  }

  async clear(prefix: string): Promise<void> {
    // Every key starting with `prefix`: the range [prefix, prefix + U+FFFF).
    await this.request('readwrite', (store) =>
      store.delete(this.keyRange.bound(prefix, `${prefix}\uffff`, false, true)),
    );
  }

  private open(): Promise<IdbDatabase> {
    this.db ??= new Promise((resolve, reject) => {
      const request = this.factory.open(this.name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB did not open'));
    });
    return this.db;
  }

  private async request(mode: 'readonly' | 'readwrite', run: (store: IdbObjectStore) => IdbRequest): Promise<unknown> {
    const db = await this.open();
    return new Promise((resolve, reject) => {
      const request = run(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
    });
  }
}

/** IndexedDB where the platform has it, memory otherwise. */
export function defaultStateStore(): StateStore {
  const scope = globalThis as { indexedDB?: IdbFactoryLike; IDBKeyRange?: IdbKeyRangeLike };
  return scope.indexedDB && scope.IDBKeyRange
    ? new IndexedDbStateStore(scope.indexedDB, scope.IDBKeyRange)
    : new MemoryStateStore();
}
