import { DeadTokenGuard } from './dead-token-guard';

describe('DeadTokenGuard', () => {
  it('lets dead tokens go until a run of them passes the threshold, then keeps registrations', () => {
    const guard = new DeadTokenGuard(3);
    expect([guard.dead(), guard.dead(), guard.dead()]).toEqual([true, true, true]);
    expect(guard.tripped).toBe(false);
    expect(guard.dead()).toBe(false);
    expect(guard.tripped).toBe(true);
    expect(guard.run).toBe(4);
  });

  it('starts again after a delivery', () => {
    const guard = new DeadTokenGuard(2);
    guard.dead();
    guard.dead();
    guard.dead();
    guard.delivered();
    expect(guard.tripped).toBe(false);
    expect([guard.dead(), guard.dead(), guard.dead()]).toEqual([true, true, false]);
  });
});
