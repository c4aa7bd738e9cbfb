import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { IdbFactoryLike, IdbKeyRangeLike, IndexedDbStateStore, MemoryStateStore, StateStore } from './state-store.js';

const stores: Array<[string, () => StateStore]> = [
  ['memory', () => new MemoryStateStore()],
  [
    'IndexedDB',
    () =>
      new IndexedDbStateStore(
        new IDBFactory() as unknown as IdbFactoryLike,
        IDBKeyRange as unknown as IdbKeyRangeLike,
        `test-${Math.random()}`,
      ),
  ],
];

describe.each(stores)('%s state store', (_name, make) => {
  it('keeps a copy of what was saved, not the live object', async () => {
    const store = make();
    const value = { messages: [{ mid: '1' }], trio: null };
    await store.save('u_1/window/c', value);
    value.messages.push({ mid: '2' });
    expect(await store.load('u_1/window/c')).toEqual({ messages: [{ mid: '1' }], trio: null });
    expect(await store.load('u_1/nothing')).toBeUndefined();
  });

  it("clears one user's entries by prefix and leaves the others", async () => {
    const store = make();
    await store.save('u_1/home', 1);
    await store.save('u_1/window/a', 2);
    await store.save('u_10/home', 3);
    await store.save('u_2/home', 4);
    await store.clear('u_1/');
    expect(await Promise.all(['u_1/home', 'u_1/window/a', 'u_10/home', 'u_2/home'].map((k) => store.load(k)))).toEqual([
      undefined,
      undefined,
      3,
      4,
    ]);
  });
});
