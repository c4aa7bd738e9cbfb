import { orderStamp } from './call-room-events.service';

describe('orderStamp', () => {
  const second = 1_800_000_000;

  it('orders by EventMsTs when the event has it', () => {
    expect(orderStamp({ eventMs: second * 1000 + 250, secondsOnly: false })).toBe(second * 1000 + 250);
    expect(orderStamp({ eventMs: second * 1000, secondsOnly: false })).toBe(second * 1000);
  });

  it('takes a stamp known only to the second as its last millisecond: after that second, before the next', () => {
    const stamp = orderStamp({ eventMs: second * 1000, secondsOnly: true });
    expect(stamp).toBe(second * 1000 + 999);
    expect(stamp).toBeGreaterThan(second * 1000 + 998);
    expect(stamp).toBeLessThan((second + 1) * 1000);
  });
});
